"""The record envelope both games share: replaying one recorded deal of a series from its
deck and moves, every refusal a RecordError naming the deal and move."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from engine.cards import Card, parse_cards
from engine.errors import EngineError, RecordError


class RecordedSeries(Protocol):
    """What replaying a record's deals needs of a game's series (both games have it)."""

    @property
    def finished(self) -> bool: ...

    @property
    def current(self) -> object | None: ...

    def start_deal(self, deck: Sequence[Card], dealer: int | None = None, /) -> object: ...

    def apply(self, action: Any, /) -> object: ...


class Envelope(NamedTuple):
    """A record's outer fields, checked: what a game needs to start replaying it."""

    players: int
    rules: Any  # the rule-set data as recorded: the game's from_dict checks it
    deals: list[object]
    first_dealer: int  # the first deal's dealer (0 for a record with no deal)


def read_envelope(
    record: object, format_name: str, known_keys: frozenset[str] | None = None
) -> Envelope:
    """Check a record's envelope (format, players, deals and the first deal's dealer);
    every refusal is a RecordError. ``known_keys``: refuse any other top-level key."""
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    if record.get("format") != format_name:
        raise RecordError(f"format must be {format_name!r}")
    if known_keys is not None:
        extra = sorted(set(record) - known_keys)
        if extra:
            raise RecordError(f"unknown record key {extra[0]!r}")
    players = record.get("players")
    if type(players) is not int:
        raise RecordError("players must be a whole number")
    deals = record.get("deals")
    if not isinstance(deals, list):
        raise RecordError("deals must be a list")
    first = deals[0] if deals else None
    first_dealer = first.get("dealer") if isinstance(first, Mapping) else 0
    if isinstance(first, Mapping) and first_dealer is None:
        raise RecordError("the first deal needs a dealer", deal=0)
    if type(first_dealer) is not int:
        raise RecordError("dealer must be a whole number", deal=0)
    return Envelope(players, record.get("rules", {}), deals, first_dealer)


def replay_deal(
    series: RecordedSeries,
    d: int,
    data: object,
    parse_action: Callable[[object], object],
    known_keys: frozenset[str] | None = None,
) -> None:
    """Deal deal ``d`` of a record from its deck and play its moves; every refusal is a
    RecordError naming the deal (and move). ``known_keys``: refuse any other deal key."""
    if not isinstance(data, Mapping):
        raise RecordError("a deal must be an object", deal=d)
    if known_keys is not None:
        extra = sorted(set(data) - known_keys)
        if extra:
            raise RecordError(f"unknown deal key {extra[0]!r}", deal=d)
    if series.finished:
        raise RecordError("the series was already over before this deal", deal=d)
    if series.current is not None:
        raise RecordError("the previous deal is not finished", deal=d)
    dealer, deck, moves = data.get("dealer"), data.get("deck"), data.get("moves")
    if dealer is not None and type(dealer) is not int:
        raise RecordError("dealer must be a whole number", deal=d)
    if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
        raise RecordError("deck must be a list of card codes", deal=d)
    if not isinstance(moves, list):
        raise RecordError("moves must be a list", deal=d)
    try:
        series.start_deal(parse_cards(deck), dealer)
    except EngineError as exc:
        raise RecordError(str(exc), deal=d) from None
    for m, move_data in enumerate(moves):
        try:
            action = parse_action(move_data)
            if series.current is None:
                raise RecordError("the deal is already over", deal=d, move=m)
            series.apply(action)
        except RecordError:
            raise
        except EngineError as exc:
            raise RecordError(str(exc), deal=d, move=m) from None
