"""Cards as small immutable values with a round-tripping text code (R1)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from enum import Enum, IntEnum

from engine.errors import CardCodeError


class Suit(Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        suit = _SUIT_BY_TEXT.get(text.strip().upper())
        if suit is None:
            raise CardCodeError(f"unknown suit {text!r} (use S H D C or ♠ ♥ ♦ ♣)")
        return suit


_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_BY_TEXT = {s.value: s for s in Suit} | {sym: s for s, sym in _SUIT_SYMBOLS.items()}
_SUIT_BY_TEXT |= {"♤": Suit.SPADES, "♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS}


class Rank(IntEnum):
    """Ranks valued by strength: the ten stands above the king (R1)."""

    SIX = 0
    SEVEN = 1
    EIGHT = 2
    NINE = 3
    JACK = 4
    QUEEN = 5
    KING = 6
    TEN = 7
    ACE = 8

    @property
    def code(self) -> str:
        return _RANK_CODES[self]

    @property
    def points(self) -> int:
        return _RANK_POINTS[self]


_RANK_CODES = {
    Rank.SIX: "6",
    Rank.SEVEN: "7",
    Rank.EIGHT: "8",
    Rank.NINE: "9",
    Rank.TEN: "10",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
}
_RANK_BY_CODE = {code: rank for rank, code in _RANK_CODES.items()}
_RANK_POINTS = {rank: 0 for rank in Rank} | {
    Rank.ACE: 11,
    Rank.TEN: 10,
    Rank.KING: 4,
    Rank.QUEEN: 3,
    Rank.JACK: 2,
}


class Card:
    """One of the 36 cards. Instances are interned: ``Card.parse("10H") is Card.parse("10h")``."""

    __slots__ = ("index", "points", "rank", "suit")

    rank: Rank
    suit: Suit
    points: int
    index: int

    def __new__(cls, rank: Rank, suit: Suit) -> Card:
        return _CARDS[(rank, suit)]

    @classmethod
    def _make(cls, rank: Rank, suit: Suit, index: int) -> Card:
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "points", rank.points)
        object.__setattr__(card, "index", index)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[object, tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse ``10H``, ``10♥``, ``qs`` or ``Q♠``; raise :class:`CardCodeError` otherwise."""
        if not isinstance(code, str):
            raise CardCodeError(f"card code must be text, not {type(code).__name__}")
        text = code.strip().upper()
        if len(text) < 2:
            raise CardCodeError(f"bad card code {code!r}")
        rank = _RANK_BY_CODE.get(text[:-1])
        if rank is None:
            raise CardCodeError(f"bad card code {code!r}: unknown rank {text[:-1]!r}")
        try:
            suit = Suit.parse(text[-1])
        except CardCodeError:
            raise CardCodeError(f"bad card code {code!r}: unknown suit {text[-1]!r}") from None
        return _CARDS[(rank, suit)]

    def code(self) -> str:
        """The canonical text code, e.g. ``10H``; ``Card.parse(c.code()) is c``."""
        return self.rank.code + self.suit.value

    def pretty(self) -> str:
        """Rank and suit symbol, e.g. ``10♥``."""
        return self.rank.code + self.suit.symbol

    def beats(self, other: Card, trump: Suit) -> bool:
        """R5: a higher card of the same suit, or any trump over a non-trump."""
        if self.suit is other.suit:
            return self.rank > other.rank
        return self.suit is trump

    def __repr__(self) -> str:
        return f"Card.parse({self.code()!r})"

    def __str__(self) -> str:
        return self.code()

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index


_CARDS: dict[tuple[Rank, Suit], Card] = {}
for _i, (_suit, _rank) in enumerate((s, r) for s in Suit for r in Rank):
    _CARDS[(_rank, _suit)] = Card._make(_rank, _suit, _i)

DECK: tuple[Card, ...] = tuple(sorted(_CARDS.values()))
"""All 36 cards in a fixed order (by suit S H D C, then by strength)."""


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(code) for code in codes)


def card_codes(cards: Iterable[Card]) -> list[str]:
    return [card.code() for card in cards]


def check_deck(cards: Sequence[Card]) -> tuple[Card, ...]:
    """Return ``cards`` as a deck order, or raise if it is not exactly the 36 cards."""
    deck = tuple(cards)
    if len(deck) != len(DECK):
        raise CardCodeError(f"a deck has {len(DECK)} cards, got {len(deck)}")
    if len(set(map(id, deck))) != len(DECK):  # cards are interned: one object each
        dupes = sorted(c.code() for c, n in Counter(deck).items() if n > 1)
        raise CardCodeError(f"deck repeats {', '.join(dupes)}")
    return deck


def shuffled_deck(
    seed: int | str | None = None, rng: random.Random | None = None
) -> tuple[Card, ...]:
    """A shuffled deck order; the order itself is what a record keeps, so any deal replays."""
    generator = rng if rng is not None else random.Random(seed)
    deck = list(DECK)
    generator.shuffle(deck)
    return tuple(deck)
