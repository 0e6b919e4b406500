"""Trick-taking primitives both games share: R7, an answer beating a claim card for card."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card, Suit


def covers(answer: Sequence[Card], claim: Sequence[Card], trump: Suit) -> bool:
    """R7: can ``answer`` be paired one-to-one with ``claim`` so every claim card is beaten?

    R5 on the cards' indices: within a suit a higher index is a higher rank. The pairing
    is tried through each claim card's set of answer positions that beat it (a bit mask),
    never by building permutations of cards.
    """
    k = len(claim)
    if len(answer) != k:
        return False
    if k == 1:
        a, c = answer[0], claim[0]
        return a.index > c.index if a.suit is c.suit else a.suit is trump
    masks = []
    for c in claim:
        mask = 0
        bit = 1
        for a in answer:
            if a.index > c.index if a.suit is c.suit else a.suit is trump:
                mask |= bit
            bit <<= 1
        if not mask:
            return False
        masks.append(mask)
    return _matches(masks, 0)


def _matches(masks: list[int], used: int) -> bool:
    """Is there a choice of one unused bit from each mask, all different?"""
    if not masks:
        return True
    first, rest = masks[0], masks[1:]
    free = first & ~used
    while free:
        bit = free & -free
        if _matches(rest, used | bit):
            return True
        free ^= bit
    return False
