"""R1: the deck, card codes, order and points."""

from __future__ import annotations

import pytest

from engine import DECK, Card, CardCodeError, Rank, Suit, card_codes, parse_cards, shuffled_deck
from engine.cards import check_deck

RANK_CODES = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def test_r1_deck_has_36_distinct_cards() -> None:
    assert len(DECK) == 36
    assert len(set(DECK)) == 36
    assert {(c.rank, c.suit) for c in DECK} == {(r, s) for r in Rank for s in Suit}


@pytest.mark.parametrize("card", DECK, ids=lambda c: c.code())
def test_r1_code_round_trips(card: Card) -> None:
    code = card.code()
    assert Card.parse(code) is card
    assert Card.parse(code.lower()) is card
    assert Card.parse(card.pretty()) is card
    assert Card.parse(card.pretty().lower()) is card
    assert code[:-1] in RANK_CODES and code[-1] in "SHDC"
    assert str(card) == code


def test_codes_are_canonical() -> None:
    assert {c.code() for c in DECK} == {r + s for r in RANK_CODES for s in "SHDC"}
    assert Card.parse("10H").rank is Rank.TEN and Card.parse("10H").suit is Suit.HEARTS
    assert Card.parse("10♥") is Card.parse("10h") is Card.parse(" 10H ")
    assert Card.parse("q♠") is Card.parse("QS")
    assert Card.parse("A♣").code() == "AC"
    assert Card.parse("7♦").pretty() == "7♦"
    assert Card(Rank.KING, Suit.SPADES) is Card.parse("KS")


@pytest.mark.parametrize("suit, symbol", SUIT_SYMBOLS.items())
def test_suit_symbols(suit: str, symbol: str) -> None:
    assert Suit.parse(symbol) is Suit.parse(suit) is Suit(suit)
    assert Suit(suit).symbol == symbol


@pytest.mark.parametrize(
    "code, fragment",
    [
        ("", "bad card code ''"),
        ("H", "bad card code 'H'"),
        ("1H", "unknown rank '1'"),
        ("11H", "unknown rank '11'"),
        ("TH", "unknown rank 'T'"),
        ("10X", "unknown suit 'X'"),
        ("AHH", "unknown rank 'AH'"),
        ("5S", "unknown rank '5'"),
    ],
)
def test_bad_card_code_is_a_clear_error(code: str, fragment: str) -> None:
    with pytest.raises(CardCodeError) as info:
        Card.parse(code)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_non_text_card_code_is_refused() -> None:
    with pytest.raises(CardCodeError, match="must be text"):
        Card.parse(10)  # type: ignore[arg-type]


def test_cards_are_immutable() -> None:
    card = Card.parse("AS")
    with pytest.raises(AttributeError):
        card.rank = Rank.SIX


def test_r1_order_ten_above_king() -> None:
    order = [Card.parse(r + "H").rank for r in ["A", "10", "K", "Q", "J", "9", "8", "7", "6"]]
    assert order == sorted(order, reverse=True)
    assert Rank.TEN > Rank.KING > Rank.QUEEN > Rank.JACK > Rank.NINE
    assert Rank.ACE > Rank.TEN


@pytest.mark.parametrize(
    "rank, points", [("A", 11), ("10", 10), ("K", 4), ("Q", 3), ("J", 2), ("9", 0), ("6", 0)]
)
def test_r1_card_points(rank: str, points: int) -> None:
    for suit in "SHDC":
        assert Card.parse(rank + suit).points == points


def test_r1_suit_holds_30_deck_120() -> None:
    for suit in Suit:
        assert sum(c.points for c in DECK if c.suit is suit) == 30
    assert sum(c.points for c in DECK) == 120


def test_parse_cards_and_card_codes() -> None:
    cards = parse_cards(["10h", "K♥", "6C"])
    assert card_codes(cards) == ["10H", "KH", "6C"]
    with pytest.raises(CardCodeError):
        parse_cards(["10H", "ZZ"])


def test_shuffled_deck_is_seeded_and_complete() -> None:
    assert shuffled_deck(7) == shuffled_deck(7)
    assert shuffled_deck(7) != shuffled_deck(8)
    assert sorted(shuffled_deck(7)) == list(DECK)


def test_check_deck_refuses_short_or_repeated() -> None:
    with pytest.raises(CardCodeError, match="36 cards, got 35"):
        check_deck(DECK[:-1])
    with pytest.raises(CardCodeError, match="repeats AS"):
        check_deck((*DECK[:-1], Card.parse("AS")))
