"""Trick-taking primitives both games share: R7, an answer beating a claim card for card."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

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


# Positions of every way to pick k of n cards, in itertools.combinations order.
PICKS: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {
    (n, k): tuple(combinations(range(n), k)) for n in range(7) for k in range(2, n + 1)
}


def group_leads(
    hand: Sequence[Card], limit: int, same_rank: bool = False
) -> list[tuple[Card, ...]]:
    """The leads of 2 to ``limit`` cards of one suit (R6, D2), or of one rank when
    ``same_rank`` (D2 switch), in the order of ``itertools.combinations(hand, size)``
    for size 2, 3, ...: a lead's cards keep the order they have in the hand."""
    n = len(hand)
    if limit < 2 or n < 2:
        return []
    suits = [c.suit for c in hand]
    ranks = [c.rank for c in hand] if same_rank else None
    if ranks is None and len(set(map(id, suits))) == n:
        return []  # every card of another suit
    groups: list[tuple[Card, ...]] = []
    for size in range(2, min(limit, n) + 1):
        for pick in PICKS[n, size]:
            first = pick[0]
            suit = suits[first]
            for i in pick:
                if suits[i] is not suit:
                    break
            else:
                groups.append(tuple([hand[i] for i in pick]))
                continue
            if ranks is not None:
                rank = ranks[first]
                for i in pick:
                    if ranks[i] is not rank:
                        break
                else:
                    groups.append(tuple([hand[i] for i in pick]))
    return groups


def draw_up(
    stock: list[Card],
    hands: list[list[Card]],
    order: Sequence[int],
    hand_size: int,
    trump_card: Card,
) -> int | None:
    """R10 (Bura D4 alike): after a trick each seat in ``order`` (the taker first) draws
    one card at a time from the top of ``stock`` until every hand holds ``hand_size`` or
    the stock is out. Returns the seat that drew the turned-up trump, if one did."""
    trump_to = None
    while stock:
        drew = False
        for s in order:
            hand = hands[s]
            if stock and len(hand) < hand_size:
                card = stock.pop(0)
                if card is trump_card:
                    trump_to = s
                hand.append(card)
                drew = True
        if not drew:
            break
    return trump_to
