"""Computer players under the house rules (Part B, C): legal, sensible, blind to hidden cards."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine import DECK, parse_cards
from engine.burkozel import Action, Deal, Rules, Series
from engine.burkozel.ai import (
    GreedyPlayer,
    Player,
    RandomPlayer,
    StrongPlayer,
    make_player,
    safe_move,
)
from engine.burkozel.ai.house import sample_deal
from tests.support.burkozel import after_first_trick, build_deck, move
from tests.support.strategies import table_rules

PLAYERS: dict[str, Player] = {
    "random": RandomPlayer(3),
    "greedy": GreedyPlayer(3),
    "easy": make_player("easy", 3),
    "strong-tiny": StrongPlayer(3, worlds=2),
}


def play_series(players: list[Player], rules: Rules, seed: int, deals: int) -> Series:
    """Every seat that may act is asked, out-of-turn leads (C3/C4) included."""
    rng = random.Random(seed)
    series = Series(len(players), rules)
    while not series.finished and len(series.deals) < deals:
        deal = series.start_deal(tuple(rng.sample(DECK, 36)))
        while not deal.finished:
            stopper = deal.stopper()
            seat = stopper if stopper is not None else deal.turn
            assert seat is not None
            legal = deal.legal_actions(seat)
            chosen = players[seat].choose(deal.view(seat), legal)
            assert chosen in legal, f"{chosen} is not legal"
            series.apply(chosen)
    return series


@settings(max_examples=25, deadline=None)
@given(table=table_rules(), seed=st.integers(0, 2**16), name=st.sampled_from(sorted(PLAYERS)))
# B1: the turned trump's drawer discarded it face down and holds no card; the strong
# player's sampled worlds once put it back in that empty hand (and led from it).
@example(
    table=(
        4,
        Rules(
            discards="closed",
            max_lead=3,
            series_end="first_to_12",
            scoring="penalty",
            teams="pairs",
            combinations="off",
        ),
    ),
    seed=1201,
    name="strong-tiny",
)
def test_players_play_legally_under_any_switches(
    table: tuple[int, Rules], seed: int, name: str
) -> None:
    players, rules = table
    play_series([PLAYERS[name]] * players, rules, seed, deals=2)


def test_b6_computer_shows_bura_and_leads_out_of_turn() -> None:
    on = Rules(combinations="on")
    deal = after_first_trick([["7S", "8D", "9D", "9H"], ["AC", "KC", "QC", "JC"]], "6C", on)
    deal.apply(move(0, "7S"))
    for player in (GreedyPlayer(1), StrongPlayer(1, worlds=4)):
        assert player.choose(deal.view(1), deal.legal_actions()).show == "bura"
    deal = after_first_trick([["7S", "8D", "9D", "9H"], ["6H", "7H", "8H", "JH"]], "6C", on)
    for player in (GreedyPlayer(1), StrongPlayer(1, worlds=4)):
        assert player.choose(deal.view(1), deal.legal_actions(1)).stop


def test_b2_does_not_lead_four_valuable_cards_but_leads_four_worthless() -> None:
    four = Rules(max_lead=4)
    rich = after_first_trick([["AH", "10H", "KH", "QH"], ["7S", "8D", "9D", "JS"]], "6C", four)
    chosen = safe_move(rich.view(0), rich.legal_actions())
    assert len(chosen.cards) < 4
    poor = after_first_trick([["6H", "7H", "8H", "9H"], ["7S", "8D", "9D", "JS"]], "6C", four)
    assert len(safe_move(poor.view(0), poor.legal_actions()).cards) == 4


PAIRS = Rules(teams="pairs")


def test_b5_does_not_beat_the_partners_claim() -> None:
    hands = [
        ["AS", "7D", "8D", "9D"],
        ["6S", "7H", "8H", "9H"],
        ["6C", "JD", "QD", "KS"],
        ["6H", "10D", "QH", "JH"],
    ]
    deal = Deal.start(4, build_deck(4, 3, hands, "7C"), 3, PAIRS)
    deal.apply(move(0, "AS"))
    deal.apply(move(1, "6S", False))
    # Seat 2 could take its partner's ace with the trump 6C: a greedy player alone would.
    assert Action(2, parse_cards(["6C"]), True) in deal.legal_actions()
    chosen = GreedyPlayer(1).choose(deal.view(2), deal.legal_actions())
    assert chosen.beat is False and chosen.cards != parse_cards(["6C"])
    alone = Deal.start(4, build_deck(4, 3, hands, "7C"), 3)
    alone.apply(move(0, "AS"))
    alone.apply(move(1, "6S", False))
    assert GreedyPlayer(1).choose(alone.view(2), alone.legal_actions()).beat is True


def test_b5_last_answerer_smears_points_onto_the_partners_trick() -> None:
    hands = [
        ["6S", "7D", "8D", "9D"],
        ["AS", "7H", "8H", "9H"],
        ["JD", "QD", "KS", "6D"],
        ["10H", "8S", "7C", "QS"],
    ]
    deal = Deal.start(4, build_deck(4, 3, hands, "6C"), 3, PAIRS)
    deal.apply(move(0, "6S"))
    deal.apply(move(1, "AS", True))
    deal.apply(move(2, "6D", False))
    chosen = GreedyPlayer(1).choose(deal.view(3), deal.legal_actions())
    assert chosen == move(3, "10H", False)


@pytest.mark.parametrize(
    "rules",
    [
        Rules(discards="closed", combinations="on"),
        Rules(teams="pairs", discards="closed", max_lead=4),
        Rules(series_end="elimination", combinations="on"),
    ],
)
def test_house_decisions_ignore_hidden_cards(rules: Rules) -> None:
    """A world rebuilt from a seat's view with other hidden cards (closed discards
    included) shows that seat the same view, and every player decides the same in it."""
    rng = random.Random(7)
    players: list[Player] = [GreedyPlayer(1), make_player("normal", 1), RandomPlayer(1)]
    checked = 0
    for game in range(30):
        n = 4 if rules.teams == "pairs" else 3
        deal = Deal.start(n, tuple(random.Random(game).sample(DECK, 36)), 0, rules)
        for _ in range(rng.randrange(4, 25)):
            if deal.finished:
                break
            deal.apply(safe_move(deal.view(deal.turn or 0), deal.legal_actions()))
        if deal.finished:
            continue
        seat = deal.turn
        assert seat is not None
        view = deal.view(seat)
        twin = sample_deal(view, random.Random(game))
        assert twin.view(seat) == view
        for player in players:
            a = player.choose(view, deal.legal_actions())
            b = player.choose(twin.view(seat), twin.legal_actions())
            assert (sorted(a.cards), a.beat, a.show) == (sorted(b.cards), b.beat, b.show)
        checked += 1
    assert checked >= 10
