"""The two-player endgame (stock empty, R10/R11) is solved exactly: minimax, not a best
reply to our own greedy policy.

The reference here is an independent brute force over the real rules
(``engine.burkozel.deal.Deal``: copy, push, legal moves), scoring a finished deal
lexicographically: the penalty edge first (R13), then the point margin (R12).
"""

from __future__ import annotations

import random

import pytest

from engine.burkozel.ai import StrongPlayer, canonical, make_player, safe_move
from engine.burkozel.ai.players import decision_rng, utility
from engine.burkozel.ai.sim import SUIT_INDEX, Sim, sample_world
from engine.burkozel.ai.solver import Solver, options
from engine.burkozel.deal import Action, Deal, penalties_for
from engine.cards import Card, Suit, shuffled_deck
from tests.support.sim import swapped_twin

Score = tuple[int, int]


def final_score(deal: Deal, me: int) -> Score:
    """(penalty edge, point margin) for ``me``: what a series counts, then points."""
    pens = penalties_for(deal.points)
    return pens[1 - me] - pens[me], deal.points[me] - deal.points[1 - me]


def brute_force(deal: Deal, me: int) -> Score:
    """Plain minimax over every legal move, no pruning and no memory."""
    if deal.finished:
        return final_score(deal, me)
    scores = []
    for move in deal.legal_actions():
        child = deal.copy()
        child.push(move)
        scores.append(brute_force(child, me))
    return max(scores) if deal.turn == me else min(scores)


def move_score(deal: Deal, move: Action, me: int) -> Score:
    child = deal.copy()
    child.push(move)
    return brute_force(child, me)


def endgame_position(seed: int) -> Deal | None:
    """A two-player deal played (mixed greedy and random moves) until the stock is empty,
    then a random number of moves more; ``None`` if that finished the deal."""
    rng = random.Random(seed)
    deal = Deal.start(2, shuffled_deck(rng=rng), rng.randrange(2))
    while deal.stock_size > 0:
        legal = deal.legal_actions()
        view = deal.view(deal.turn or 0)
        deal.apply(safe_move(view, legal) if rng.random() < 0.6 else rng.choice(legal))
    for _ in range(rng.randrange(4)):
        if deal.finished:
            return None
        deal.apply(rng.choice(deal.legal_actions()))
    return None if deal.finished else deal


def exact_sim(deal: Deal) -> Sim:
    seat = deal.turn
    assert seat is not None
    view = deal.view(seat)
    sim = object.__new__(Sim)
    sim.n = 2
    sim.hands = [[c.index for c in deal.hand(s)] for s in range(2)]
    sim.stock = []
    sim.trump = SUIT_INDEX[deal.trump]
    sim.points = list(deal.points)
    sim.leader = deal.leader
    sim.turn = seat
    sim.claimant = deal.claimant if deal.claimant is not None else deal.leader
    claim: tuple[int, ...] = ()
    pts = 0
    for play in view.table:
        pts += sum(c.points for c in play.cards)
        if play.declared_beat is not False and play.seat == sim.claimant:
            claim = tuple(c.index for c in play.cards)
    sim.claim = claim
    sim.table_pts = pts
    sim.k = len(view.table[0].cards) if view.table else 0
    sim.left = 1 if view.table else 0
    sim.last_winner = deal.leader
    return sim


POSITIONS = [d for d in (endgame_position(s) for s in range(60)) if d is not None][:24]


@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_r11_endgame_solver_matches_brute_force(index: int) -> None:
    deal = POSITIONS[index]
    me = deal.turn
    assert me is not None
    sim = exact_sim(deal)
    moves = options(sim)
    assert {(tuple(sorted(c.index for c in m.cards)), m.beat) for m in deal.legal_actions()} == {
        (tuple(sorted(cards)), beat) for cards, beat in moves
    }

    def value(s: Sim) -> float:
        return utility(s.points, me, 1.0)

    got = Solver(me, value).values(sim, moves)
    for (cards, beat), v in zip(moves, got, strict=True):
        move = next(
            m
            for m in deal.legal_actions()
            if tuple(sorted(c.index for c in m.cards)) == tuple(sorted(cards)) and m.beat == beat
        )
        edge, margin = move_score(deal, move, me)
        # The utility orders two-player outcomes exactly as (edge, margin) does.
        assert v == pytest.approx(edge + margin / 60.0)


@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_r11_hard_plays_a_minimax_move_with_the_stock_empty(index: int) -> None:
    deal = POSITIONS[index]
    me = deal.turn
    assert me is not None
    legal = deal.legal_actions()
    best = max(move_score(deal, m, me) for m in legal)
    chosen = make_player("hard", 3).choose(deal.view(me), legal)
    assert move_score(deal, chosen, me) == best


def test_r13_endgame_secures_the_tie_instead_of_hoping_for_a_greedy_reply() -> None:
    """A deal where greedy errs: clubs trump, 35-35; K♣ loses 39-81 to a perfect reply, 10♥ ties."""
    c = {code: Card.parse(code).index for code in ["6S", "AS", "10H", "KC", "9H", "AD", "QC", "AC"]}
    sim = object.__new__(Sim)
    sim.n = 2
    sim.hands = [[c["6S"], c["AS"], c["10H"], c["KC"]], [c["9H"], c["AD"], c["QC"], c["AC"]]]
    sim.stock = []
    sim.trump = SUIT_INDEX[Suit.CLUBS]
    sim.points = [35, 35]
    sim.leader = sim.turn = sim.claimant = sim.last_winner = 0
    sim.claim = ()
    sim.table_pts = sim.k = sim.left = 0

    def value(s: Sim) -> float:
        return utility(s.points, 0, 1.0)

    moves = options(sim)
    values = dict(zip(moves, Solver(0, value).values(sim, moves), strict=True))
    assert values[((c["10H"],), None)] == 0.0  # 60-60: nobody is penalised
    assert values[((c["KC"],), None)] < 0.0
    assert max(values.values()) == 0.0


def near_end_position(seed: int) -> Deal | None:
    """A two-player deal played (mixed greedy and random moves) until 4 or fewer stock
    cards are left, the stock not yet empty; ``None`` if that never happens."""
    rng = random.Random(seed)
    deal = Deal.start(2, shuffled_deck(rng=rng), rng.randrange(2))
    while deal.stock_size > 4 or (deal.stock_size and rng.random() < 0.5):
        legal = deal.legal_actions()
        view = deal.view(deal.turn or 0)
        deal.apply(safe_move(view, legal) if rng.random() < 0.6 else rng.choice(legal))
    return deal if deal.stock_size and not deal.finished else None


NEAR_END = [d for d in (near_end_position(s) for s in range(40)) if d is not None][:10]


def sampled_exact(seed: int) -> StrongPlayer:
    return StrongPlayer(seed, worlds=8, exact_worlds=0, solve_stock=4, solve_samples=3)


@pytest.mark.parametrize("index", range(len(NEAR_END)))
def test_r10_near_the_end_of_the_stock_sampled_worlds_are_solved_exactly(index: int) -> None:
    """With a few stock cards left, each sampled world is searched to the end (minimax
    with the world's draw order), not finished by greedy playouts."""
    deal = NEAR_END[index]
    me = deal.turn
    assert me is not None
    view = deal.view(me)
    moves = canonical(deal.legal_actions())
    rng = decision_rng(5, view)
    worlds = [sample_world(view, rng) for _ in range(3)]

    def value(s: Sim) -> float:
        return utility(s.points, me, 1.0)

    options_ = [(tuple(sorted(c.index for c in m.cards)), m.beat) for m in moves]
    expected = [0.0] * len(moves)
    for world in worlds:
        for i, v in enumerate(Solver(me, value).values(world, options_)):
            expected[i] += v / len(worlds)
    assert sampled_exact(5).evaluate(view, moves) == pytest.approx(expected)


def test_r10_sampled_exact_decisions_ignore_hidden_cards() -> None:
    rng = random.Random(11)
    checked = 0
    for deal in NEAR_END:
        seat = deal.turn
        assert seat is not None
        twin = swapped_twin(deal, seat, rng)
        if twin is None:
            continue
        a = sampled_exact(2).choose(deal.view(seat), deal.legal_actions())
        b = sampled_exact(2).choose(twin.view(seat), twin.legal_actions())
        assert (sorted(a.cards), a.beat) == (sorted(b.cards), b.beat)
        checked += 1
    assert checked >= 5
