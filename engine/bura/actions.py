"""Bura's actions as small immutable values with a JSON form (``bura-record/1`` moves).

A lead ``{"seat", "cards"}`` (``"stop": true`` when out of turn, D7/D8); an answer
``{"seat", "cards", "beat"}`` (R7); ``{"seat", "declare": true}`` (D5) and its
opposite ``{"seat", "declare": false}`` (no declaration: the draw follows, which a
record may leave implicit); ``{"seat", "show": "bura" | "moscow"}`` (D6, D8);
``{"seat", "dave": true}`` and the reply ``{"seat", "dave": "accept" | "fold"}`` (D11).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import Card, card_codes, parse_cards
from engine.errors import IllegalMoveError

SHOW_KINDS = ("bura", "moscow")


@dataclass(frozen=True, slots=True)
class Lead:
    seat: int
    cards: tuple[Card, ...]
    stop: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "cards": card_codes(self.cards)}
        if self.stop:
            data["stop"] = True
        return data


@dataclass(frozen=True, slots=True)
class Answer:
    seat: int
    cards: tuple[Card, ...]
    beat: bool

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "cards": card_codes(self.cards), "beat": self.beat}


@dataclass(frozen=True, slots=True)
class Declare:
    """«Вскрываюсь!» (D5); ``declare=False`` is the taker going on without declaring."""

    seat: int
    declare: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "declare": self.declare}


@dataclass(frozen=True, slots=True)
class Show:
    seat: int
    kind: str  # "bura" (D6) or "moscow" (D8)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "show": self.kind}


@dataclass(frozen=True, slots=True)
class Dave:
    seat: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "dave": True}


@dataclass(frozen=True, slots=True)
class DaveReply:
    seat: int
    accept: bool

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "dave": "accept" if self.accept else "fold"}


Action = Lead | Answer | Declare | Show | Dave | DaveReply


def action_from_json(data: object) -> Action:
    """Parse one record move; raise :class:`IllegalMoveError` saying what is wrong."""
    if not isinstance(data, dict):
        raise IllegalMoveError("a move must be an object with a seat")
    seat = data.get("seat")
    if type(seat) is not int:
        raise IllegalMoveError("move seat must be a whole number")
    keys = set(data) - {"seat"}
    if "cards" in data:
        extra = keys - {"cards", "beat", "stop"}
        if extra:
            raise IllegalMoveError(f"unknown move key {sorted(extra)[0]!r}")
        cards = data["cards"]
        if not isinstance(cards, list) or not cards:
            raise IllegalMoveError("move cards must be a non-empty list of card codes")
        parsed = parse_cards(cards)
        if "beat" in data:
            if type(data["beat"]) is not bool:
                raise IllegalMoveError("move beat must be true or false")
            if "stop" in data:
                raise IllegalMoveError("an answer cannot be a «Стоп!» lead")
            return Answer(seat, parsed, data["beat"])
        stop = data.get("stop", False)
        if type(stop) is not bool:
            raise IllegalMoveError("move stop must be true or false")
        return Lead(seat, parsed, stop)
    if len(keys) != 1:
        raise IllegalMoveError("a move needs cards, declare, show or dave")
    (key,) = keys
    value = data[key]
    if key == "declare":
        if type(value) is not bool:
            raise IllegalMoveError("declare must be true or false")
        return Declare(seat, value)
    if key == "show":
        if value not in SHOW_KINDS:
            raise IllegalMoveError('show must be "bura" or "moscow"')
        return Show(seat, value)
    if key == "dave":
        if value is True:
            return Dave(seat)
        if value in ("accept", "fold"):
            return DaveReply(seat, value == "accept")
        raise IllegalMoveError('dave must be true, "accept" or "fold"')
    raise IllegalMoveError(f"unknown move key {key!r}")


def describe(action: Action) -> str:
    """A short English text of ``action`` (for logs and the terminal)."""
    who = f"seat {action.seat}"
    if isinstance(action, Lead):
        return f"{who} {'«Стоп!» leads' if action.stop else 'leads'} {_codes(action.cards)}"
    if isinstance(action, Answer):
        return f"{who} {'beats with' if action.beat else 'discards'} {_codes(action.cards)}"
    if isinstance(action, Declare):
        return f"{who} {'declares «Вскрываюсь!»' if action.declare else 'does not declare'}"
    if isinstance(action, Show):
        return f"{who} shows {'бура' if action.kind == 'bura' else 'Москва'}"
    if isinstance(action, Dave):
        return f"{who} says «даве»"
    return f"{who} {'accepts' if action.accept else 'folds to'} «даве»"


def _codes(cards: tuple[Card, ...]) -> str:
    return " ".join(card_codes(cards))


@dataclass(frozen=True, slots=True)
class TablePlay:
    """Cards one seat put on the table; ``closed`` marks a face-down discard (D3)."""

    seat: int
    cards: tuple[Card, ...]
    beat: bool | None
    stop: bool = False
    closed: bool = False


@dataclass(frozen=True, slots=True)
class PileCard:
    """A card in a trick pile: who played it and whether it lies face down (D3)."""

    card: Card
    by: int
    closed: bool
    trick: int = 0  # the trick it came with (0 = the first of the deal)


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended (D5–D11). ``winner`` is ``None`` for a void deal and a false
    declaration; ``by`` is the seat whose action ended it (declarer, shower, даве)."""

    outcome: str
    winner: int | None
    by: int | None
    points: tuple[int, ...]
    stakes: int
    run_out: bool = False  # a void deal played to the end (D9): the next deal doubles

    @property
    def counted(self) -> bool:
        return self.outcome != "void"
