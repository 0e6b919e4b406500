"""Bura computer players never throw away a sure win (D5, D6, D7, D8)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.bura.actions import Action, Declare, Show, action_from_json
from engine.bura.ai import LEVELS, make_player
from engine.bura.ai.sure import sure_wins
from engine.bura.deal import DECLARE, Deal
from engine.bura.rules import Rules
from engine.cards import Card, shuffled_deck
from tests.support.bura import all_actions, answer, bura_deck, lead

RULES = Rules()


def wins_whatever_the_others_do(deal: Deal, seat: int, action: Action) -> bool:
    """Whether ``action`` wins the real deal for ``seat`` against every reply of the
    others, ``seat`` declaring at its first chance (D5) and acting in no other way."""
    after = deal.copy()
    after.apply(action)
    return _won(after, seat)


def _won(deal: Deal, seat: int) -> bool:
    if deal.finished:
        return deal.result().winner == seat
    if deal.phase == DECLARE and deal.turn == seat:
        declared = deal.copy()
        declared.apply(Declare(seat, True))
        return declared.result().winner == seat
    others = [s for s in deal.actors() if s != seat]
    if not others or deal.turn == seat:
        return False  # the seat would have to act again: not won by that action alone
    for other in others:
        for reply in deal.legal_actions(other):
            then = deal.copy()
            then.apply(reply)
            if not _won(then, seat):
                return False
    return True


def replayed(deck: str, moves: list[dict[str, object]]) -> Deal:
    deal = Deal.start(2, shuffled_deck(deck), 0, RULES)
    for move in moves:
        deal.apply(action_from_json(move))
    return deal


# A real deal (hard against greedy): seat 0 holds 21 face-up points and answers Q♣ with
# 6♠ K♣ 10♣ in hand, clubs trumps. Beating with 10♣ takes 13 more: 34, a sure
# declaration. hard used to lay 6♠ face down instead, hoping greedy would take the trick
# and declare falsely (4 penalties to it, against 2 for a win of its own).
SURE_BEAT = (
    "bura-bench-45-0",
    [
        {"seat": 1, "cards": ["JH"]},
        {"seat": 0, "cards": ["8H"], "beat": False},
        {"seat": 1, "declare": False},
        {"seat": 1, "cards": ["KS", "QS", "9S"]},
        {"seat": 0, "cards": ["8D", "7C", "6C"], "beat": False},
        {"seat": 1, "declare": False},
        {"seat": 1, "cards": ["7S"]},
        {"seat": 0, "cards": ["9H"], "beat": False},
        {"seat": 1, "declare": False},
        {"seat": 1, "cards": ["7H"]},
        {"seat": 0, "cards": ["10D"], "beat": True},
        {"seat": 0, "declare": False},
        {"seat": 0, "cards": ["AD"]},
        {"seat": 1, "cards": ["9C"], "beat": False},
        {"seat": 0, "declare": False},
        {"seat": 0, "cards": ["QH"]},
        {"seat": 1, "cards": ["KH"], "beat": True},
        {"seat": 1, "declare": False},
        {"seat": 1, "cards": ["QC"]},
    ],
)

# A real deal: seat 0 has drawn 6♥ J♥ 10♥, hearts trumps, and answers K♠; seat 1 holds
# two cards, so nobody can show a better бура: showing wins. hard (seed 1) beat with 10♥.
SURE_BURA = (
    "bura-bench-70-0",
    [
        {"seat": 1, "cards": ["7S"]},
        {"seat": 0, "cards": ["7H"], "beat": False},
        {"seat": 1, "declare": False},
        {"seat": 1, "cards": ["9S"]},
        {"seat": 0, "cards": ["8C"], "beat": False},
        {"seat": 1, "declare": False},
        {"seat": 0, "cards": ["JD", "KD", "8D"], "stop": True},
        {"seat": 1, "cards": ["AD", "AC", "6D"], "beat": False},
        {"seat": 0, "declare": False},
        {"seat": 0, "cards": ["9H"]},
        {"seat": 1, "cards": ["JS"], "beat": False},
        {"seat": 0, "declare": False},
        {"seat": 0, "cards": ["JC"]},
        {"seat": 1, "cards": ["KC"], "beat": True},
        {"seat": 1, "declare": False},
        {"seat": 1, "cards": ["9C"]},
        {"seat": 0, "cards": ["7D"], "beat": False},
        {"seat": 1, "declare": False},
        {"seat": 1, "cards": ["KS"]},
    ],
)


@pytest.mark.parametrize("level", ["hard", "normal"])
@pytest.mark.parametrize("seed", range(3))
def test_d5_an_answer_that_makes_a_sure_declaration_is_taken(level: str, seed: int) -> None:
    deal = replayed(*SURE_BEAT)
    sure = answer(0, "10C", True)
    assert sure_wins(deal.view(0), deal.legal_actions(0), RULES) == [sure]
    assert wins_whatever_the_others_do(deal, 0, sure)
    choice = make_player(level, RULES, seed).choose(deal.view(0), deal.legal_actions(0))
    assert choice == sure


@pytest.mark.parametrize("level", ["hard", "normal"])
@pytest.mark.parametrize("seed", range(3))
def test_d6_a_bura_nobody_can_better_is_shown(level: str, seed: int) -> None:
    deal = replayed(*SURE_BURA)
    assert deal.hand(1).__len__() == 2
    choice = make_player(level, RULES, seed).choose(deal.view(0), deal.legal_actions(0))
    assert choice == Show(0, "bura")


def test_d6_a_bura_another_hand_of_three_may_better_is_not_sure() -> None:
    # Seat 0 takes 6♦ with 10♦ and draws K♣: 7♣ 8♣ K♣, clubs trumps (A♣ lies turned up
    # under the stock). Seat 1 has drawn back to three cards and 10♣ is unseen: it may
    # hold 10♣ and two more clubs, a better бура, which would win when ours is shown.
    deal = Deal.start(2, bura_deck(2, 0, ["7C 8C 10D", "6D 9S 7H"], "AC", "KC"), 0, RULES)
    deal.apply(lead(1, "6D"))
    deal.apply(answer(0, "10D", True))
    deal.apply(Declare(0, False))
    assert deal.hand(0) == tuple(Card.parse(c) for c in ("7C", "8C", "KC"))
    assert Show(0, "bura") in deal.legal_actions(0) and len(deal.hand(1)) == 3
    assert sure_wins(deal.view(0), deal.legal_actions(0), RULES) == []


def test_d5_open_points_of_31_make_a_sure_declaration_and_50_bounds_it() -> None:
    rules = Rules(molodka="off", discards="open")
    deal = Deal.start(2, bura_deck(2, 0, ["KS JS 6S", "AH 10H KH"], "7C"), 0, rules)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "KS JS 6S", False))
    assert sure_wins(deal.view(1), deal.legal_actions(1), rules) == [Declare(1, True)]
    bust = Rules(molodka="off", discards="open", target="31_50")
    deal = Deal.start(2, bura_deck(2, 0, ["KS JS 6S", "AH 10H KH"], "7C"), 0, bust)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "KS JS 6S", False))
    assert sure_wins(deal.view(1), deal.legal_actions(1), bust) == [Declare(1, True)]


def positions(seed: int, players: int, rules: Rules) -> list[Deal]:
    """Every position of a deal played by greedy players with some random moves (a
    mix that reaches piles near 31 and every kind of decision)."""
    rng = random.Random(seed)
    deal = Deal.start(players, shuffled_deck(f"sure-{seed}"), 0, rules)
    greedy = {s: make_player("greedy", rules, seed) for s in range(players)}
    seen = []
    while not deal.finished:
        seen.append(deal.copy())
        if rng.random() < 0.2:
            moves = [a for a in all_actions(deal) if not (isinstance(a, Declare) and a.declare)]
            deal.apply(rng.choice(moves or all_actions(deal)))
            continue
        turn = deal.turn
        chosen = None
        for seat in [s for s in deal.actors() if s != turn] + [turn]:
            assert seat is not None
            chosen = greedy[seat].choose(deal.view(seat), deal.legal_actions(seat))
            if chosen is not None:
                break
        assert chosen is not None
        deal.apply(chosen)
    return seen


RULE_SETS = [
    Rules(),
    Rules(moscow="on", discards="open", same_rank_leads="on"),
    Rules(target="31_50"),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6), players=st.sampled_from([2, 3]), rules=st.sampled_from(RULE_SETS)
)
def test_every_level_takes_a_sure_win_and_a_sure_win_is_won(
    seed: int, players: int, rules: Rules
) -> None:
    """Property: in every position of a deal, every action judged a sure win wins the
    real deal whatever the others do, and every level picks a sure win when one exists."""
    for deal in positions(seed, players, rules):
        for seat in deal.actors():
            legal = deal.legal_actions(seat)
            sure = sure_wins(deal.view(seat), legal, rules)
            if not sure:
                continue
            for action in sure:
                assert wins_whatever_the_others_do(deal, seat, action), action
            for level in LEVELS:
                choice = make_player(level, rules, seed).choose(deal.view(seat), legal)
                assert choice in sure, (level, choice, sure)
