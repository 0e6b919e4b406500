"""Duel, a third game that exists only in the test tree (a new game is its own files).

Two players, a hand each from the top of the deck (T1: 3 or 5 cards). The non-dealer
leads a card, the other answers with one; the higher card of the led suit takes the
trick (no trumps), and its taker leads next. When the hands are played out, whoever took
fewer tricks gets a penalty point; the series ends when someone has T2 (2 or 3) of them.

It implements the engine's game interface (``engine.game``) in one small module, as a
game package would in ``engine/<game>/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Card, GameOverError, IllegalMoveError, RecordError, RuleSetError
from engine.game import DealState, SeriesState
from engine.records import replay_deal

FORMAT = "duel-record/1"
SWITCHES: dict[str, tuple[object, ...]] = {"hand": (3, 5), "target": (2, 3)}
RULE_IDS = {"hand": "T1", "target": "T2"}
PRESETS: dict[str, dict[str, object]] = {"quick_duel": {}, "long_duel": {"hand": 5, "target": 3}}


@dataclass(frozen=True, slots=True)
class DuelRules:
    hand: int = 3
    target: int = 2

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DuelRules:
        for name, value in data.items():
            if name not in SWITCHES:
                raise RuleSetError(f"unknown switch {name!r}")
            if value not in SWITCHES[name] or type(value) is not int:
                raise RuleSetError(f"{name} cannot be {value!r}")
        return cls(**data)

    def to_dict(self) -> dict[str, object]:
        return {
            n: getattr(self, n) for n, values in SWITCHES.items() if getattr(self, n) != values[0]
        }

    def check_players(self, players: int) -> None:
        if players != 2:
            raise RuleSetError("a duel is for two players")


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "card": self.card.code()}

    @classmethod
    def from_json(cls, data: object) -> Play:
        if not isinstance(data, Mapping) or set(data) != {"seat", "card"}:
            raise RecordError("a duel move is {seat, card}")
        seat, card = data["seat"], data["card"]
        if type(seat) is not int or not isinstance(card, str):
            raise RecordError("a duel move is {seat: int, card: code}")
        return cls(seat, Card.parse(card))


@dataclass(frozen=True, slots=True)
class DuelView:
    """What one seat sees: its own hand, the other's card count, the table, the tricks."""

    seat: int
    hand: tuple[Card, ...]
    other_cards: int
    table: tuple[Play, ...]
    last_trick: tuple[Play, ...]
    tricks: tuple[int, int]
    turn: int | None


@dataclass(frozen=True, slots=True)
class DuelDealResult:
    points: tuple[int, ...]  # tricks taken
    penalties: tuple[int, ...]


class DuelDeal:
    players = 2

    def __init__(self, deck: Sequence[Card], dealer: int, rules: DuelRules) -> None:
        n = rules.hand
        if len(deck) < 2 * n:
            raise IllegalMoveError("the deck is too short for a duel")
        self.deck, self.dealer, self.rules = tuple(deck), dealer, rules
        self.hands = [list(deck[:n]), list(deck[n : 2 * n])]
        self.table: list[Play] = []
        self.last_trick: tuple[Play, ...] = ()
        self.tricks = [0, 0]
        self.turn: int | None = 1 - dealer
        self.history: list[Play] = []

    @property
    def finished(self) -> bool:
        return self.turn is None

    @property
    def trick_number(self) -> int:
        return sum(self.tricks)

    def actors(self) -> tuple[int, ...]:
        return () if self.turn is None else (self.turn,)

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self.hands[seat])

    def legal_actions(self, seat: int) -> list[Play]:
        if seat != self.turn:
            return []
        hand = self.hands[seat]
        if self.table:  # follow the led suit when able
            led = self.table[0].card.suit
            same = [c for c in hand if c.suit is led]
            hand = same or hand
        return [Play(seat, c) for c in hand]

    def apply(self, action: Play) -> None:
        if self.turn is None:
            raise GameOverError("the deal is over")
        if action.seat != self.turn:
            raise IllegalMoveError(f"it is seat {self.turn}'s turn")
        if action not in self.legal_actions(action.seat):
            raise IllegalMoveError(f"seat {action.seat} cannot play {action.card.code()} now")
        self.hands[action.seat].remove(action.card)
        self.table.append(action)
        self.history.append(action)
        if len(self.table) == 1:
            self.turn = 1 - action.seat
            return
        lead, answer = self.table
        higher = answer.card.suit is lead.card.suit and answer.card.rank > lead.card.rank
        taker = answer.seat if higher else lead.seat
        self.tricks[taker] += 1
        self.last_trick, self.table = tuple(self.table), []
        self.turn = taker if self.hands[taker] else None

    def view(self, seat: int) -> DuelView:
        return DuelView(
            seat,
            tuple(sorted(self.hands[seat])),
            len(self.hands[1 - seat]),
            tuple(self.table),
            self.last_trick,
            (self.tricks[0], self.tricks[1]),
            self.turn,
        )

    def result(self) -> DuelDealResult:
        if not self.finished:
            raise GameOverError("the deal is being played")
        a, b = self.tricks
        penalties = (int(a < b), int(b < a))
        return DuelDealResult((a, b), penalties)


@dataclass(frozen=True, slots=True)
class DuelSeriesResult:
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]


@dataclass
class DuelSeries:
    players: int
    rules: DuelRules
    first_dealer: int = 0
    deals: list[DuelDeal] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rules.check_players(self.players)

    @property
    def results(self) -> list[DuelDealResult]:
        return [d.result() for d in self.deals if d.finished]

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r.penalties[s] for r in self.results) for s in range(2))

    @property
    def finished(self) -> bool:
        return max(self.totals) >= self.rules.target

    @property
    def current(self) -> DuelDeal | None:
        return self.deals[-1] if self.deals and not self.deals[-1].finished else None

    def current_deal(self) -> DuelDeal | None:
        return self.current

    def start_deal(self, deck: Sequence[Card], dealer: int | None = None) -> DuelDeal:
        if self.finished:
            raise GameOverError("the series is over")
        if self.current is not None:
            raise IllegalMoveError("the deal is still being played")
        rightful = (self.first_dealer + len(self.deals)) % 2
        if dealer is not None and dealer != rightful:
            raise IllegalMoveError(f"seat {rightful} deals now")
        deal = DuelDeal(deck, rightful, self.rules)
        self.deals.append(deal)
        return deal

    def apply(self, action: Play) -> None:
        deal = self.current
        if deal is None:
            raise GameOverError("no deal is being played")
        deal.apply(action)

    def result(self) -> DuelSeriesResult:
        totals = self.totals
        winners = tuple(s for s in range(2) if totals[s] == min(totals)) if self.finished else ()
        return DuelSeriesResult(totals, self.finished, winners)


def to_record(series: DuelSeries) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "players": series.players,
        "rules": series.rules.to_dict(),
        "deals": [
            {
                "dealer": d.dealer,
                "deck": [c.code() for c in d.deck],
                "moves": [m.to_json() for m in d.history],
            }
            for d in series.deals
        ],
    }


def from_record(record: object) -> DuelSeries:
    if not isinstance(record, Mapping) or record.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}")
    deals = record.get("deals")
    if not isinstance(deals, list):
        raise RecordError("deals must be a list")
    rules = record.get("rules", {})
    first = deals[0].get("dealer", 0) if deals and isinstance(deals[0], Mapping) else 0
    try:
        series = DuelSeries(record.get("players"), DuelRules.from_dict(rules), first)  # type: ignore[arg-type]
    except RuleSetError as exc:
        raise RecordError(str(exc)) from None
    for d, data in enumerate(deals):
        replay_deal(series, d, data, Play.from_json)
    return series


class DuelReference:
    """Duel's rules as its docstring reads them, which ``DuelDeal`` is held equal to."""

    def actors(self, deal: DealState[Play, Any, Any]) -> tuple[int, ...]:
        turn = _duel(deal).turn
        return () if turn is None else (turn,)

    def legal_actions(self, deal: DealState[Play, Any, Any], seat: int) -> list[Play]:
        duel = _duel(deal)
        if seat != duel.turn:
            return []
        hand = duel.hands[seat]
        followed = [c for c in hand if duel.table and c.suit is duel.table[0].card.suit]
        return [Play(seat, c) for c in followed or hand]

    def position(self, deal: DealState[Play, Any, Any]) -> object:
        duel = _duel(deal)
        return (tuple(map(tuple, duel.hands)), tuple(duel.table), tuple(duel.tricks), duel.turn)

    def after(self, deal: DealState[Play, Any, Any], action: Play) -> object:
        duel = _duel(deal)
        hands = [[c for c in h if c is not action.card] for h in duel.hands]
        table, tricks, turn = [*duel.table, action], list(duel.tricks), 1 - action.seat
        if len(table) == 2:
            lead, answer = table
            higher = answer.card.suit is lead.card.suit and answer.card.rank > lead.card.rank
            turn = answer.seat if higher else lead.seat
            tricks[turn] += 1
            table = []
            if not hands[turn]:
                return (tuple(map(tuple, hands)), (), tuple(tricks), None)
        return (tuple(map(tuple, hands)), tuple(table), tuple(tricks), turn)


def _duel(deal: DealState[Play, Any, Any]) -> DuelDeal:
    assert isinstance(deal, DuelDeal)
    return deal


class DuelGame:
    name = "duel"
    record_format = FORMAT
    min_players = 2
    max_players = 2
    aliases: tuple[str, ...] = ("дуэль",)
    switches: Mapping[str, tuple[object, ...]] = SWITCHES
    rule_ids: Mapping[str, str] = RULE_IDS
    presets: Mapping[str, Mapping[str, object]] = PRESETS
    reference = DuelReference()

    def rules_from_dict(self, data: Mapping[str, Any]) -> DuelRules:
        return DuelRules.from_dict(data)

    def new_series(
        self, players: int, rules: Mapping[str, Any] | None = None, first_dealer: int = 0
    ) -> DuelSeries:
        return DuelSeries(players, DuelRules.from_dict(rules or {}), first_dealer)

    def action_from_json(self, data: object) -> Play:
        return Play.from_json(data)

    def action_to_json(self, action: Play) -> dict[str, Any]:
        return action.to_json()

    def from_record(self, record: object) -> DuelSeries:
        return from_record(record)

    def to_record(self, series: SeriesState[Play]) -> dict[str, Any]:
        assert isinstance(series, DuelSeries)
        return to_record(series)

    def replay_json(self, record: object) -> dict[str, Any]:
        series = from_record(record)
        return {
            "format": FORMAT,
            "deals": [
                {"points": list(r.points), "penalties": list(r.penalties)} for r in series.results
            ],
            "totals": list(series.totals),
            "finished": series.finished,
            "winners": list(series.result().winners),
        }


DUEL = DuelGame()
