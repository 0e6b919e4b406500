"""Pure rules of Burkozel (RULES.md Parts A-C): no I/O, no asyncio, no Telegram."""

from engine.cards import DECK, Card, Rank, Suit, card_codes, parse_cards, shuffled_deck
from engine.deal import Deal, DealResult, Move, Play, PlayerView, TrickResult, penalties_for
from engine.errors import (
    CardCodeError,
    EngineError,
    GameOverError,
    IllegalMoveError,
    RecordError,
    RuleSetError,
)
from engine.record import FORMAT, ReplayReport, from_record, replay, report, to_record
from engine.rules import BASE_RULES, RuleSet
from engine.series import Series, SeriesResult

__all__ = [
    "BASE_RULES",
    "DECK",
    "FORMAT",
    "Card",
    "CardCodeError",
    "Deal",
    "DealResult",
    "EngineError",
    "GameOverError",
    "IllegalMoveError",
    "Move",
    "Play",
    "PlayerView",
    "Rank",
    "RecordError",
    "ReplayReport",
    "RuleSet",
    "RuleSetError",
    "Series",
    "SeriesResult",
    "Suit",
    "TrickResult",
    "card_codes",
    "from_record",
    "parse_cards",
    "penalties_for",
    "replay",
    "report",
    "shuffled_deck",
    "to_record",
]
