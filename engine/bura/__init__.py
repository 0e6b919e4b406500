"""Bura (Бура), the three-card game of RULES.md Part D, behind the common game
interface (``engine.game``): rules, actions, combinations, deal, view, series, record
and computer players (``engine.bura.ai``)."""

from engine.bura.actions import Action, Answer, BuraDealResult, Dave, DaveReply, Declare, Lead, Show
from engine.bura.deal import BuraDeal
from engine.bura.record import FORMAT, from_record, replay, to_record
from engine.bura.rules import BASE_BURA_RULES, BuraRules
from engine.bura.series import BuraSeries, BuraSeriesResult
from engine.bura.view import BuraView

__all__ = [
    "BASE_BURA_RULES",
    "FORMAT",
    "Action",
    "Answer",
    "BuraDeal",
    "BuraDealResult",
    "BuraRules",
    "BuraSeries",
    "BuraSeriesResult",
    "BuraView",
    "Dave",
    "DaveReply",
    "Declare",
    "Lead",
    "Show",
    "from_record",
    "replay",
    "to_record",
]
