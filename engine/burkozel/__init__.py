"""Burkozel (Буркозёл), RULES.md Parts A-C, behind the common game interface
(``engine.game``): rules, actions, combinations, deal, view, scoring, series, record and
computer players (``engine.burkozel.ai``)."""

from engine.burkozel.deal import (
    Action,
    Deal,
    DealResult,
    Play,
    TrickResult,
    View,
    penalties_for,
)
from engine.burkozel.record import FORMAT, ReplayReport, from_record, replay, report, to_record
from engine.burkozel.rules import BASE_RULES, Rules
from engine.burkozel.series import Series, SeriesResult

__all__ = [
    "BASE_RULES",
    "FORMAT",
    "Action",
    "Deal",
    "DealResult",
    "Play",
    "ReplayReport",
    "Rules",
    "Series",
    "SeriesResult",
    "TrickResult",
    "View",
    "from_record",
    "penalties_for",
    "replay",
    "report",
    "to_record",
]
