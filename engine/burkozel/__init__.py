"""Burkozel (Буркозёл), RULES.md Parts A-C, behind the common game interface
(``engine.game``): rules, actions, combinations, deal, view, scoring, series, record and
computer players (``engine.burkozel.ai``)."""

from engine.burkozel.deal import (
    Deal,
    DealResult,
    Move,
    Play,
    PlayerView,
    TrickResult,
    penalties_for,
)
from engine.burkozel.record import FORMAT, ReplayReport, from_record, replay, report, to_record
from engine.burkozel.rules import BASE_RULES, RuleSet
from engine.burkozel.series import Series, SeriesResult

__all__ = [
    "BASE_RULES",
    "FORMAT",
    "Deal",
    "DealResult",
    "Move",
    "Play",
    "PlayerView",
    "ReplayReport",
    "RuleSet",
    "Series",
    "SeriesResult",
    "TrickResult",
    "from_record",
    "penalties_for",
    "replay",
    "report",
    "to_record",
]
