"""Bura records (``bura-record/1``): written from a series and replayed.

``{"format": "bura-record/1", "players": n, "rules": {switch: value}, "deals": [...]}``;
each deal is ``{"dealer", "deck", "moves"}``: ``deck`` the 36 codes top first (dealt
as D1), ``dealer`` required on the first deal only (later ones follow D1/D9; a
contradicting value is an error), ``moves`` as in :mod:`engine.bura.actions`. A deal
void from the deal has ``"moves": []``; a deal whose moves end right after its last
trick passed without a declaration (complete and void, D5 "Precisely").

The replay report per deal: ``outcome`` (declared, false_declaration, bura, moscow,
fold, void or incomplete), ``winner``, trick ``points`` per seat (closed cards
included), ``stakes``, ``penalties`` (the deal's addition to ``totals``; ``None``
while incomplete) and ``complete``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.bura.actions import Declare, action_from_json
from engine.bura.deal import BuraDeal
from engine.bura.rules import BuraRules
from engine.bura.series import BuraSeries
from engine.errors import EngineError, RecordError
from engine.records import replay_deal

FORMAT = "bura-record/1"


def _moves_json(deal: BuraDeal) -> list[dict[str, Any]]:
    """The deal's moves; a "no declaration" is implied by the next move (D5), so it is
    written only as the last move of a deal still being played."""
    moves = []
    last = len(deal.history) - 1
    for i, action in enumerate(deal.history):
        passed = isinstance(action, Declare) and not action.declare
        if passed and (i < last or deal.finished):
            continue
        moves.append(action.to_json())
    return moves


def to_record(series: BuraSeries) -> dict[str, Any]:
    deals: list[dict[str, Any]] = []
    for i, deal in enumerate(series.deals):
        entry: dict[str, Any] = {}
        if i == 0:
            entry["dealer"] = deal.dealer
        entry["deck"] = [c.code() for c in deal.deck]
        entry["moves"] = _moves_json(deal)
        deals.append(entry)
    return {
        "format": FORMAT,
        "players": series.players,
        "rules": series.rules.to_dict(),
        "deals": deals,
    }


def from_record(record: object) -> BuraSeries:
    """Rebuild a series by replaying a record; raises :class:`RecordError` saying where."""
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}")
    extra = sorted(set(record) - {"format", "players", "rules", "deals"})
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
    try:
        rules = BuraRules.from_dict(record.get("rules", {}))
        series = BuraSeries(players, rules, first_dealer)
    except EngineError as exc:
        raise RecordError(str(exc)) from None
    for d, deal_data in enumerate(deals):
        _replay_deal(series, d, deal_data)
    return series


_DEAL_KEYS = frozenset({"dealer", "deck", "moves"})


def _replay_deal(series: BuraSeries, d: int, data: object) -> None:
    replay_deal(series, d, data, action_from_json, _DEAL_KEYS)
    series.close_record_deal()


@dataclass(frozen=True, slots=True)
class BuraDealReport:
    outcome: str
    winner: int | None
    points: tuple[int, ...]
    stakes: int
    penalties: tuple[int, ...] | None
    complete: bool


@dataclass(frozen=True, slots=True)
class BuraReplayReport:
    deals: tuple[BuraDealReport, ...]
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "deals": [
                {
                    "outcome": r.outcome,
                    "winner": r.winner,
                    "points": list(r.points),
                    "stakes": r.stakes,
                    "penalties": None if r.penalties is None else list(r.penalties),
                    "complete": r.complete,
                }
                for r in self.deals
            ],
            "totals": list(self.totals),
            "finished": self.finished,
            "winners": list(self.winners),
        }


def report(series: BuraSeries) -> BuraReplayReport:
    deals = []
    for i, deal in enumerate(series.deals):
        if deal.finished:
            res = deal.result()
            pens = series.penalties[i]
            deals.append(
                BuraDealReport(res.outcome, res.winner, res.points, res.stakes, pens, True)
            )
        else:
            deals.append(
                BuraDealReport("incomplete", None, deal.points(), deal.stakes, None, False)
            )
    result = series.result()
    return BuraReplayReport(tuple(deals), result.totals, result.finished, result.winners)


def replay(record: object) -> BuraReplayReport:
    return report(from_record(record))
