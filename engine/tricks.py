"""Trick-taking primitives both games share: R7, an answer beating a claim card for card."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

from engine.cards import Card, Suit


def covers(answer: Sequence[Card], claim: Sequence[Card], trump: Suit) -> bool:
    """R7: can ``answer`` be paired one-to-one with ``claim`` so every claim card is beaten?"""
    if len(answer) != len(claim):
        return False
    return any(
        all(a.beats(c, trump) for a, c in zip(order, claim, strict=True))
        for order in permutations(answer)
    )
