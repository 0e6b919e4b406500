"""The table of hand forms (engine/bura/forms.py) says, for every hand of three under
every trump and switch, what ``hand_kind`` and ``lead_picks`` say of that hand: the
cards it lumps together as one class, and the hands it lets share a form, are alike."""

from __future__ import annotations

from itertools import permutations, product

import pytest

from engine.bura.combinations import SMALL_MOSCOW_HELD, hand_kind
from engine.bura.forms import form_table
from engine.bura.rules import HAND_SIZE, Rules
from engine.cards import DECK, Suit
from engine.fast import lead_picks

SWITCHES = list(product(("off", "on"), ("off", "out_of_turn"), ("off", "on")))


@pytest.mark.parametrize(("moscow", "molodka", "same_rank"), SWITCHES)
def test_every_hand_has_the_form_the_functions_give(
    moscow: str, molodka: str, same_rank: str
) -> None:
    # One trump per switch choice (each trump twice over the eight): the table is made
    # per trump in the same way, and every hand is checked.
    trump = list(Suit)[SWITCHES.index((moscow, molodka, same_rank)) % len(Suit)]
    rules = Rules(moscow=moscow, molodka=molodka, same_rank_leads=same_rank)
    table = form_table(trump, rules)
    of = table.classes
    for hand in permutations(DECK, HAND_SIZE):
        a, b, c = hand
        form = table.rows[of[a.index]][of[b.index]][of[c.index]]
        kind = hand_kind(hand, trump, moscow == "on", molodka == "out_of_turn")
        assert form.kind == kind, hand
        for limit in range(HAND_SIZE + 1):
            expected = lead_picks(hand, limit, same_rank == "on")
            if kind == SMALL_MOSCOW_HELD and limit == HAND_SIZE and same_rank == "off":
                expected += ((0, 1, 2),)  # D8 "Precisely": the three sixes, led together
            assert form.several[limit] == expected, (hand, limit)


def test_a_table_is_made_once_per_trump_and_switches_it_depends_on() -> None:
    assert form_table(Suit.HEARTS, Rules(moscow="on")) is form_table(
        Suit.HEARTS, Rules(moscow="on", dave="on", discards="open")
    )
    assert form_table(Suit.HEARTS, Rules()) is not form_table(Suit.SPADES, Rules())
