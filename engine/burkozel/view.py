"""What a seat may see of a deal (R8, B1): the public seat, a face-down discard as
another seat sees it, and the order a hand is shown in. ``Deal.view`` and
``Deal.from_view`` (:mod:`engine.burkozel.deal`) use them."""

from __future__ import annotations

from collections.abc import Callable

from engine.burkozel.actions import Play
from engine.cards import Card, Suit


def masked(play: Play, hidden: set[Card]) -> Play:
    """B1: a discard lying face down, as a seat that may not see it sees it."""
    if play.declared_beat is False and any(c in hidden for c in play.cards):
        return Play(play.seat, (), False, face_down=len(play.cards))
    return play


_SUIT_ORDER = {s: i for i, s in enumerate(Suit)}


def display_key(trump: Suit) -> Callable[[Card], tuple[bool, int, int]]:
    def key(card: Card) -> tuple[bool, int, int]:
        return (card.suit is trump, _SUIT_ORDER[card.suit], card.rank)

    return key
