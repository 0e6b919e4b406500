"""The fast playout model (engine/burkozel/ai/sim.py) must play exactly like engine.burkozel.deal.Deal."""

from __future__ import annotations

import random

import pytest

from engine.burkozel.ai import policy
from engine.burkozel.ai.belief import likelihood, observations
from engine.burkozel.ai.players import all_worlds, safe_move
from engine.burkozel.ai.policy import random_move
from engine.burkozel.ai.sim import SUIT_INDEX, Sim, sample_world
from engine.burkozel.deal import Deal
from engine.cards import DECK, Card, shuffled_deck
from tests.support.sim import exact_sim, logged_playout


@pytest.mark.parametrize("players", [2, 3, 4])
def test_sim_plays_like_deal(players: int) -> None:
    for game in range(30):
        rng = random.Random(game * 7 + players)
        deal = Deal.start(players, shuffled_deck(rng=rng), rng.randrange(players))
        sim = exact_sim(deal)
        while not deal.finished:
            assert sim.turn == deal.turn
            legal = {
                (tuple(sorted(c.index for c in m.cards)), m.beat) for m in deal.legal_actions()
            }
            cards, beat = random_move(sim, rng)
            assert (tuple(sorted(cards)), beat) in legal
            move = next(
                m
                for m in deal.legal_actions()
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
            deal.apply(rng.choice(deal.legal_actions()))
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
            deal.apply(safe_move(view, deal.legal_actions()))
    assert checked > 100


def test_all_worlds_are_the_sampled_worlds() -> None:
    """Near the end of a two-player stock the enumerated worlds are exactly those sampled."""
    checked = 0
    for game in range(20):
        deal = Deal.start(2, shuffled_deck(seed=f"worlds{game}"), 1)
        while not deal.finished and not 0 < deal.stock_size <= 4:
            deal.apply(safe_move(deal.view(deal.turn or 0), deal.legal_actions()))
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


def lumpy_deck(rng: random.Random) -> tuple[Card, ...]:
    """A shuffled deck, or one close to rank order (hands hold cards of equal value in
    several suits: the ties the policy breaks by hand order), or close to suit order
    (groups of worthless cards to lead, answers of several cards)."""
    kind = rng.randrange(3)
    if not kind:
        return tuple(shuffled_deck(rng=rng))
    deck = sorted(DECK, key=lambda c: (c.rank, c.index)) if kind == 1 else list(DECK)
    for _ in range(rng.randrange(30)):
        i, j = rng.randrange(36), rng.randrange(36)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_fast_playout_makes_the_moves_of_the_readable_steps(players: int) -> None:
    """policy.playout (inlined, on tables) plays card for card and draw for draw what
    policy.playout_steps plays through lead(), answer() and Sim.play, from any position
    (mid-trick too), with and without noise: ties between equal values go to the first
    card in hand order in both (R5-R10 through Sim.play, see test_sim_plays_like_deal)."""
    for game in range(120):
        rng = random.Random(f"fast-playout-{players}-{game}")
        deck = lumpy_deck(rng)
        deal = Deal.start(players, deck, rng.randrange(players))
        for _ in range(rng.randrange(32)):
            if deal.finished:
                break
            deal.push(rng.choice(deal.legal_actions()))
        if deal.finished:
            continue
        world = sample_world(deal.view(deal.turn or 0), rng)
        noise = (0.0, 0.0, 0.3)[game % 3]
        seed = rng.randrange(2**32)
        fast = logged_playout(world, lambda s: policy.playout(s, random.Random(seed), noise))
        steps = logged_playout(world, lambda s: policy.playout_steps(s, random.Random(seed), noise))
        assert fast == steps, (game, noise)
        assert fast[1][Sim.__slots__.index("turn")] == -1


def test_the_fast_playout_plays_odd_positions_like_the_steps() -> None:
    """The same from a lead with hands of unequal sizes, which no deal reaches (R10 keeps
    them equal): R6's lead limit below the leader's hand because another hand is short
    (groups of worthless cards cut to two), and draws of several rounds after it (R10).
    The stock then refills every hand and leaves a multiple of the table, so the rest of
    the playout is a regular one."""
    for game in range(600):
        rng = random.Random(f"odd-{game}")
        players = rng.choice((2, 3, 4))
        deck = list(lumpy_deck(rng))
        sizes = [rng.randint(1, 6) for _ in range(players)]
        stock = 9 * players - sum(sizes) + players * rng.randint(0, (36 - 9 * players) // players)
        world = object.__new__(Sim)
        world.n = players
        world.hands = [[deck.pop().index for _ in range(size)] for size in sizes]
        world.stock = [deck.pop().index for _ in range(stock)]
        world.trump = rng.randrange(4)
        world.points = [0] * players
        world.leader = world.turn = world.claimant = world.last_winner = rng.randrange(players)
        world.claim, world.table_pts, world.k, world.left = (), 0, 0, 0
        seed = rng.randrange(2**32)
        noise = (0.0, 0.0, 0.3)[game % 3]
        fast = logged_playout(world, lambda s: policy.playout(s, random.Random(seed), noise))
        steps = logged_playout(world, lambda s: policy.playout_steps(s, random.Random(seed), noise))
        assert fast == steps, game


def test_fast_answers_are_the_readable_ones() -> None:
    """_answer_options (one card inlined; two and three cards without combinations() and
    covers()) equals _combo_options, every set of cards tried with R7 covers, in values
    and in which of equal sets wins, on hands full of equal cards too."""
    rng = random.Random(30)
    for _ in range(20000):
        k = rng.choice((1, 2, 2, 3))
        if rng.random() < 0.5:
            pool = [c for c in range(36) if c % 9 < 4 or c % 9 == 8]  # 6-9 and aces
        else:
            pool = list(range(36))
        cards = rng.sample(pool, rng.randint(2 * k, min(6 + k, len(pool))))
        hand, claim = cards[k:], tuple(cards[:k])
        args = (hand, rng.randrange(4), claim, rng.randrange(70), rng.randrange(3))
        players = rng.choice((2, 3, 4))
        assert policy._answer_options(*args, players) == policy._combo_options(*args, players)


@pytest.mark.parametrize("trump", range(4))
def test_lead_groups_are_those_of_lead(trump: int) -> None:
    """The table of groups (by the mask of worthless plain cards) gives what lead()
    leads from a hand of those cards, for every such hand and lead limit (R6)."""
    zero = [c for c in range(36) if policy.PLAIN_ZERO[trump][c]]
    assert len(zero) == 12
    # playout() spots them as the first 12 in the lead order.
    assert sorted(policy.LEAD_ORDER[trump][c] for c in zero) == list(range(12))
    for bits in range(1 << 12):
        hand = [c for i, c in enumerate(zero) if bits >> i & 1]
        mask = sum(1 << c for c in hand)
        for limit in (1, 2, 3):
            group = policy._lead_group(mask, limit)
            if len(hand) < 2:
                continue
            led = policy.lead(hand, trump, limit, 1)
            assert group == (led if len(led) >= 2 else ()), (hand, limit)
