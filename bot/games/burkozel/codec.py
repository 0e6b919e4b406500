"""The letter a button or the Mini App carries for each kind of Burkozel move (Telegram's
callback data holds 64 bytes), both ways, in one table. Only this module knows them."""

from __future__ import annotations

from bot.games.base import ForgedAction
from engine import Card
from engine.burkozel import Action

LEAD, BEAT, DISCARD, STOP, SHOW = "l", "b", "d", "o", "s"

# A card play's ``beat`` by its letter (R6 a lead, R7 a beat or a discard) and C3/C4's
# lead out of turn. A show (C1/C2) carries no cards: which combination it is, the deal
# knows (it is the only one its hand can show).
_PLAYS: dict[str, tuple[bool | None, bool]] = {
    LEAD: (None, False),
    BEAT: (True, False),
    DISCARD: (False, False),
    STOP: (None, True),
}

MAIN_BUTTON_ORDER = (LEAD, BEAT, STOP, DISCARD)
"""Of the plays of the cards a person selected in the Mini App, Telegram's main button
takes the first kind here (a beat rather than a discard of the same cards)."""


def kind_of(move: Action) -> str:
    if move.show is not None:
        return SHOW
    if move.stop:
        return STOP
    return {None: LEAD, True: BEAT, False: DISCARD}[move.beat]


def move_of(seat: int, kind: str, cards: tuple[Card, ...], show: str | None = None) -> Action:
    """A button's move; ``show``: the combination the seat's hand can show now (C1/C2),
    if any. ``ForgedAction`` if no honest keyboard draws it."""
    if kind == SHOW:
        if cards or show is None:
            raise ForgedAction(kind)
        return Action(seat, (), show=show)
    if kind not in _PLAYS:
        raise ForgedAction(kind)
    beat, stop = _PLAYS[kind]
    return Action(seat, cards, beat, stop=stop)


def main_rank(kind: str) -> int:
    """The kind's place in ``MAIN_BUTTON_ORDER`` (after all of them if not there)."""
    return MAIN_BUTTON_ORDER.index(kind) if kind in MAIN_BUTTON_ORDER else len(MAIN_BUTTON_ORDER)
