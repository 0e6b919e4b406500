"""The values a deal is played and seen with: moves, table plays, tricks, results, views."""

from __future__ import annotations

from dataclasses import dataclass

from engine.burkozel.combinations import SHOWS
from engine.burkozel.rules import BASE_RULES, Rules
from engine.burkozel.scoring import PLAYED
from engine.cards import Card, Suit, card_codes, parse_cards
from engine.errors import IllegalMoveError


@dataclass(frozen=True, slots=True)
class Action:
    """What one seat does: cards it puts on the table, or a combination it shows.

    ``beat`` is ``None`` for a lead; an answer declares ``True`` (a beat) or
    ``False`` (a discard), R7. ``show`` (C1 ``"bura"``, C2 ``"moscow"``) shows a
    combination instead of playing cards (``cards`` is empty). ``stop`` marks a lead
    out of turn (C3/C4).
    """

    seat: int
    cards: tuple[Card, ...]
    beat: bool | None = None
    show: str | None = None
    stop: bool = False

    @property
    def is_lead(self) -> bool:
        return self.beat is None and self.show is None

    def to_json(self) -> dict[str, object]:
        if self.show is not None:
            return {"seat": self.seat, "show": self.show}
        data: dict[str, object] = {"seat": self.seat, "cards": card_codes(self.cards)}
        if self.beat is not None:
            data["beat"] = self.beat
        if self.stop:
            data["stop"] = True
        return data

    @classmethod
    def from_json(cls, data: object) -> Action:
        if not isinstance(data, dict):
            raise IllegalMoveError("a move must be an object with seat and cards")
        extra = set(data) - {"seat", "cards", "beat", "show", "stop"}
        if extra:
            raise IllegalMoveError(f"unknown move key {sorted(extra)[0]!r}")
        seat, cards, beat = data.get("seat"), data.get("cards"), data.get("beat")
        if type(seat) is not int:
            raise IllegalMoveError("move seat must be a whole number")
        if "show" in data:
            show = data["show"]
            if show not in SHOWS or set(data) != {"seat", "show"}:
                raise IllegalMoveError('a show is {"seat", "show": "bura" | "moscow"} alone')
            return cls(seat, (), show=str(show))
        if not isinstance(cards, list) or not cards:
            raise IllegalMoveError("move cards must be a non-empty list of card codes")
        if "beat" in data and type(beat) is not bool:
            raise IllegalMoveError("move beat must be true or false")
        stop = data.get("stop", False)
        if type(stop) is not bool:
            raise IllegalMoveError("move stop must be true or false")
        if stop and beat is not None:
            raise IllegalMoveError("an out-of-turn lead is neither a beat nor a discard")
        return cls(seat, parse_cards(cards), beat, stop=stop)

    def __str__(self) -> str:
        if self.show is not None:
            return f"seat {self.seat} shows {self.show}"
        kind = "lead" if self.beat is None else ("beat" if self.beat else "discard")
        if self.stop:
            kind = "lead out of turn"
        return f"seat {self.seat} {kind} {' '.join(card_codes(self.cards))}"


@dataclass(frozen=True, slots=True)
class Play:
    """A move as it lies on the table; ``declared_beat`` as the move declared it.

    In a view, a discard lying face down (B1 closed) that the viewer may not see has
    no ``cards``; ``face_down`` says how many cards lie there.
    """

    seat: int
    cards: tuple[Card, ...]
    declared_beat: bool | None
    face_down: int = 0


@dataclass(frozen=True, slots=True)
class TrickResult:
    winner: int
    plays: tuple[Play, ...]
    points: int


@dataclass(frozen=True, slots=True)
class DealResult:
    """A finished deal: the deal scores (R12), penalties (R13) and last trick taker (R4).

    Under B4 ``penalties`` are the credits; ``outcome`` is ``"played"``, or the
    combination that ended the deal (C1 ``"bura"``, C2 ``"moscow"``); ``tied`` says the
    top score was shared (B4: the next deal's credits are doubled).
    """

    points: tuple[int, ...]
    penalties: tuple[int, ...]
    last_trick: int
    outcome: str = PLAYED
    tied: bool = False


@dataclass(frozen=True, slots=True)
class View:
    """Everything one seat may see (R8: the table is open); never another seat's hand."""

    seat: int
    players: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    trump: Suit
    trump_card: Card
    trump_card_in_stock: bool
    trump_card_drawn_by: int | None
    stock_size: int
    dealer: int
    leader: int
    turn: int | None
    claimant: int | None
    table: tuple[Play, ...]
    seen_cards: tuple[Card, ...]
    points: tuple[int, ...] | None
    last_trick: TrickResult | None
    trick_number: int
    finished: bool
    rules: Rules = BASE_RULES
    seats_in: tuple[int, ...] = ()
    known_points: tuple[int, ...] = ()
    stakes: int = 1
    outcome: str | None = None
