"""What a hand of three cards is, looked up rather than worked out: for each trump and
rule set, a table (``engine.fast.ThreeCardTable``) of every hand's combination
(``hand_kind``, D6-D8) and the leads of several cards its holder may make (D2 groups by
``lead_picks``, a малая Москва's three sixes by D8 "Precisely"). The deal reads it on
every lead, answer and «Стоп!» test, where calling those functions cost a Bura deal
about 8% of its instructions (bench/RESULTS-engine.md). tests/engine/bura/test_forms.py
holds every entry to the functions."""

from __future__ import annotations

from dataclasses import dataclass

from engine.bura.combinations import SMALL_MOSCOW_HELD, hand_kind
from engine.bura.rules import HAND_SIZE, Rules
from engine.cards import Card, Rank, Suit
from engine.fast import ThreeCardTable, lead_picks


@dataclass(frozen=True, slots=True)
class HandForm:
    """What a hand of three cards is under one trump and rule set. (A class with slots,
    not a NamedTuple: the deal reads these fields on every lead and answer, and Python
    3.11 reads a slot quicker than a NamedTuple's field.)"""

    kind: int
    """``hand_kind``: the combination the hand is (D6-D8), if any."""
    several: tuple[tuple[tuple[int, ...], ...], ...]
    """``several[limit]``: the positions in the hand of each lead of several cards its
    holder may make as the rightful leader under a lead limit (D2), in the deal's
    ``legal_actions`` order: the groups of ``lead_picks``, then a малая Москва's three
    sixes (D8 "Precisely")."""


_TABLES: dict[tuple[Suit, str, str, str], ThreeCardTable[HandForm]] = {}
_WHOLE_HAND = ((0, 1, 2),)


def form_table(trump: Suit, rules: Rules) -> ThreeCardTable[HandForm]:
    """The forms of every hand of three under ``trump`` and the switches they depend on
    (D2 same_rank_leads, D7 molodka, D8 moscow), made on first use (a few milliseconds;
    about 0.04 s with same_rank_leads, where every card is a class of its own)."""
    key = (trump, rules.moscow, rules.molodka, rules.same_rank_leads)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = _make_table(trump, rules)
    return table


def _make_table(trump: Suit, rules: Rules) -> ThreeCardTable[HandForm]:
    moscow, molodka = rules.moscow == "on", rules.molodka == "out_of_turn"
    same_rank = rules.same_rank_leads == "on"

    def card_class(card: Card) -> tuple[Suit, Rank | None]:
        """All of a card that a form depends on: its suit, and its rank where ranks
        matter (groups of one rank, D2; three aces or three sixes, D8)."""
        if same_rank or (moscow and card.rank in (Rank.ACE, Rank.SIX)):
            return card.suit, card.rank
        return card.suit, None

    made: dict[tuple[object, ...], HandForm] = {}

    def form(hand: tuple[Card, Card, Card]) -> HandForm:
        a, b, c = hand
        # Hands alike in which cards are trumps, which share a suit, which share a rank,
        # and the first card's rank share a form: made once, where every card is a class
        # of its own (same_rank_leads) that is a few hundred forms for 46,656 hands.
        shape = (
            a.suit is trump,
            b.suit is trump,
            c.suit is trump,
            a.suit is b.suit,
            a.suit is c.suit,
            b.suit is c.suit,
            a.rank is b.rank,
            a.rank is c.rank,
            b.rank is c.rank,
            a.rank,
        )
        found = made.get(shape)
        if found is None:
            kind = hand_kind(hand, trump, moscow, molodka)
            several = [lead_picks(hand, limit, same_rank) for limit in range(HAND_SIZE + 1)]
            # (three sixes under same_rank_leads are a group of one rank already)
            if kind == SMALL_MOSCOW_HELD and not same_rank:
                several[HAND_SIZE] += _WHOLE_HAND
            found = made[shape] = HandForm(kind, tuple(several))
        return found

    return ThreeCardTable(form, card_class)
