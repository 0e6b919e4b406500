"""Encodings for the engine's hot paths: card indices as numbers, the rules as tables and
bit masks, moves made once and handed out again. Every table here is built from the
readable rule it speeds up (``Card.beats`` for R5; ``engine.tricks`` for R6, R7), and
the games' fast paths that use them are held equal to their readable references
(``engine/<game>/reference.py``) by tests/engine/test_reference.py. Nothing outside this
module does arithmetic on card indices (tests/test_layout.py checks that).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import combinations
from typing import Generic, TypeVar

from engine.cards import DECK, Card, Rank, Suit
from engine.tricks import group_leads, one_to_one

T = TypeVar("T")

# --- card indices ------------------------------------------------------------

SUIT_SIZE = len(Rank)
"""Cards per suit (9): ``card.index == suit_no(card.index) * SUIT_SIZE + card.rank``."""
SUITS = len(Suit)
DECK_SIZE = len(DECK)
INDICES = range(DECK_SIZE)
"""Every card index, in ``DECK`` order."""
MAX_SEATS = 4
"""The most seats at any table (R2, D1): tables of moves are per seat."""
MAX_HAND = 6
"""The longest hand the lead-pick tables serve; a longer one is never dealt."""


def suit_no(index: int) -> int:
    """The place (0-3) in ``Suit`` of the card with this index: the trump number a
    table is read with is ``suit_no(trump_card.index)``."""
    return index // SUIT_SIZE


SUIT_NO: dict[Suit, int] = {card.suit: suit_no(card.index) for card in DECK}
"""Each suit's place in ``Suit``, as ``suit_no`` gives it."""
SUIT_OF: tuple[int, ...] = tuple(suit_no(c.index) for c in DECK)
RANK_OF: tuple[int, ...] = tuple(c.rank for c in DECK)
POINTS_OF: tuple[int, ...] = tuple(c.points for c in DECK)


def suit_cards(suit: int) -> range:
    """The indices of one suit's cards, weakest first."""
    return range(suit * SUIT_SIZE, (suit + 1) * SUIT_SIZE)


# --- R5: which card beats which ------------------------------------------------

BEATEN_BY: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << a.index for a in DECK if a.beats(c, trump)) for c in DECK) for trump in Suit
)
"""R5 as bit masks: bit ``a.index`` of ``BEATEN_BY[suit_no(trump_card.index)][c.index]``
is set when card ``a`` beats card ``c``. Built from ``Card.beats``."""


BEATEN_UNDER: tuple[tuple[int, ...], ...] = tuple(BEATEN_BY[suit_no(c.index)] for c in DECK)
"""``BEATEN_UNDER[trump_card.index]`` is ``BEATEN_BY[suit_no(trump_card.index)]``."""


def beats(a: int, c: int, trump: int) -> bool:
    """``Card.beats`` on indices: does card ``a`` beat card ``c`` with trump number ``trump``?"""
    return BEATEN_BY[trump][c] >> a & 1 == 1


# --- R7: an answer covering a claim --------------------------------------------


def _pairings(k: int) -> tuple[bool, ...]:
    """``one_to_one`` for every relation between ``k`` answer and ``k`` claim cards, the
    relation packed with bit ``k * j + i`` set when answer card ``j`` beats claim card ``i``."""
    return tuple(one_to_one(k, _packed_relation(k, packed)) for packed in range(1 << k * k))


def _packed_relation(k: int, packed: int) -> Callable[[int, int], bool]:
    return lambda j, i: packed >> (k * j + i) & 1 == 1


PAIRINGS: dict[int, tuple[bool, ...]] = {2: _pairings(2), 3: _pairings(3)}
"""R7 for answers of two and three cards: ``PAIRINGS[k][packed]``, ``packed`` holding
for answer card ``j`` (bits ``k * j`` on) the claim positions it beats. Built from
``engine.tricks.one_to_one``, the pairing ``covers`` reads."""


def beaten_positions(answer_card: int, claim: Sequence[int], trump: int) -> int:
    """The claim positions (bit ``i`` for ``claim[i]``) that ``answer_card`` beats."""
    beaten = BEATEN_BY[trump]
    mask = 0
    for i, c in enumerate(claim):
        mask |= (beaten[c] >> answer_card & 1) << i
    return mask


def covers_indices(answer: Sequence[int], claim: Sequence[int], trump: int) -> bool:
    """``engine.tricks.covers`` on card indices (``trump`` a suit number)."""
    k = len(claim)
    if len(answer) != k:
        return False
    if k == 1:
        return BEATEN_BY[trump][claim[0]] >> answer[0] & 1 == 1
    if k == 2:
        beaten = BEATEN_BY[trump]
        b0, b1 = beaten[claim[0]], beaten[claim[1]]
        a0, a1 = answer
        return (b0 >> a0 & 1 == 1 and b1 >> a1 & 1 == 1) or (
            b0 >> a1 & 1 == 1 and b1 >> a0 & 1 == 1
        )
    masks = [beaten_positions(a, claim, trump) for a in answer]
    if k in PAIRINGS:
        packed = 0
        for j, mask in enumerate(masks):
            packed |= mask << k * j
        return PAIRINGS[k][packed]
    return one_to_one(k, lambda j, i: masks[j] >> i & 1 == 1)


def covers_cards(answer: Sequence[Card], claim: Sequence[Card], trump: int) -> bool:
    """``engine.tricks.covers`` on cards, with the trump's suit number."""
    return covers_indices([a.index for a in answer], [c.index for c in claim], trump)


# --- R10: the draw ---------------------------------------------------------------


def draw_from_end(stock: list[int], hands: list[list[int]], first: int, hand_size: int) -> None:
    """``engine.tricks.draw_up`` on card indices, for a stock whose top card is at its
    END (drawing is ``pop()``): seat ``first`` and then the others clockwise, every seat
    of ``hands`` in, draw one card at a time until every hand holds ``hand_size`` or the
    stock is out."""
    n = len(hands)
    while stock:
        drew = False
        for i in range(n):
            hand = hands[(first + i) % n]
            if len(hand) < hand_size and stock:
                hand.append(stock.pop())
                drew = True
        if not drew:
            break


# --- R6, D2: which cards of a hand may be led together ---------------------------

PICKS: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {
    (n, k): tuple(combinations(range(n), k)) for n in range(MAX_HAND + 1) for k in range(2, n + 1)
}
"""Positions of every way to pick ``k`` of ``n`` cards, in ``itertools.combinations`` order."""

_LEAD_PICKS: dict[int, tuple[tuple[int, ...], ...]] = {}
_LIMIT_DIGIT = 2 * (SUIT_SIZE + 1)  # a lead limit (at most a suit's cards) and same_rank


def lead_picks(
    hand: Sequence[Card], limit: int, same_rank: bool = False
) -> tuple[tuple[int, ...], ...]:
    """The positions in ``hand`` of each lead ``engine.tricks.group_leads(hand, limit,
    same_rank)`` gives, in its order. Made once per pattern of the hand (its suits in
    hand order, and which cards share a rank when ``same_rank``) from a stand-in hand of
    that pattern: card ``i`` of the stand-in is of the suit of ``hand[i]``, its rank the
    position in ``hand`` of the first card of ``hand[i]``'s rank."""
    n = len(hand)
    # The key, most significant first: n, each suit (base SUITS), each rank class (base
    # SUIT_SIZE), then limit and same_rank in one last digit. With n leading and every
    # digit below it of a width fixed by n, no two patterns share a key.
    if n == 3 and not same_rank:  # the same key without a loop, for the commonest hand
        a, b, c = hand
        key = ((3 * SUITS + SUIT_OF[a.index]) * SUITS + SUIT_OF[b.index]) * SUITS
        key = (key + SUIT_OF[c.index]) * _LIMIT_DIGIT + limit * 2
        picks = _LEAD_PICKS.get(key)
        if picks is not None:
            return picks
    key = n
    for c in hand:
        key = key * SUITS + SUIT_OF[c.index]
    if same_rank:
        for c in hand:
            for i, other in enumerate(hand):  # the first card of c's rank
                if other.rank is c.rank:
                    key = key * SUIT_SIZE + i
                    break
    key = key * _LIMIT_DIGIT + limit * 2 + same_rank
    picks = _LEAD_PICKS.get(key)
    if picks is None:
        suits = [SUIT_OF[c.index] for c in hand]
        ranks = [c.rank for c in hand]
        classes = [ranks.index(rank) for rank in ranks] if same_rank else list(range(n))
        stand_in = [DECK[suit * SUIT_SIZE + r] for suit, r in zip(suits, classes, strict=True)]
        position = {card: i for i, card in enumerate(stand_in)}
        picks = _LEAD_PICKS[key] = tuple(
            tuple(position[c] for c in group) for group in group_leads(stand_in, limit, same_rank)
        )
    return picks


def group_leads_of(hand: Sequence[int], limit: int) -> list[tuple[int, ...]]:
    """``engine.tricks.group_leads(hand, limit)`` on card indices: the leads of 2 to
    ``limit`` cards of one suit, by size and in ``combinations`` order."""
    cards = [DECK[c] for c in hand]
    return [tuple([hand[i] for i in pick]) for pick in lead_picks(cards, limit)]


# --- a value per hand of three cards ----------------------------------------------


class ThreeCardTable(Generic[T]):
    """A value for every hand of three cards in hand order, made up front: the value of
    ``(a, b, c)`` is ``rows[classes[a.index]][classes[b.index]][classes[c.index]]``,
    ``make((a, b, c))``. Cards of one ``card_class`` must be alike to ``make`` (the class
    names all of a card that the value depends on), so the table holds a value per
    class of hand, made once from one hand of that class: small and quick to read
    (nested rows, no arithmetic in the caller)."""

    __slots__ = ("classes", "rows")

    def __init__(
        self,
        make: Callable[[tuple[Card, Card, Card]], T],
        card_class: Callable[[Card], Hashable],
    ) -> None:
        numbers: dict[Hashable, int] = {}
        examples: list[Card] = []  # a card of each class
        for card in DECK:
            if numbers.setdefault(card_class(card), len(numbers)) == len(examples):
                examples.append(card)
        self.classes: tuple[int, ...] = tuple(numbers[card_class(card)] for card in DECK)
        """The class number of each card, by card index."""
        self.rows: list[list[list[T]]] = [
            [[make((a, b, c)) for c in examples] for b in examples] for a in examples
        ]


# --- moves made once ---------------------------------------------------------------


class Interned(Generic[T]):
    """Immutable moves (or table plays) made once per kind, seat and cards, and handed
    out again: building a frozen dataclass costs more than the rest of a move, and a
    move equal by value serves every position that offers it. ``make(kind, seat, cards)``
    builds one. One-card moves are made up front; two-card ones go to a table that is
    filled as they come and never emptied (bounded by kinds, seats and two cards);
    longer ones to a dictionary emptied past ``limit`` (a cache, not a leak)."""

    __slots__ = ("_make", "_many", "_pairs", "limit", "singles")

    def __init__(self, make: Callable[[int, int, tuple[Card, ...]], T], kinds: int, limit: int):
        self._make, self.limit = make, limit
        self.singles: tuple[tuple[tuple[T, ...], ...], ...] = tuple(
            tuple(tuple(make(kind, seat, (card,)) for card in DECK) for seat in range(MAX_SEATS))
            for kind in range(kinds)
        )
        """``singles[kind][seat][card.index]``: every one-card move, made up front."""
        # [kind][seat][first card's index][second's]: nested rows rather than one flat
        # list, so a reader indexes by the cards with no arithmetic on their indices.
        self._pairs: tuple[tuple[list[list[T | None]], ...], ...] = tuple(
            tuple([[None] * DECK_SIZE for _ in INDICES] for _ in range(MAX_SEATS))
            for _ in range(kinds)
        )
        self._many: dict[int, T] = {}

    def pair_row(self, kind: int, seat: int) -> list[list[T | None]]:
        """``kind``'s and ``seat``'s two-card moves, ``[first.index][second.index]``: the
        move, or ``None`` while it is not made yet (:meth:`pair_at` makes it)."""
        return self._pairs[kind][seat]

    def pair_at(self, row: list[list[T | None]], a: Card, b: Card, kind: int, seat: int) -> T:
        """The move of ``kind`` by ``seat`` with the cards ``a``, ``b`` (``row`` from
        :meth:`pair_row`)."""
        move = row[a.index][b.index]
        if move is None:
            move = row[a.index][b.index] = self._make(kind, seat, (a, b))
        return move

    def pick(self, kind: int, seat: int, hand: Sequence[Card], positions: Sequence[int]) -> T:
        """``get(kind, seat, tuple(hand[i] for i in positions))``, the tuple built only
        for a move not made yet."""
        if len(positions) == 2:
            a, b = hand[positions[0]], hand[positions[1]]
            row = self._pairs[kind][seat][a.index]
            move = row[b.index]
            if move is None:
                move = row[b.index] = self._make(kind, seat, (a, b))
            return move
        key = kind * MAX_SEATS + seat + 1
        for i in positions:
            key = key * (DECK_SIZE + 1) + hand[i].index + 1
        found = self._many.get(key)
        if found is None:
            found = self.get(kind, seat, tuple([hand[i] for i in positions]))
        return found

    def get(self, kind: int, seat: int, cards: tuple[Card, ...]) -> T:
        """The move of ``kind`` by ``seat`` with ``cards``, in that order."""
        n = len(cards)
        if n == 2:
            a, b = cards
            row = self._pairs[kind][seat][a.index]
            move = row[b.index]
            if move is None:
                move = row[b.index] = self._make(kind, seat, cards)
            return move
        if n == 1:
            return self.singles[kind][seat][cards[0].index]
        key = kind * MAX_SEATS + seat + 1  # then each card's index + 1, base DECK_SIZE + 1
        for card in cards:
            key = key * (DECK_SIZE + 1) + card.index + 1
        found = self._many.get(key)
        if found is None:
            if len(self._many) >= self.limit:
                self._many.clear()
            found = self._many[key] = self._make(kind, seat, cards)
        return found
