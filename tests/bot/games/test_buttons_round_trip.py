"""Every play button a hand shows is taken by the service as a legal action, in both games
under random switches (a Burkozel «Show бура» button (C1) once named the combination where
the service reads card codes, and every human's show was refused as a forged button); and
every legal action of a seat that may act has its way through the hand's buttons (a
Bura taker with an empty hand was drawn no keyboard, so could neither declare nor
draw, D5)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.base import PICK
from bot.games.bura.game import BURA_BOT
from bot.games.burkozel.game import BURKOZEL_BOT
from bot.i18n import texts
from bot.service.table import cards_of
from bot.views.callbacks import PlayCb
from engine import bura, burkozel, parse_cards
from engine.bura.rules import SWITCHES
from engine.burkozel import Action, Series
from tests.support.burkozel import build_deck
from tests.support.game_record import game_of
from tests.support.strategies import lumpy_decks, table_rules

T = texts("en")


def legal(deal: Any, seat: int) -> list[Any]:
    """A seat's legal actions (Bura) or moves (Burkozel)."""
    if hasattr(deal, "legal_actions"):
        return list(deal.legal_actions(seat))
    return list(deal.legal_actions(seat))


def buttons(ui: Any, series: Any, seat: int, selection: list[Any] | None = None) -> list[str]:
    """The play buttons' callback data in ``seat``'s hand."""
    markup = ui.hand_keyboard(T, game_of(series.players), series, seat, selection or [])
    rows = markup["inline_keyboard"] if markup else []
    return [b["callback_data"] for row in rows for b in row if b["callback_data"][:2] == "p:"]


def check_every_button(ui: Any, series: Any) -> int:
    """Render each acting seat's hand with no selection and with each legal play's cards
    selected; every play button must parse, as the service parses it, to a legal action."""
    deal = series.deals[-1]
    taps = 0
    for seat in deal.actors():
        plays = [list(getattr(a, "cards", ())) for a in legal(deal, seat)]
        selections = [[], *(cards for cards in plays if cards)]
        for selection in selections:
            for data in buttons(ui, series, seat, selection):
                tap = PlayCb.unpack(data)
                action = ui.parse_action(deal, seat, tap.kind, cards_of(tap.cards))
                deal.copy().apply(action)  # legal: applies without a refusal
                taps += 1
    return taps


def same(action: Any) -> str:
    """An action as its record writes it, cards in any order."""
    data = dict(action.to_json())
    if "cards" in data:
        data["cards"] = sorted(data["cards"])
    return repr(sorted(data.items()))


def tapped(ui: Any, series: Any, seat: int, selection: list[Any], picking: bool) -> set[str]:
    """The actions the play buttons of ``seat``'s hand make, as drawn with ``selection``
    and ``picking``; no keyboard at all: nothing."""
    deal = series.deals[-1]
    game = game_of(series.players)
    markup = ui.hand_keyboard(T, game, series, seat, selection, picking)
    rows = markup["inline_keyboard"] if markup else []
    made = set()
    for data in (b["callback_data"] for row in rows for b in row):
        if data.startswith("p:"):
            tap = PlayCb.unpack(data)
            made.add(same(ui.parse_action(deal, seat, tap.kind, cards_of(tap.cards))))
    return made


def shown_cards(ui: Any, series: Any, seat: int, picking: bool) -> set[str]:
    """The card codes (and ``PICK``) of the hand's card buttons."""
    markup = ui.hand_keyboard(T, game_of(series.players), series, seat, [], picking)
    rows = markup["inline_keyboard"] if markup else []
    return {
        b["callback_data"].rsplit(":", 1)[1]
        for row in rows
        for b in row
        if b["callback_data"][:2] == "t:"
    }


def reachable(ui: Any, series: Any, seat: int, action: Any) -> bool:
    """Whether a person can make ``action`` with the hand's buttons as the service takes
    taps (``TableFlow.toggle``): a button of its own; or one tap on its card; or its
    cards tapped one by one (after ``PICK`` where the first tap would play a card) and
    a button confirming them."""
    deal = series.deals[-1]
    wanted = same(action)
    if wanted in tapped(ui, series, seat, [], False):
        return True
    cards = sorted(getattr(action, "cards", ()))
    if not cards:
        return False
    shown = shown_cards(ui, series, seat, False)
    if not all(c.code() in shown for c in cards):
        return False
    if len(cards) == 1 and ui.one_tap(deal, seat, cards[0]) == action:
        return True
    for picking in (False, True):
        if picking and PICK not in shown:
            continue
        chosen: list[Any] = []
        for card in cards:
            if not (chosen or picking) and ui.one_tap(deal, seat, card) is not None:
                break  # this tap would play the card at once
            if not ui.could_play_together(deal, seat, [*chosen, card]):
                break
            chosen.append(card)
        else:
            if wanted in tapped(ui, series, seat, chosen, picking):
                return True
    return False


def check_every_action_reachable(ui: Any, series: Any) -> None:
    deal = series.deals[-1]
    for seat in deal.actors():
        for action in legal(deal, seat):
            assert reachable(ui, series, seat, action), (
                f"seat {seat} cannot make {action.to_json()}; hand {deal.hand(seat)}"
            )


@settings(max_examples=40, deadline=None)
@given(table=table_rules(), deck=lumpy_decks(), seed=st.integers(0, 2**32))
def test_every_legal_burkozel_move_has_its_buttons(
    table: tuple[int, burkozel.Rules], deck: Any, seed: int
) -> None:
    players, rules = table
    rng = random.Random(seed)
    series = Series(players, rules)
    deal = series.start_deal(deck)
    while not deal.finished:
        check_every_action_reachable(BURKOZEL_BOT, series)
        seat = rng.choice(deal.actors())
        series.apply(rng.choice(deal.legal_actions(seat)))


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 4),
    switches=st.fixed_dictionaries({k: st.sampled_from(v) for k, v in SWITCHES.items()}),
    deck=lumpy_decks(),
    seed=st.integers(0, 2**32),
)
def test_every_legal_bura_action_has_its_buttons(
    players: int, switches: dict[str, Any], deck: Any, seed: int
) -> None:
    """D5: the taker of a trick led or answered with the whole hand, or
    of the deal's last trick, holds no card, and must still be offered «Вскрываюсь» and
    the draw."""
    rng = random.Random(seed)
    series = bura.Series(players, bura.Rules(**switches), first_dealer=0)
    deal = series.start_deal(deck)
    while not deal.finished:
        check_every_action_reachable(BURA_BOT, series)
        seat = rng.choice(deal.actors())
        series.apply(rng.choice(deal.legal_actions(seat)))


@settings(max_examples=40, deadline=None)
@given(table=table_rules(), deck=lumpy_decks(), seed=st.integers(0, 2**32))
def test_every_burkozel_button_is_a_legal_action(
    table: tuple[int, burkozel.Rules], deck: Any, seed: int
) -> None:
    players, rules = table
    rng = random.Random(seed)
    series = Series(players, rules)
    deal = series.start_deal(deck)
    taps = 0
    while not deal.finished:
        taps += check_every_button(BURKOZEL_BOT, series)
        seat = rng.choice(deal.actors())
        series.apply(rng.choice(deal.legal_actions(seat)))
    assert taps > 0


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(2, 4),
    switches=st.fixed_dictionaries({k: st.sampled_from(v) for k, v in SWITCHES.items()}),
    deck=lumpy_decks(),
    seed=st.integers(0, 2**32),
)
def test_every_bura_button_is_a_legal_action(
    players: int, switches: dict[str, Any], deck: Any, seed: int
) -> None:
    rng = random.Random(seed)
    series = bura.Series(players, bura.Rules(**switches), first_dealer=0)
    deal = series.start_deal(deck)
    while not deal.finished:
        check_every_button(BURA_BOT, series)
        seat = rng.choice(deal.actors())
        series.apply(rng.choice(deal.legal_actions(seat)))


def test_c1_the_show_button_is_taken() -> None:
    """C1, which random decks seldom deal to a seat at its moment: seat 0 holds four
    trumps at its lead after taking the first trick."""
    series = Series(2, burkozel.Rules(combinations="on"), first_dealer=0)
    hands = [["7H", "8H", "9H", "10H"], ["6S", "7C", "8C", "9C"]]
    series.start_deal(build_deck(2, 0, hands, "6H", ["JH", "10C"]))
    series.apply(Action(1, parse_cards(["6S"])))
    series.apply(Action(0, parse_cards(["7H"]), True))  # seat 0 takes, draws J♥ and leads
    kinds = {PlayCb.unpack(d).kind for d in buttons(BURKOZEL_BOT, series, 0)}
    assert "s" in kinds  # C1: «Show бура»
    assert check_every_button(BURKOZEL_BOT, series) > 0
