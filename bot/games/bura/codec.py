"""The letter a button or the Mini App carries for each kind of Bura action (Telegram's
callback data holds 64 bytes), both ways, in one table. Only this module knows them."""

from __future__ import annotations

from collections.abc import Callable

from bot.games.base import ForgedAction
from engine import Card
from engine.bura.actions import Action, Answer, Dave, DaveReply, Declare, Lead, Show

# Each letter and the action it stands for; only leads and answers carry cards.
_MAKE: dict[str, Callable[[int, tuple[Card, ...]], Action]] = {
    "l": lambda seat, cards: Lead(seat, cards),
    "s": lambda seat, cards: Lead(seat, cards, stop=True),  # «Стоп!» (D7)
    "b": lambda seat, cards: Answer(seat, cards, beat=True),
    "d": lambda seat, cards: Answer(seat, cards, beat=False),
    "v": lambda seat, _: Declare(seat, True),  # D5
    "n": lambda seat, _: Declare(seat, False),  # the draw (D4) without declaring
    "B": lambda seat, _: Show(seat, "bura"),  # D6
    "M": lambda seat, _: Show(seat, "moscow"),  # D8
    "D": lambda seat, _: Dave(seat),  # D11
    "a": lambda seat, _: DaveReply(seat, True),
    "f": lambda seat, _: DaveReply(seat, False),
}

MAIN_BUTTON_ORDER = ("l", "b", "s", "d")
"""Of the plays of the cards a person selected in the Mini App, Telegram's main button
takes the first kind here (a beat rather than a discard of the same cards)."""


def kind_of(action: Action) -> str:
    match action:
        case Lead(stop=stop):
            return "s" if stop else "l"
        case Answer(beat=beat):
            return "b" if beat else "d"
        case Declare(declare=declare):
            return "v" if declare else "n"
        case Show(kind=kind):
            return "B" if kind == "bura" else "M"
        case Dave():
            return "D"
        case DaveReply(accept=accept):
            return "a" if accept else "f"
    raise TypeError(action)


def action_of(seat: int, kind: str, cards: tuple[Card, ...]) -> Action:
    """A button's action; ``ForgedAction`` if no honest keyboard draws it (an unknown
    letter, or cards on an action that plays none)."""
    make = _MAKE.get(kind)
    if make is None:
        raise ForgedAction(kind)
    action = make(seat, cards)
    if cards and not isinstance(action, Lead | Answer):
        raise ForgedAction(kind)
    return action


def main_rank(kind: str) -> int:
    """The kind's place in ``MAIN_BUTTON_ORDER`` (after all of them if not there)."""
    return MAIN_BUTTON_ORDER.index(kind) if kind in MAIN_BUTTON_ORDER else len(MAIN_BUTTON_ORDER)
