"""Each game's codec (``bot/games/<game>/codec.py``) reads back every legal action it
writes, in random positions under random rules, and no letter stands for two kinds of
action within a game: a button and the Mini App carry an action as its letter and cards,
and the service takes it back through the same table."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.bura import codec as bura_codec
from bot.games.bura.app import bura_actions
from bot.games.burkozel import codec as burkozel_codec
from bot.games.burkozel.app import burkozel_actions
from bot.i18n import texts
from engine import bura, burkozel, parse_cards
from engine.bura.actions import Action, Answer, Dave, DaveReply, Declare, Lead, Show
from engine.bura.rules import SWITCHES
from engine.burkozel import Series
from engine.cards import DECK
from tests.support.strategies import lumpy_decks, table_rules

T = texts("ru")


def sorted_cards(action: Any) -> Any:
    """The action with its cards in the order buttons carry them."""
    cards = getattr(action, "cards", None)
    return replace(action, cards=tuple(sorted(cards))) if cards else action


@settings(max_examples=40, deadline=None)
@given(table=table_rules(), deck=lumpy_decks(), seed=st.integers(0, 2**32))
def test_burkozel_moves_read_back_as_written(
    table: tuple[int, burkozel.Rules], deck: Any, seed: int
) -> None:
    """R6/R7 plays, C3/C4 leads out of turn and C1/C2 shows, by button and by Mini App."""
    players, rules = table
    rng = random.Random(seed)
    series = Series(players, rules)
    deal = series.start_deal(deck)
    while not deal.finished:
        for seat in deal.actors():
            legal = deal.legal_actions(seat)
            for move in legal:
                kind = burkozel_codec.kind_of(move)
                cards = tuple(sorted(move.cards))
                read = burkozel_codec.move_of(seat, kind, cards, move.show)
                assert read == sorted_cards(move), (kind, move)
            offered = burkozel_actions(T, deal, seat)
            assert len(offered) == len(legal)
            for action in offered:
                cards = parse_cards(action["cards"] or [])
                show = next((m.show for m in legal if m.show is not None), None)
                read = burkozel_codec.move_of(seat, action["kind"], cards, show)
                assert read in map(sorted_cards, legal), action
        seat = rng.choice(deal.actors())
        series.apply(rng.choice(deal.legal_actions(seat)))


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 4),
    switches=st.fixed_dictionaries({k: st.sampled_from(v) for k, v in SWITCHES.items()}),
    deck=lumpy_decks(),
    seed=st.integers(0, 2**32),
)
def test_bura_actions_read_back_as_written(
    players: int, switches: dict[str, Any], deck: Any, seed: int
) -> None:
    """Leads, «Стоп!», answers, declarations, the draw, shows, даве and its replies, by
    button and by Mini App."""
    rng = random.Random(seed)
    series = bura.Series(players, bura.Rules(**switches), first_dealer=0)
    deal = series.start_deal(deck)
    while not deal.finished:
        for seat in deal.actors():
            legal = deal.legal_actions(seat)
            for action in legal:
                kind = bura_codec.kind_of(action)
                cards = tuple(sorted(getattr(action, "cards", ())))
                assert bura_codec.action_of(seat, kind, cards) == sorted_cards(action)
            for offered in bura_actions(T, deal, seat):
                cards = parse_cards(offered["cards"] or [])
                read = bura_codec.action_of(seat, offered["kind"], cards)
                assert read in map(sorted_cards, legal), offered
        seat = rng.choice(deal.actors())
        series.apply(rng.choice(deal.legal_actions(seat)))


def test_no_bura_letter_stands_for_two_kinds_of_action() -> None:
    cards = (DECK[0],)
    one_of_each: list[Action] = [
        Lead(0, cards),
        Lead(0, cards, stop=True),
        Answer(0, cards, beat=True),
        Answer(0, cards, beat=False),
        Declare(0, True),
        Declare(0, False),
        Show(0, "bura"),
        Show(0, "moscow"),
        Dave(0),
        DaveReply(0, True),
        DaveReply(0, False),
    ]
    letters = [bura_codec.kind_of(a) for a in one_of_each]
    assert len(set(letters)) == len(one_of_each), letters
    for action, letter in zip(one_of_each, letters, strict=True):
        cards_of = getattr(action, "cards", ())
        assert bura_codec.action_of(0, letter, cards_of) == action


def test_no_burkozel_letter_stands_for_two_kinds_of_move() -> None:
    cards = (DECK[0],)
    one_of_each = [
        burkozel.Action(0, cards),
        burkozel.Action(0, cards, True),
        burkozel.Action(0, cards, False),
        burkozel.Action(0, cards, stop=True),
        burkozel.Action(0, (), show="bura"),
    ]
    letters = [burkozel_codec.kind_of(m) for m in one_of_each]
    assert len(set(letters)) == len(one_of_each), letters
    for move, letter in zip(one_of_each, letters, strict=True):
        assert burkozel_codec.move_of(0, letter, move.cards, move.show) == move
