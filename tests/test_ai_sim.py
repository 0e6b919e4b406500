"""The fast playout model (engine/ai/sim.py) must play exactly like engine.deal.Deal."""

from __future__ import annotations

import random

import pytest

from engine.ai.policy import random_move
from engine.ai.sim import SUIT_INDEX, Sim, sample_world
from engine.cards import DECK, shuffled_deck
from engine.deal import Deal


def exact_sim(deal: Deal) -> Sim:
    """The Sim of a real deal, hidden cards included (tests only)."""
    seat = deal.turn
    assert seat is not None
    sim = sample_world(deal.view(seat), random.Random(0))
    sim.hands = [[c.index for c in deal.hand(s)] for s in range(deal.players)]
    sim.stock = [c.index for c in reversed(deal._stock)]
    return sim


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sim_plays_like_deal(players: int) -> None:
    for game in range(30):
        rng = random.Random(game * 7 + players)
        deal = Deal.start(players, shuffled_deck(rng=rng), rng.randrange(players))
        sim = exact_sim(deal)
        while not deal.finished:
            assert sim.turn == deal.turn
            legal = {(tuple(sorted(c.index for c in m.cards)), m.beat) for m in deal.legal_moves()}
            cards, beat = random_move(sim, rng)
            assert (tuple(sorted(cards)), beat) in legal
            move = next(
                m
                for m in deal.legal_moves()
                if sorted(c.index for c in m.cards) == sorted(cards) and m.beat == beat
            )
            deal.apply(move)
            sim.play(cards, beat)
            assert sim.points == deal.points
            assert sorted(map(sorted, sim.hands)) == sorted(
                sorted(c.index for c in deal.hand(s)) for s in range(players)
            )
            assert len(sim.stock) == deal.stock_size
        assert sim.turn == -1
        assert sim.last_winner == deal.result().last_trick


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sampled_world_is_consistent_with_the_view(players: int) -> None:
    rng = random.Random(players)
    for game in range(20):
        deal = Deal.start(players, shuffled_deck(seed=game), game % players)
        steps = rng.randrange(25)
        while not deal.finished and steps:
            deal.apply(rng.choice(deal.legal_moves()))
            steps -= 1
        if deal.finished:
            continue
        seat = deal.turn
        assert seat is not None
        view = deal.view(seat)
        world = sample_world(view, rng)
        on_table = [c.index for p in view.table for c in p.cards]
        won = 120 - sum(view.points or ()) - sum(DECK[i].points for i in on_table)
        everything = [c for h in world.hands for c in h] + world.stock
        # No card lost or duplicated: hands + stock are exactly the cards not yet played.
        assert sorted(everything + [c.index for c in view.seen_cards]) == list(range(36))
        assert sum(DECK[i].points for i in everything) == won
        assert sorted(world.hands[seat]) == sorted(c.index for c in view.hand)
        assert [len(h) for h in world.hands] == list(view.hand_sizes)
        assert len(world.stock) == view.stock_size
        assert world.trump == SUIT_INDEX[view.trump]
        tc = view.trump_card.index
        if view.trump_card_in_stock:
            assert world.stock[0] == tc  # the bottom card, drawn last (R3)
        elif view.trump_card not in view.seen_cards:
            assert view.trump_card_drawn_by is not None
            assert tc in world.hands[view.trump_card_drawn_by]
