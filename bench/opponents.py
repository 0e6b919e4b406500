"""Benchmark-only opponents (issue 13): styles of play other than our greedy policy, and a
plain determinized Monte Carlo baseline. None of these is a shipped level.

The computer players must be strong against people, who do not play like our greedy
policy; these opponents let ``bench/ai.py`` measure every level against several styles:

- ``cautious``: keeps its trumps: beats with plain cards whenever it can, but spends a
  trump only on a trick worth 10+ points (or once the stock is empty); always with the
  cheapest cover; leads its lowest card.
- ``aggressive``: beats whenever it can (cheapest cover) and leads its strongest plain
  cards (several of a suit when it can) to cash points early.
- ``randomish``: our greedy policy with a random legal move 35% of the time.
- ``mc:W`` / ``mct:MS``: plain determinized Monte Carlo, the search an outsider would
  write first: W uniformly sampled worlds per decision (or as many as fit in MS
  milliseconds), every legal move played in each and finished with the greedy
  rollout policy, best mean utility wins. No belief model, no pruning, no endgame
  solver.

Every opponent decides from the seat's view and the legal moves only.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from engine.ai import GreedyPlayer, Player, canonical, policy
from engine.ai.players import decision_rng, utility
from engine.ai.sim import sample_world
from engine.cards import Suit
from engine.deal import Move, PlayerView


def _cost(move: Move, trump: Suit) -> tuple[int, int, int]:
    """What a set of cards is worth keeping: trumps first, then points, then rank."""
    return (
        sum(c.suit is trump for c in move.cards),
        sum(c.points for c in move.cards),
        sum(int(c.rank) for c in move.cards),
    )


def _table_points(view: PlayerView) -> int:
    return sum(c.points for play in view.table for c in play.cards)


class CautiousPlayer:
    """Saves its trumps for tricks worth 10 points or more; leads low."""

    def __init__(self, seed: int = 0, threshold: int = 10) -> None:
        self.seed = seed
        self.threshold = threshold

    def choose(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        moves = canonical(legal)
        trump = view.trump
        if moves[0].is_lead:
            singles = [m for m in moves if len(m.cards) == 1] or moves
            return min(singles, key=lambda m: _cost(m, trump))
        beats = [m for m in moves if m.beat]
        if beats:
            cheapest = min(beats, key=lambda m: _cost(m, trump))
            spends_trump = _cost(cheapest, trump)[0] > 0
            worth_it = _table_points(view) >= self.threshold or view.stock_size == 0
            if not spends_trump or worth_it:
                return cheapest
        return min((m for m in moves if not m.beat), key=lambda m: _cost(m, trump))


class AggressivePlayer:
    """Beats whenever it can and leads high to cash points while it has the lead."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        moves = canonical(legal)
        trump = view.trump
        if moves[0].is_lead:
            plain = [m for m in moves if all(c.suit is not trump for c in m.cards)] or moves
            return max(plain, key=lambda m: (sum(c.points for c in m.cards), len(m.cards)))
        beats = [m for m in moves if m.beat]
        if beats:
            return min(beats, key=lambda m: _cost(m, trump))
        return min(moves, key=lambda m: _cost(m, trump))


class PlainMonteCarlo:
    """Plain determinized Monte Carlo with greedy rollouts (the baseline of issue 13)."""

    def __init__(self, seed: int = 0, worlds: int = 100, time_limit: float | None = None) -> None:
        self.seed = seed
        self.worlds = worlds
        self.time_limit = time_limit

    def choose(self, view: PlayerView, legal: Sequence[Move]) -> Move:
        moves = canonical(legal)
        if len(moves) == 1:
            return moves[0]
        rng = decision_rng(self.seed, view)
        options = [(tuple(sorted(c.index for c in m.cards)), m.beat) for m in moves]
        totals = [0.0] * len(moves)
        start = time.perf_counter()
        done = 0
        while True:
            world = sample_world(view, rng)
            for i, option in enumerate(options):
                sim = world.copy()
                sim.play(*option)
                policy.playout(sim)
                totals[i] += utility(sim.points, view.seat, 1.0)
            done += 1
            if self.time_limit is not None:
                if time.perf_counter() - start >= self.time_limit:
                    break
            elif done >= self.worlds:
                break
        return moves[max(range(len(moves)), key=lambda i: (totals[i], -i))]


STYLES = ("greedy", "cautious", "aggressive", "randomish")


def make_opponent(spec: str, seed: int) -> Player | None:
    """The benchmark opponent named by ``spec``, or ``None`` if it names none."""
    if spec == "greedy":
        return GreedyPlayer(seed)
    if spec == "cautious":
        return CautiousPlayer(seed)
    if spec == "aggressive":
        return AggressivePlayer(seed)
    if spec == "randomish":
        return GreedyPlayer(seed, noise=0.35)
    if spec.startswith("mc:"):
        return PlainMonteCarlo(seed, worlds=int(spec.split(":")[1]))
    if spec.startswith("mct:"):
        return PlainMonteCarlo(seed, time_limit=float(spec.split(":")[1]) / 1000.0)
    return None
