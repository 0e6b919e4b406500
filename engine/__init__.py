"""Pure rules of the card games (no I/O, no asyncio, no Telegram): what every game shares
(cards, errors, the trick and record primitives, the game interface and its registry);
each game in its own package, ``engine.burkozel`` and ``engine.bura``."""

from engine.cards import DECK, Card, Rank, Suit, card_codes, parse_cards, shuffled_deck
from engine.errors import (
    CardCodeError,
    EngineError,
    GameOverError,
    IllegalMoveError,
    RecordError,
    RuleSetError,
)

__all__ = [
    "DECK",
    "Card",
    "CardCodeError",
    "EngineError",
    "GameOverError",
    "IllegalMoveError",
    "Rank",
    "RecordError",
    "RuleSetError",
    "Suit",
    "card_codes",
    "parse_cards",
    "shuffled_deck",
]
