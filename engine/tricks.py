"""What both games' tricks share, as the rule book reads it (docs/RULES.md): R7, an
answer beating a claim card for card; R6/D2, the leads of several cards; R10/D4, the
draw. The engine's fast paths (engine/fast.py) are built from these and held equal to
them by tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations, permutations

from engine.cards import Card, Suit


def covers(answer: Sequence[Card], claim: Sequence[Card], trump: Suit) -> bool:
    """R7: can ``answer`` be paired one-to-one with ``claim`` so that every claim card is
    beaten (R5, ``Card.beats``)? A matching, not "in the order played"."""
    return len(answer) == len(claim) and one_to_one(
        len(claim), lambda j, i: answer[j].beats(claim[i], trump)
    )


def one_to_one(k: int, beats: Callable[[int, int], bool]) -> bool:
    """R7's pairing: is there an order of the ``k`` answer cards in which answer card
    ``j`` faces claim card ``order[j]`` and ``beats(j, order[j])`` holds for every ``j``?"""
    return any(all(beats(j, order[j]) for j in range(k)) for order in permutations(range(k)))


def one_suit(cards: Sequence[Card]) -> bool:
    return all(c.suit is cards[0].suit for c in cards)


def one_rank(cards: Sequence[Card]) -> bool:
    return all(c.rank is cards[0].rank for c in cards)


def group_leads(
    hand: Sequence[Card], limit: int, same_rank: bool = False
) -> list[tuple[Card, ...]]:
    """R6 and D2: the leads of 2 to ``limit`` cards of one suit (or, with ``same_rank``,
    D2's switch, of one rank), by size and then in ``itertools.combinations`` order: a
    lead's cards keep the order they have in the hand."""
    return [
        group
        for size in range(2, limit + 1)
        for group in combinations(hand, size)
        if one_suit(group) or (same_rank and one_rank(group))
    ]


def draw_up(
    stock: list[Card],
    hands: list[list[Card]],
    order: Sequence[int],
    hand_size: int,
    trump_card: Card,
) -> int | None:
    """R10 (Bura's D4 alike): after a trick each seat in ``order`` (the taker first) draws
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
