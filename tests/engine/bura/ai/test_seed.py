"""The text a Bura computer's decision is seeded with is spelled out, not ``repr``: it
stays the same when the view's classes are renamed or grow fields, so the computers make
the moves they always made (bench/engine_same.py). These pin it to the text the players
were first seeded with."""

from __future__ import annotations

from engine.bura.actions import Answer, Declare, Lead
from engine.bura.ai.seed import decision_rng, position_text
from engine.bura.deal import Deal
from engine.bura.rules import Rules
from engine.cards import DECK, parse_cards

# The deck of shuffled_deck(seed=0), written out so the test needs no shuffle.
DECK_CODES = (
    "6S 7D QH 9D JD AH KC 9C 10S QS 7H JH AC 7S 7C QD AS 9S 8D 6C JS QC KS 6D 8H KH 6H"
    " 10C 10D 8C 9H JC 10H 8S AD KD"
)
DECK_ORDER = parse_cards(DECK_CODES.split())


def test_a_position_after_a_face_down_discard_reads_as_it_always_has() -> None:
    deal = Deal.start(2, DECK_ORDER, 1, Rules(moscow="on"))
    six, seven = parse_cards(["6S", "7D"])
    deal.apply(Lead(0, (six,)))
    deal.apply(Answer(1, (seven,), False))  # face down (D3): only seat 1 knows it
    deal.apply(Declare(0, False))
    assert position_text(deal.view(1)) == (
        "BuraView(seat=1, players=2, hand=(Card.parse('10S'), Card.parse('AH'),"
        " Card.parse('9D')), hand_sizes=(3, 3), trump=<Suit.CLUBS: 'C'>,"
        " trump_card=Card.parse('KC'), trump_card_drawn_by=None, stock_size=28, dealer=1,"
        " leader=0, trick_leader=0, phase='lead', turn=0, may_act=False, claimant=None,"
        " table=(), last_trick=(SeenPlay(seat=0, cards=(Card.parse('6S'),), count=1,"
        " beat=None, stop=False), SeenPlay(seat=1, cards=(Card.parse('7D'),), count=1,"
        " beat=False, stop=False)), piles=(SeenPile(owner=0, open_cards=(Card.parse('6S'),),"
        " closed_by=(1,), closed_plays=((1, 1),), closed_under=((Card.parse('6S'),),)),"
        " SeenPile(owner=1, open_cards=(), closed_by=(), closed_plays=(), closed_under=())),"
        " my_closed=((Card.parse('7D'), 0),), stakes=1, dave_by=None, last_dave_by=None,"
        " trick_number=1, result=None, closed_discards=True)"
    )
    assert decision_rng(7, deal.view(1)).random() == 0.09280945181005862


def test_an_ended_deal_writes_its_result() -> None:
    deal = Deal.start(2, DECK, 1, Rules(moscow="on"))  # a молодка dealt: void (D9)
    assert position_text(deal.public_view()).endswith(
        ", result=BuraDealResult(outcome='void', winner=None, by=None, points=(0, 0),"
        " stakes=1, run_out=False), closed_discards=True)"
    )
