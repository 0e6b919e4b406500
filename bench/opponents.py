"""Benchmark-only opponents: styles of play other than our greedy policy, and a
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

Every opponent decides from the seat's view and the legal moves only, except two
measuring sticks that are not players: they are handed the real deal, to show what
the hidden cards are worth (bench/RESULTS-ai.md):

- ``peek`` / ``peek:K`` / ``peek:K:S``: the ``hard`` level seeing all (or K) cards of
  each other hand (with S: only once at most S cards are left in the stock); it still
  samples the rest and the stock's order;
- ``oracle``: sees every card and the stock's order, and plays each move out greedily
  for every seat in that one world.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from engine.burkozel.ai import GreedyPlayer, Player, canonical, policy
from engine.burkozel.ai.players import (
    HARD_WORLDS,
    StrongPlayer,
    decision_rng,
    strong_player,
    utility,
)
from engine.burkozel.ai.sim import Sim, build_world, sample_world, unseen_for
from engine.burkozel.deal import Action, Deal, View
from engine.cards import Suit


def _cost(move: Action, trump: Suit) -> tuple[int, int, int]:
    """What a set of cards is worth keeping: trumps first, then points, then rank."""
    return (
        sum(c.suit is trump for c in move.cards),
        sum(c.points for c in move.cards),
        sum(int(c.rank) for c in move.cards),
    )


def _table_points(view: View) -> int:
    return sum(c.points for play in view.table for c in play.cards)


class CautiousPlayer:
    """Saves its trumps for tricks worth 10 points or more; leads low."""

    def __init__(self, seed: int = 0, threshold: int = 10) -> None:
        self.seed = seed
        self.threshold = threshold

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
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

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        moves = canonical(legal)
        trump = view.trump
        if moves[0].is_lead:
            plain = [m for m in moves if all(c.suit is not trump for c in m.cards)] or moves
            return max(plain, key=lambda m: (sum(c.points for c in m.cards), len(m.cards)))
        beats = [m for m in moves if m.beat]
        if beats:
            return min(beats, key=lambda m: _cost(m, trump))
        return min(moves, key=lambda m: _cost(m, trump))


def playout_values(world: Sim, moves: Sequence[Action], seat: int) -> list[float]:
    """Each move played in ``world`` and the deal finished greedily for every seat: its
    utility for ``seat`` (margin weight 1)."""
    values = []
    for move in moves:
        sim = world.copy()
        sim.play(tuple(sorted(c.index for c in move.cards)), move.beat)
        policy.playout(sim)
        values.append(utility(sim.points, seat, 1.0))
    return values


class PlainMonteCarlo:
    """Plain determinized Monte Carlo with greedy rollouts (the baseline hard is measured against)."""

    def __init__(self, seed: int = 0, worlds: int = 100, time_limit: float | None = None) -> None:
        self.seed = seed
        self.worlds = worlds
        self.time_limit = time_limit

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        moves = canonical(legal)
        if len(moves) == 1:
            return moves[0]
        rng = decision_rng(self.seed, view)
        totals = [0.0] * len(moves)
        start = time.perf_counter()
        done = 0
        while True:
            values = playout_values(sample_world(view, rng), moves, view.seat)
            totals = [t + v for t, v in zip(totals, values, strict=True)]
            done += 1
            if self.time_limit is not None:
                if time.perf_counter() - start >= self.time_limit:
                    break
            elif done >= self.worlds:
                break
        return moves[max(range(len(moves)), key=lambda i: (totals[i], -i))]


def true_world(deal: Deal, view: View) -> Sim:
    """The fast simulator's copy of the real ``deal`` (hidden hands and stock order too)."""
    unseen, known = unseen_for(view)
    sim = build_world(view, unseen, known)
    # Each hand in the order its seat's view lists it, since greedy breaks ties by hand
    # order (cards drawn in a playout are appended, so after a draw a tie may still
    # break otherwise than in the real deal: the oracle's foresight is near, not exact).
    sim.hands = [[c.index for c in deal.view(s).hand] for s in range(deal.players)]
    sim.stock = [c.index for c in reversed(deal._stock)]  # Sim draws from the end
    return sim


class OraclePlayer:
    """Sees the real deal, the stock's order too (``deal`` is set before each decision),
    and plays each move out greedily for every seat in that one world: a ceiling, not a
    player. Against greedy it foresees every reply; against anyone else it trusts a
    model of them that is wrong."""

    sees_deal = True

    def __init__(self) -> None:
        self.deal: Deal | None = None

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        moves = canonical(legal)
        if len(moves) == 1 or self.deal is None:
            return moves[0]
        values = playout_values(true_world(self.deal, view), moves, view.seat)
        return moves[max(range(len(moves)), key=lambda i: (values[i], -i))]


class PeekingPlayer(StrongPlayer):
    """The ``hard`` level, except that it sees ``known`` cards of each other hand (4:
    the whole hand; which ones, the decision's seeded choice) and samples only the rest
    and the stock's order: a ceiling, not a player."""

    sees_deal = True

    def __init__(self, seed: int = 0, known: int = 4, late: int | None = None) -> None:
        base = strong_player(seed, HARD_WORLDS)
        super().__init__(
            seed,
            worlds=base.worlds,
            belief=base.belief,
            exact_worlds=base.exact_worlds,
            prune=base.prune,
        )
        self.known = known
        self.late = late  # peek only with at most this many cards left in the stock
        self.deal: Deal | None = None

    def _sampler(self, view: View) -> Callable[[random.Random], Sim]:
        deal = self.deal
        assert deal is not None
        if self.late is not None and view.stock_size > self.late:
            return super()._sampler(view)
        unseen, public = unseen_for(view)
        choice = decision_rng(self.seed + 1, view)
        seen: dict[int, list[int]] = {}
        for seat in range(view.players):
            if seat != view.seat:
                shown = list(public.get(seat, ()))
                rest = sorted(c.index for c in deal.hand(seat) if c.index not in shown)
                choice.shuffle(rest)
                seen[seat] = shown + rest[: self.known]
        peeked = {c for cards in seen.values() for c in cards}
        hidden = [c for c in unseen if c not in peeked]

        def draw(rng: random.Random) -> Sim:
            order = list(hidden)
            rng.shuffle(order)
            return build_world(view, order, seen)

        return draw


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
    if spec == "peek" or spec.startswith("peek:"):
        # peek[:K[:S]]: hard seeing K cards of each other hand (default all 4); with S,
        # only once at most S cards are left in the stock
        parts = [int(x) for x in spec.split(":")[1:]]
        return PeekingPlayer(seed, *parts)
    if spec == "oracle":
        return OraclePlayer()
    if spec.startswith("mct:"):
        return PlainMonteCarlo(seed, time_limit=float(spec.split(":")[1]) / 1000.0)
    return None
