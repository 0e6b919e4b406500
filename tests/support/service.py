"""Players and decks for the service's tests."""

from __future__ import annotations

from bot.service import UserInfo
from engine.cards import Card


class FixedDeck:
    """The service's rng: seat 0 deals, and the first shuffle gives ``deck``."""

    def __init__(self, deck: tuple[Card, ...]) -> None:
        self.deck = deck

    def randrange(self, n: int) -> int:
        return 0

    def shuffle(self, cards: list[Card]) -> None:
        cards[:] = self.deck


ALICE, BOB = UserInfo(1, "Alice"), UserInfo(2, "Bob")
