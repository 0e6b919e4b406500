"""Burkozel computer players never throw away a sure win (C1, C2, R11-R13)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.burkozel.actions import Action
from engine.burkozel.ai import make_player
from engine.burkozel.ai.sure import sure_win, sure_wins
from engine.burkozel.deal import Deal
from engine.burkozel.rules import Rules
from engine.cards import shuffled_deck
from tests.support.burkozel import after_first_trick, all_legal, move

LEVELS = ("random", "greedy", "easy", "normal", "hard")

# A real deal between greedy players (2 players, base rules, clubs trumps, empty stock,
# so seat 0 knows seat 1 holds Q♣ 10♠ 10♥): seat 0 has 28 points to 37 and holds A♠ 10♦
# A♦. Leading A♦ 10♦ together (21 points seat 1 can beat only in part) wins the deal
# whatever seat 1 does; greedy led 10♦ alone, which Q♣ takes.
LAST_TRICKS = (
    "bk-sure-4",
    [
        {"seat": 1, "cards": ["8S", "9S"]},
        {"seat": 0, "cards": ["KS", "QS"], "beat": True},
        {"seat": 0, "cards": ["8D"]},
        {"seat": 1, "cards": ["6S"], "beat": False},
        {"seat": 0, "cards": ["6C"]},
        {"seat": 1, "cards": ["7D"], "beat": False},
        {"seat": 0, "cards": ["JD"]},
        {"seat": 1, "cards": ["KD"], "beat": True},
        {"seat": 1, "cards": ["9H"]},
        {"seat": 0, "cards": ["AH"], "beat": True},
        {"seat": 0, "cards": ["8H", "7H"]},
        {"seat": 1, "cards": ["AC", "KH"], "beat": True},
        {"seat": 1, "cards": ["QH"]},
        {"seat": 0, "cards": ["7S"], "beat": False},
        {"seat": 1, "cards": ["JH"]},
        {"seat": 0, "cards": ["8C"], "beat": True},
        {"seat": 0, "cards": ["7C"]},
        {"seat": 1, "cards": ["6H"], "beat": False},
        {"seat": 0, "cards": ["9C"]},
        {"seat": 1, "cards": ["JS"], "beat": False},
        {"seat": 0, "cards": ["9D"]},
        {"seat": 1, "cards": ["6D"], "beat": False},
        {"seat": 0, "cards": ["QD"]},
        {"seat": 1, "cards": ["10C"], "beat": True},
        {"seat": 1, "cards": ["JC"]},
        {"seat": 0, "cards": ["KC"], "beat": True},
    ],
)


def replayed(deck: str, moves: list[dict[str, object]]) -> Deal:
    deal = Deal.start(2, shuffled_deck(deck), 0)
    for data in moves:
        deal.apply(Action.from_json(data))
    return deal


def stays_won(deal: Deal, me: int) -> bool:
    """Whether ``me``, taking a sure win at each of its turns, wins the real deal
    against every line of the other seats."""
    if deal.finished:
        points = deal.result().points
        return all(points[me] > p for s, p in enumerate(points) if s != me)
    seat = deal.turn
    assert seat is not None
    if seat == me:
        choice = sure_win(deal.view(me), deal.legal_actions(me))
        if choice is None:
            return False
        after = deal.copy()
        after.apply(choice)
        return stays_won(after, me)
    for reply in deal.legal_actions(seat):
        after = deal.copy()
        after.apply(reply)
        if not stays_won(after, me):
            return False
    return True


@pytest.mark.parametrize("level", LEVELS)
def test_r13_a_lead_that_wins_the_last_tricks_for_sure_is_played(level: str) -> None:
    deal = replayed(*LAST_TRICKS)
    sure = move(0, "AD 10D")
    assert sure_wins(deal.view(0), deal.legal_actions(0)) == [sure]
    assert stays_won(deal, 0)
    for seed in range(3):
        assert make_player(level, seed).choose(deal.view(0), deal.legal_actions(0)) == sure


@pytest.mark.parametrize("level", LEVELS)
def test_c1_a_bura_nobody_can_better_is_shown(level: str) -> None:
    # Hearts trumps, seat 0 holds the four top trumps: nobody holds a better бура, and
    # the other three aces are not four: no Москва either.
    rules = Rules(combinations="on")
    deal = after_first_trick([["AH", "10H", "KH", "QH"], ["7S", "8S", "9S", "JS"]], "6H", rules)
    shows = [m for m in deal.legal_actions(0) if m.show is not None]
    assert sure_wins(deal.view(0), deal.legal_actions(0)) == shows
    for seed in range(5):
        choice = make_player(level, seed).choose(deal.view(0), deal.legal_actions(0))
        assert choice == shows[0]
    shown = deal.copy()
    shown.apply(shows[0])
    assert shown.finished and shown.result().penalties == (0, 4)


def test_c1_a_bura_another_hand_may_better_is_not_sure() -> None:
    # Seat 0's top trump is the queen: the other hand of four may hold A, 10, K, J of
    # hearts, a better бура (C1 precedence).
    rules = Rules(combinations="on")
    deal = after_first_trick([["QH", "9H", "8H", "7H"], ["7S", "8S", "9S", "JS"]], "6H", rules)
    assert sure_wins(deal.view(0), deal.legal_actions(0)) == []


RULE_SETS = [Rules(), Rules(combinations="on"), Rules(combinations="on", discards="closed")]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6), players=st.sampled_from([2, 3]), rules=st.sampled_from(RULE_SETS)
)
def test_every_level_takes_a_sure_win_and_a_sure_win_is_won(
    seed: int, players: int, rules: Rules
) -> None:
    """Property: in every position of a deal (greedy play with random moves mixed in),
    every level picks a sure win when there is one; a sure show wins the real deal, and
    with two cards or fewer left in hand a sure lead or answer keeps winning it against
    every line of the other seat."""
    rng = random.Random(seed)
    deal = Deal.start(players, shuffled_deck(f"sure-{seed}"), 0, rules)
    greedy = make_player("greedy", seed)
    while not deal.finished:
        seat = deal.turn
        assert seat is not None
        legal = deal.legal_actions(seat)
        sure = sure_wins(deal.view(seat), legal)
        if sure:
            for level in LEVELS:
                choice = make_player(level, seed).choose(deal.view(seat), legal)
                assert choice in sure, (level, choice, sure)
            for won in sure:
                if won.show is not None:
                    after = deal.copy()
                    after.apply(won)
                    penalties = after.result().penalties
                    assert penalties[seat] == 0 and all(
                        p > 0 for s, p in enumerate(penalties) if s != seat
                    )
            if len(deal.hand(seat)) <= 2:
                assert stays_won(deal, seat)
        if deal.stopper() is not None or rng.random() < 0.2:
            deal.apply(rng.choice(all_legal(deal)))
        else:
            deal.apply(greedy.choose(deal.view(seat), legal))
