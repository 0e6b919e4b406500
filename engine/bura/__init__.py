"""Bura (Бура), the three-card game of RULES.md Part D, behind the common game
interface (``engine.game``): rules, actions, combinations, deal, view, series, record
and computer players (``engine.bura.ai``)."""

from engine.bura.actions import Action, Answer, Dave, DaveReply, DealResult, Declare, Lead, Show
from engine.bura.deal import Deal
from engine.bura.record import FORMAT, from_record, replay, to_record
from engine.bura.rules import BASE_RULES, Rules
from engine.bura.series import Series, SeriesResult
from engine.bura.view import View

__all__ = [
    "BASE_RULES",
    "FORMAT",
    "Action",
    "Answer",
    "Dave",
    "DaveReply",
    "Deal",
    "DealResult",
    "Declare",
    "Lead",
    "Rules",
    "Series",
    "SeriesResult",
    "Show",
    "View",
    "from_record",
    "replay",
    "to_record",
]
