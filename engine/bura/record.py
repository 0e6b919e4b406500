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

from dataclasses import dataclass
from typing import Any

from engine.bura.actions import Declare, action_from_json
from engine.bura.deal import Deal
from engine.bura.rules import Rules
from engine.bura.series import Series
from engine.errors import EngineError, RecordError
from engine.records import read_envelope, replay_deal

FORMAT = "bura-record/1"


def _moves_json(deal: Deal) -> list[dict[str, Any]]:
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


def to_record(series: Series) -> dict[str, Any]:
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


def from_record(record: object) -> Series:
    """Rebuild a series by replaying a record; raises :class:`RecordError` saying where."""
    envelope = read_envelope(record, FORMAT, _RECORD_KEYS)
    try:
        rules = Rules.from_dict(envelope.rules)
        series = Series(envelope.players, rules, envelope.first_dealer)
    except EngineError as exc:
        raise RecordError(str(exc)) from None
    for d, deal_data in enumerate(envelope.deals):
        _replay_deal(series, d, deal_data)
    return series


_RECORD_KEYS = frozenset({"format", "players", "rules", "deals"})
_DEAL_KEYS = frozenset({"dealer", "deck", "moves"})


def _replay_deal(series: Series, d: int, data: object) -> None:
    replay_deal(series, d, data, action_from_json, _DEAL_KEYS)
    series.close_record_deal()


@dataclass(frozen=True, slots=True)
class DealReport:
    outcome: str
    winner: int | None
    points: tuple[int, ...]
    stakes: int
    penalties: tuple[int, ...] | None
    complete: bool


@dataclass(frozen=True, slots=True)
class ReplayReport:
    deals: tuple[DealReport, ...]
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


def report(series: Series) -> ReplayReport:
    deals = []
    for i, deal in enumerate(series.deals):
        if deal.finished:
            res = deal.result()
            pens = series.penalties[i]
            deals.append(DealReport(res.outcome, res.winner, res.points, res.stakes, pens, True))
        else:
            deals.append(DealReport("incomplete", None, deal.points(), deal.stakes, None, False))
    result = series.result()
    return ReplayReport(tuple(deals), result.totals, result.finished, result.winners)


def replay(record: object) -> ReplayReport:
    return report(from_record(record))
