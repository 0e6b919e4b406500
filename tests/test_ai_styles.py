"""The aggressive style for the other seats in the strong player's playouts
(engine/ai/styles.py, ``StrongPlayer(mix=...)``, issue 13)."""

from __future__ import annotations

import random

import pytest

from engine.ai import StrongPlayer, canonical, policy, styles
from engine.ai.belief import Sampler
from engine.ai.players import decision_rng, utility
from engine.ai.sim import Sim
from engine.cards import Suit, shuffled_deck
from engine.deal import Deal
from tests.test_ai_informed import table_sim
from tests.test_ai_sim import exact_sim


@pytest.mark.parametrize("players", [2, 3, 4])
def test_aggressive_moves_are_legal_r6_r7(players: int) -> None:
    for game in range(20):
        rng = random.Random(game * 7 + players)
        deal = Deal.start(players, shuffled_deck(rng=rng), rng.randrange(players))
        sim = exact_sim(deal)
        while not deal.finished:
            cards, beat = styles.aggressive(sim)
            legal = {(tuple(sorted(c.index for c in m.cards)), m.beat) for m in deal.legal_moves()}
            assert (tuple(sorted(cards)), beat) in legal
            move = next(
                m
                for m in deal.legal_moves()
                if sorted(c.index for c in m.cards) == sorted(cards) and m.beat == beat
            )
            deal.apply(move)
            sim.play(cards, beat)
        assert sim.points == deal.points


def test_r7_aggressive_beats_whenever_it_can_with_its_cheapest_cover() -> None:
    """Spades trump, 6♥ led: with only trumps to cover, greedy keeps them (the trick is
    worth nothing) and the aggressive style beats, with 6♠ rather than A♠ (R5)."""
    sim = table_sim(["6H 8C 9C 7C", "AS 6S 7D 8D"], Suit.SPADES)
    sim.play((sim.hands[0][0],), None)
    assert policy.decide(sim)[1] is False
    cards, beat = styles.aggressive(sim)
    assert beat is True and cards == (sim.hands[1][1],)


def test_r6_aggressive_leads_its_richest_plain_cards() -> None:
    """Spades trump: A♥ 10♥ together (21 points), not the trump ace or a low card."""
    sim = table_sim(["AH 10H AS 6D", "7H 8H 6S 8D"], Suit.SPADES)
    cards, beat = styles.aggressive(sim)
    assert beat is None and sorted(cards) == sorted(sim.hands[0][:2])


def test_mix_compares_every_move_on_the_same_worlds() -> None:
    """With every world rough (mix=1), each move's value is the mean over the sampled
    worlds of that move followed by the mixed playout (our seat greedy, the other
    aggressive), the same worlds for every move; mix=0 is the plain greedy playout."""
    deal = Deal.start(2, shuffled_deck(seed=3), 1)
    seat = deal.turn
    assert seat is not None
    view = deal.view(seat)
    moves = canonical(deal.legal_moves())
    rough = StrongPlayer(4, worlds=6, mix=1.0, endgame="off").evaluate(view, moves)
    plain = StrongPlayer(4, worlds=6, endgame="off").evaluate(view, moves)
    assert rough != plain
    rng = decision_rng(4, view)
    sampler = Sampler(view, None)
    expected = [0.0] * len(moves)
    for _ in range(6):
        world = sampler(rng)
        rng.random()  # the style draw
        for i, m in enumerate(moves):
            sim: Sim = world.copy()
            sim.play(tuple(sorted(c.index for c in m.cards)), m.beat)
            styles.playout(sim, seat)
            expected[i] += utility(sim.points, seat, 1.0) / 6
    assert rough == pytest.approx(expected)
