"""The strong player's rollout policy (engine/burkozel/ai/informed.py): legal, and it plays the
sampled world's open cards better than our greedy policy."""

from __future__ import annotations

import random

import pytest

from engine.burkozel.ai import informed
from engine.burkozel.deal import Deal
from engine.cards import Card, Suit, shuffled_deck
from tests.support.sim import exact_sim, table_sim


@pytest.mark.parametrize("players", [2, 3, 4])
def test_informed_moves_are_legal_r6_r7(players: int) -> None:
    """Every informed move is one Deal.legal_actions offers, through whole deals."""
    for game in range(20):
        rng = random.Random(game * 5 + players)
        deal = Deal.start(players, shuffled_deck(rng=rng), rng.randrange(players))
        sim = exact_sim(deal)
        while not deal.finished:
            cards, beat = informed.decide(sim)
            move = next(
                (
                    m
                    for m in deal.legal_actions()
                    if sorted(c.index for c in m.cards) == sorted(cards) and m.beat == beat
                ),
                None,
            )
            assert move is not None, (cards, beat)
            deal.apply(move)
            sim.play(cards, beat)
        assert sim.points == deal.points


def test_r11_informed_lead_cashes_a_card_nobody_can_beat() -> None:
    """Stock empty, spades trump: A♥ cannot be beaten (no hearts above it, no trumps
    left with the other seat), so it is led before the lowest card."""
    sim = table_sim(["6D AH 7D", "KH 10D 8D"], Suit.SPADES)
    assert informed.decide(sim) == ((Card.parse("AH").index,), None)


def test_r7_informed_answer_does_not_beat_when_a_later_seat_overbeats() -> None:
    """Three players, hearts trump. Seat 1 could beat the led 6♠ with its 10♠, but seat 2
    holds A♠ and would take the trick (and the 10) anyway: seat 1 keeps its 10."""
    sim = table_sim(["6S 7D", "10S 7C", "AS 8C"], Suit.HEARTS)
    sim.play((Card.parse("6S").index,), None)
    cards, beat = informed.decide(sim)
    assert beat is False
    assert cards == (Card.parse("7C").index,)
    # Without a cover in seat 2's hand, seat 1 takes it with the 10.
    sim = table_sim(["6S 7D", "10S 7C", "KD 8C"], Suit.HEARTS)
    sim.play((Card.parse("6S").index,), None)
    assert informed.decide(sim) == ((Card.parse("10S").index,), True)
