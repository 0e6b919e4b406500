"""The fast playout model (engine/burkozel/ai/sim.py) must play exactly like engine.burkozel.deal.Deal."""

from __future__ import annotations

import random

import pytest

from engine.burkozel.ai.belief import likelihood, observations
from engine.burkozel.ai.players import all_worlds, safe_move
from engine.burkozel.ai.policy import random_move
from engine.burkozel.ai.sim import SUIT_INDEX, Sim, sample_world
from engine.burkozel.deal import Deal
from engine.cards import DECK, shuffled_deck


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


@pytest.mark.parametrize("players", [2, 3])
def test_the_real_world_explains_greedy_plays(players: int) -> None:
    """Belief weighting never rules out the truth when the others play the greedy policy."""
    checked = 0
    for game in range(15):
        deal = Deal.start(players, shuffled_deck(seed=f"belief{game}"), game % players)
        while not deal.finished:
            seat = deal.turn
            assert seat is not None
            view = deal.view(seat)
            obs = observations(view)
            if obs:
                assert all(o.seat != seat for o in obs)
                assert likelihood(exact_sim(deal), players, obs, 0.0) > 0.0
                checked += 1
            deal.apply(safe_move(view, deal.legal_moves()))
    assert checked > 100


def test_all_worlds_are_the_sampled_worlds() -> None:
    """Near the end of a two-player stock the enumerated worlds are exactly those sampled."""
    checked = 0
    for game in range(20):
        deal = Deal.start(2, shuffled_deck(seed=f"worlds{game}"), 1)
        while not deal.finished and not 0 < deal.stock_size <= 4:
            deal.apply(safe_move(deal.view(deal.turn or 0), deal.legal_moves()))
        if deal.finished:
            continue
        view = deal.view(deal.turn or 0)
        worlds = all_worlds(view, 300)
        assert worlds is not None
        keys = {(tuple(sorted(w.hands[1 - view.seat])), tuple(w.stock)) for w in worlds}
        assert len(keys) == len(worlds)
        real = exact_sim(deal)
        assert (tuple(sorted(real.hands[1 - view.seat])), tuple(real.stock)) in keys
        rng = random.Random(game)
        for _ in range(20):
            w = sample_world(view, rng)
            assert (tuple(sorted(w.hands[1 - view.seat])), tuple(w.stock)) in keys
        assert all_worlds(view, len(worlds) - 1) is None
        checked += 1
    assert checked >= 10
