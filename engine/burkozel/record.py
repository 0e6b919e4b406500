"""Game records: the engine's JSON file format, written and replayed (``burkozel-record/1``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.burkozel.deal import Action
from engine.burkozel.rules import Rules
from engine.burkozel.series import Series
from engine.errors import EngineError, RecordError
from engine.records import read_envelope, replay_deal

FORMAT = "burkozel-record/1"


def to_record(series: Series) -> dict[str, Any]:
    """The record of everything played so far, deck orders and moves included."""
    deals = []
    for deal in series.deals:
        deals.append(
            {
                "dealer": deal.dealer,
                "deck": [c.code() for c in deal.deck],
                "moves": [m.to_json() for m in deal.history],
            }
        )
    return {
        "format": FORMAT,
        "players": series.players,
        "rules": series.rules.to_dict(),
        "deals": deals,
    }


def from_record(record: object) -> Series:
    """Rebuild a series by replaying a record; raises :class:`RecordError` saying where."""
    envelope = read_envelope(record, FORMAT)
    try:
        rules = Rules.from_dict(envelope.rules)
        series = Series(envelope.players, rules, envelope.first_dealer)
    except EngineError as exc:
        raise RecordError(str(exc)) from None
    for d, deal_data in enumerate(envelope.deals):
        replay_deal(series, d, deal_data, Action.from_json)
    return series


@dataclass(frozen=True, slots=True)
class DealReport:
    """One deal of a replay. ``outcome`` (B6 on) and ``eliminated`` (B3) are ``None``
    where those switches are off, and then left out of the JSON. ``shown_by``, the seat
    whose бура or Москва won the deal (C1/C2), is there only in a deal a show ended."""

    points: tuple[int, ...]
    penalties: tuple[int, ...] | None
    last_trick: int | None
    complete: bool
    outcome: str | None = None
    eliminated: tuple[int, ...] | None = None
    shown_by: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "points": list(self.points),
            "penalties": None if self.penalties is None else list(self.penalties),
            "last_trick": self.last_trick,
            "complete": self.complete,
        }
        if self.outcome is not None:
            data["outcome"] = self.outcome
        if self.eliminated is not None:
            data["eliminated"] = list(self.eliminated)
        if self.shown_by is not None:
            data["shown_by"] = self.shown_by
        return data


@dataclass(frozen=True, slots=True)
class ReplayReport:
    deals: tuple[DealReport, ...]
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "deals": [r.to_json() for r in self.deals],
            "totals": list(self.totals),
            "finished": self.finished,
            "winners": list(self.winners),
        }


def report(series: Series) -> ReplayReport:
    deals = []
    combinations = series.rules.combinations == "on"
    elimination = series.rules.series_end == "elimination"
    for d, deal in enumerate(series.deals):
        if deal.finished:
            res = deal.result()
            deals.append(
                DealReport(
                    res.points,
                    res.penalties,
                    res.last_trick,
                    True,
                    res.outcome if combinations else None,
                    series.eliminated_after(d) if elimination else None,
                    deal.shown_by,
                )
            )
        else:
            last = deal.last_trick.winner if deal.last_trick else None
            deals.append(
                DealReport(
                    tuple(deal.points),
                    None,
                    last,
                    False,
                    "incomplete" if combinations else None,
                    () if elimination else None,
                )
            )
    result = series.result()
    return ReplayReport(tuple(deals), result.totals, result.finished, result.winners)


def replay(record: object) -> ReplayReport:
    return report(from_record(record))
