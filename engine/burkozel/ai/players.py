"""Computer players: random, greedy and determinized Monte Carlo ("strong").

Every player decides from the seat's :class:`~engine.burkozel.deal.View` alone, and its
randomness is seeded from its own seed plus that view, so a decision is a pure
function of (seed, view): it cannot depend on cards the seat cannot see, it is the
same after a bot restart, and it does not depend on how many decisions came before.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from itertools import combinations, permutations
from statistics import fmean, pstdev
from typing import Protocol

from engine.burkozel.ai import informed, policy
from engine.burkozel.ai.belief import PublicSampler, Sampler, likelihood
from engine.burkozel.ai.house import HouseSearch, house_move
from engine.burkozel.ai.sim import (
    SUIT_INDEX,
    Sim,
    build_world,
    sample_world,
    unseen_for,
    view_table,
)
from engine.burkozel.ai.solver import Solver
from engine.burkozel.ai.sure import move_key, sure_win
from engine.burkozel.deal import Action, View, penalties_for
from engine.burkozel.rules import BASE_RULES
from engine.game import COMPUTER_LEVELS


class Player(Protocol):
    def choose(self, view: View, legal: Sequence[Action]) -> Action: ...


Option = tuple[tuple[int, ...], bool | None]


def canonical(legal: Sequence[Action]) -> list[Action]:
    """``legal`` in an order that depends only on the moves, not on hidden hand order."""
    if not legal:
        raise ValueError("no legal moves to choose from")
    return sorted(legal, key=move_key)


def _option(move: Action) -> Option:
    return tuple(sorted(c.index for c in move.cards)), move.beat


def _find(legal: Sequence[Action], cards: tuple[int, ...], beat: bool | None) -> Action | None:
    want = (tuple(sorted(cards)), beat)
    for move in legal:
        if _option(move) == want:
            return move
    return None


def view_key(view: View) -> str:
    """A stable text of everything that can matter in ``view`` (seeds per-decision RNGs)."""
    table = ";".join(
        f"{p.seat}:{','.join(c.code() for c in p.cards)}:{p.declared_beat}" for p in view.table
    )
    return "|".join(
        (
            str(view.seat),
            ",".join(sorted(c.code() for c in view.hand)),
            ",".join(c.code() for c in view.seen_cards),
            table,
            str(view.hand_sizes),
            view.trump_card.code(),
            str(view.trump_card_drawn_by),
            str(view.stock_size),
            str(view.points),
            str(view.turn),
            str(view.leader),
        )
    )


def decision_rng(seed: int, view: View) -> random.Random:
    # random.Random(str) hashes the text with SHA-512: stable across processes,
    # unlike hash(), which Python salts per run.
    return random.Random(f"{seed}#{view_key(view)}")


def greedy_option(view: View) -> Option:
    """The greedy policy's choice from a view, as (card indices, beat)."""
    hand = [c.index for c in view.hand]
    trump = SUIT_INDEX[view.trump]
    claim, table_pts, _k, left = view_table(view)
    if not view.table:
        others = [size for s, size in enumerate(view.hand_sizes) if s != view.seat]
        limit = min(3, min(others), len(hand))
        return policy.lead(hand, trump, limit, view.stock_size), None
    return policy.answer(hand, trump, claim, table_pts, left - 1, view.players)


def safe_move(view: View, legal: Sequence[Action]) -> Action:
    """A deterministic, cheap move (the greedy policy): for a seat whose player is away."""
    if view.rules != BASE_RULES or view.turn != view.seat:
        return house_move(view, legal)  # Part B/C: the rules-complete greedy rule
    cards, beat = greedy_option(view)
    found = _find(legal, cards, beat)
    return found if found is not None else canonical(legal)[0]


class RandomPlayer:
    """Any legal move, uniformly, except that a sure win (``engine.burkozel.ai.sure``) is taken."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        sure = sure_win(view, legal)
        if sure is not None:
            return sure
        return decision_rng(self.seed, view).choice(canonical(legal))


class GreedyPlayer:
    """The rule-based policy; with ``noise`` it plays a random legal move that often; a
    sure win (``engine.burkozel.ai.sure``) always."""

    def __init__(self, seed: int = 0, noise: float = 0.0) -> None:
        self.seed = seed
        self.noise = noise

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        sure = sure_win(view, legal)
        if sure is not None:
            return sure
        if self.noise:
            rng = decision_rng(self.seed, view)
            if rng.random() < self.noise:
                return rng.choice(canonical(legal))
        return safe_move(view, legal)


def utility(points: Sequence[int], seat: int, margin_weight: float) -> float:
    """How good a finished deal is for ``seat``: penalty edge plus a share of point margin.

    Penalties (R13) are what a series counts; the point margin breaks ties between
    outcomes with equal penalties and rewards winning big (fewer points for the rivals
    means 4 or 6 instead of 2 for them).
    """
    pens = penalties_for(points)
    n = len(points)
    others = [p for s, p in enumerate(points) if s != seat]
    edge = sum(pens) / (n - 1) - pens[seat] * n / (n - 1)
    return edge + margin_weight * (points[seat] - max(others)) / 60.0


class StrongPlayer:
    """Determinized Monte Carlo: sample worlds consistent with the view, play each legal
    move in every world and finish the deal with the greedy policy; pick the best mean.

    In a two-player deal with an empty stock nothing is hidden any more, so the rest of
    the deal is searched exactly instead (``endgame``: "minimax" = against a perfect
    opponent, see :mod:`engine.burkozel.ai.solver`; "off" = keep sampling).

    ``rollout``: "greedy" finishes each world with our greedy policy for every seat;
    "informed" with :mod:`engine.burkozel.ai.informed`, which plays the world's open cards.

    ``solve_stock``/``solve_samples``: two players, at most ``solve_stock`` cards left
    in the stock: search ``solve_samples`` sampled worlds exactly (each to the end with
    its own draw order, :class:`~engine.burkozel.ai.solver.Solver`) instead of playouts; the
    greedy playouts misjudge the last tricks, where one card decides the deal.

    ``infer``: weight the sampled worlds by what the other seats' open answers reveal,
    without assuming how they play (:func:`engine.burkozel.ai.belief.public_weight`: a seat
    that discarded probably could not beat, ...), each factor raised to ``infer``
    (0 = off, uniform worlds). Used instead of ``belief`` when set. With
    ``infer_history`` > 0 also older answers of the deal, rebuilt from the open cards,
    after which that seat drew at most ``infer_history`` cards (0: the last trick only).

    ``halving``: instead of ``prune``, successive halving over the moves with the same
    number of playouts (:meth:`_halving`): clear decisions spend few worlds on their
    bad moves, close ones compare the last two moves on the most worlds. Not with
    ``time_limit``: its rounds split a budget known in advance.

    ``worlds`` bounds the samples per decision; ``time_limit`` (seconds), when set, stops
    earlier, which makes decisions depend on machine speed; leave it ``None`` when
    decisions must be reproducible.
    """

    def __init__(
        self,
        seed: int = 0,
        worlds: int = 40,
        time_limit: float | None = None,
        margin_weight: float = 1.0,
        rollout_noise: float = 0.0,
        endgame: str = "minimax",
        belief: float | None = None,
        exact_worlds: int = 0,
        prune: float = 0.0,
        max_growth: int = 4,
        rollout: str = "greedy",
        solve_stock: int = 0,
        solve_samples: int = 0,
        infer: float = 0.0,
        infer_history: int = 0,
        halving: bool = False,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.seed = seed
        self.worlds = worlds
        self.time_limit = time_limit
        self.margin_weight = margin_weight
        self.rollout_noise = rollout_noise
        self.endgame = endgame
        self.belief = belief
        self.exact_worlds = exact_worlds
        self.prune = prune
        self.max_growth = max_growth
        self.rollout = rollout
        self.solve_stock = solve_stock
        self.solve_samples = solve_samples
        self.infer = infer
        self.infer_history = infer_history
        self.halving = halving
        self.clock = clock

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        sure = sure_win(view, legal)
        if sure is not None:
            return sure
        if view.rules != BASE_RULES or view.turn != view.seat:
            # The fast simulator models the base game only: search with the switches on.
            worlds = min(self.worlds, max(HOUSE_WORLDS[0], min(HOUSE_WORLDS[1], self.worlds // 15)))
            search = HouseSearch(self.seed, worlds, self.margin_weight)
            return search.choose(view, legal, decision_rng(self.seed, view))
        moves = canonical(legal)
        if len(moves) == 1:
            return moves[0]
        scores = self.evaluate(view, moves)
        best = max(range(len(moves)), key=lambda i: (scores[i], -i))
        return moves[best]

    def evaluate(self, view: View, moves: Sequence[Action]) -> list[float]:
        """Mean utility of each move over the same sampled worlds."""
        rng = decision_rng(self.seed, view)
        if view.players == 2 and view.stock_size == 0 and self.endgame != "off":
            return self.solve_endgame(view, moves, rng)
        if view.players == 2 and self.endgame != "off":
            worlds = all_worlds(view, self.exact_worlds)
            if worlds is not None:
                return self.solve_worlds(view, moves, worlds)
            if self.solve_samples and view.stock_size <= self.solve_stock:
                draw = self._sampler(view)
                sampled = [draw(rng) for _ in range(self.solve_samples)]
                return self.solve_worlds(view, moves, sampled)
        options = [_option(m) for m in moves]
        values: list[list[float]] = [[] for _ in options]
        active = list(range(len(options)))
        dropped: dict[int, float] = {}
        start = self.clock()
        seat = view.seat
        sampler = self._sampler(view)
        # Without pruning: ``worlds`` worlds for every move. With it, the same number of
        # playouts, but moves that are clearly worse than the leader on the worlds seen
        # so far (paired comparison) stop being played, and the rest get more worlds.
        budget = self.worlds * len(options)
        if self.halving and self.time_limit is None:
            return self._halving(view, options, sampler, rng, budget)
        spent = 0
        done = 0
        while spent < budget and len(active) > 1 and done < self.worlds * self.max_growth:
            self._play_world(sampler(rng), options, active, values, rng, seat)
            spent += len(active)
            done += 1
            if self.time_limit is not None and self.clock() - start > self.time_limit:
                break
            if self.prune and done >= 32 and done % 16 == 0:
                active = self._prune(values, active, dropped)
        scores = [fmean(v) if v else 0.0 for v in values]
        for i, mean in dropped.items():
            scores[i] = mean - 1000.0
        return scores

    def _play_world(
        self,
        world: Sim,
        options: list[Option],
        active: list[int],
        values: list[list[float]],
        rng: random.Random,
        seat: int,
    ) -> None:
        """Each move still in (``active``) played on a copy of ``world`` and played out;
        its utility for ``seat`` added to that move's ``values``."""
        for i in active:
            sim = world.copy()
            sim.play(*options[i])
            if self.rollout == "informed":
                informed.playout(sim)
            else:
                policy.playout(sim, rng, self.rollout_noise)
            values[i].append(utility(sim.points, seat, self.margin_weight))

    def _halving(
        self,
        view: View,
        options: list[Option],
        sampler: Callable[[random.Random], Sim],
        rng: random.Random,
        budget: int,
    ) -> list[float]:
        """Successive halving at the same number of playouts: ceil(log2(moves)) rounds
        with an equal share of the budget each; every round plays the moves still in on
        new worlds (the same worlds for all of them) and keeps the better half by their
        mean over all their worlds so far. Clear decisions drop their bad moves after a
        few worlds; the last two moves are compared on the most worlds."""
        seat = view.seat
        values: list[list[float]] = [[] for _ in options]
        active = list(range(len(options)))
        rounds = max(1, math.ceil(math.log2(len(options))))
        dropped: dict[int, float] = {}
        for r in range(rounds):
            count = max(1, budget // rounds // len(active))
            for _ in range(count):
                self._play_world(sampler(rng), options, active, values, rng, seat)
            if r == rounds - 1 or len(active) <= 1:
                break
            ranked = sorted(active, key=lambda i: (-fmean(values[i]), i))
            keep = (len(ranked) + 1) // 2
            for i in ranked[keep:]:
                dropped[i] = fmean(values[i]) - 1000.0 * (rounds - r)
            active = sorted(ranked[:keep])
        scores = [fmean(v) if v else 0.0 for v in values]
        for i, mean in dropped.items():
            scores[i] = mean
        return scores

    def _sampler(self, view: View) -> Callable[[random.Random], Sim]:
        if self.infer:
            return PublicSampler(view, self.infer, history=self.infer_history)
        return Sampler(view, self.belief)

    def _prune(
        self, values: list[list[float]], active: list[int], dropped: dict[int, float]
    ) -> list[int]:
        """Drop the moves whose paired difference to the leader is significantly negative."""
        means = {i: fmean(values[i]) for i in active}
        leader = max(active, key=lambda i: (means[i], -i))
        lead_vals = values[leader]
        keep = []
        for i in active:
            if i != leader:
                diffs = [a - b for a, b in zip(values[i], lead_vals, strict=True)]
                spread = pstdev(diffs) / math.sqrt(len(diffs))
                if fmean(diffs) + self.prune * spread + 1e-9 < 0.0:
                    dropped[i] = means[i]
                    continue
            keep.append(i)
        return keep

    def solve_worlds(self, view: View, moves: Sequence[Action], worlds: list[Sim]) -> list[float]:
        """Few worlds left (the stock nearly gone): solve each one exactly, weighted by
        how well it explains the other seat's plays."""
        obs = Sampler(view, self.belief).obs
        eps = self.belief if self.belief is not None else 1.0
        public = PublicSampler(view, self.infer, history=self.infer_history)
        options = [_option(m) for m in moves]
        totals = [0.0] * len(moves)
        mass = 0.0
        for world in worlds:
            w = likelihood(world, view.players, obs, eps) if obs else 1.0
            w *= public.weight(world)
            if w <= 0.0:
                continue
            mass += w
            values = Solver(view.seat, self._value(view.seat)).values(world, options)
            for i, v in enumerate(values):
                totals[i] += w * v
        return [t / mass for t in totals] if mass else totals

    def solve_endgame(self, view: View, moves: Sequence[Action], rng: random.Random) -> list[float]:
        """Two players, empty stock: the only world consistent with the view, solved
        exactly against a perfect opponent (minimax), not against our greedy policy."""
        world = sample_world(view, rng)
        solver = Solver(view.seat, self._value(view.seat))
        return solver.values(world, [_option(m) for m in moves])

    def _value(self, seat: int) -> Callable[[Sim], float]:
        weight = self.margin_weight

        def value(sim: Sim) -> float:
            return utility(sim.points, seat, weight)

        return value


def all_worlds(view: View, cap: int) -> list[Sim] | None:
    """Every world consistent with a two-player ``view``, if there are at most ``cap``."""
    if cap <= 0:
        return None
    unseen, known = unseen_for(view)
    other = 1 - view.seat
    need = view.hand_sizes[other] - len(known.get(other, ()))
    rest = len(unseen) - need
    if math.comb(len(unseen), need) * math.factorial(rest) > cap:
        return None
    worlds = []
    for hand in combinations(unseen, need):
        stock = [c for c in unseen if c not in hand]
        for order in permutations(stock):
            worlds.append(build_world(view, list(hand) + list(order), known))
    return worlds


LEVELS = COMPUTER_LEVELS
# Budgets measured with bench/ai.py (see bench/RESULTS-ai.md): hard stays under 1 s per
# move (p95) on one core; normal is an order of magnitude cheaper and weaker.
NORMAL_WORLDS = 20
HARD_WORLDS = 300
# Inference from the others' open plays (belief.py) assumes they play our greedy
# policy; against anyone else it only costs time (at equal time against a
# plain Monte Carlo search it was no better, and it takes ~30% of hard's time), so the
# levels sample worlds uniformly. ``StrongPlayer(belief=eps)`` still offers it.
BELIEF: float | None = None
EXACT_WORLDS = 12  # two players, at most this many worlds left: solve each exactly
# ``StrongPlayer(solve_stock=4, solve_samples=4)`` (sampled worlds solved exactly with
# 4 or fewer stock cards left) is not in the levels: +4.4 points of deal wins against
# the plain Monte Carlo baseline at 100 worlds, but at hard's full budget no better
# against it (53.7% on 300 decks) and 1.4 ± 2.1 points worse against greedy on 293
# paired decks (bench/RESULTS-ai.md).
# ``StrongPlayer(infer=1.0)`` (worlds weighted by what the other seat's open answers
# reveal, no model of its style; ``infer_history=3`` adds older answers from the deal
# rebuilt from the open cards) is not in the levels either: at 100 worlds against the
# plain Monte Carlo baseline within noise of the level on paired decks, and the
# history costs ~25% more time (bench/RESULTS-ai.md).
# ``StrongPlayer(halving=True)`` (successive halving over the root moves instead of the
# z-test pruning, same playouts) is not in the levels: against mc:300 at equal mean
# time +5.6 points of deal wins on decks 1000-1079 and -5.6 on 1080-1159, ±0.0 ± 5.0
# over the 160 paired decks (bench/RESULTS-ai.md).
PRUNE_Z = 2.5  # drop a move once it trails the leader by this many standard errors
# Worlds per decision under house rules (Part B/C), where playouts run on real Deal
# positions and cost far more than the fast simulator's: worlds/15 within these bounds
# (normal 6, hard 20; see bench/RESULTS-ai.md).
HOUSE_WORLDS = (6, 20)


def strong_player(seed: int, worlds: int) -> StrongPlayer:
    """The Monte Carlo player as the levels configure it, with ``worlds`` per decision."""
    return StrongPlayer(
        seed,
        worlds=worlds,
        belief=BELIEF,
        exact_worlds=EXACT_WORLDS,
        prune=PRUNE_Z,
    )


def make_player(level: str, seed: int) -> Player:
    """A computer player for a difficulty level (see ``bench/ai.py`` for measurements)."""
    if level == "easy":
        return GreedyPlayer(seed, noise=0.25)
    if level == "normal":
        return strong_player(seed, NORMAL_WORLDS)
    if level == "hard":
        return strong_player(seed, HARD_WORLDS)
    if level == "random":
        return RandomPlayer(seed)
    if level == "greedy":
        return GreedyPlayer(seed)
    raise ValueError(f"unknown level {level!r} (choose {', '.join(LEVELS)})")
