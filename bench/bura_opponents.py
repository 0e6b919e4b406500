"""Benchmark-only Bura opponents: declaring styles other than our greedy rule, and a plain
determinized Monte Carlo baseline. None of these is a shipped level.

- ``careful``: our greedy rule, but it declares (D5) only on the open points of its pile
  (its face-down cards counted as 0): it declares only when sure.
- ``reckless``: our greedy rule, but each face-down card of its pile is guessed at 6
  points (greedy: 2), so it declares sooner and often falsely.
- ``pairs``: our greedy rule, but it leads two cards whenever it may (policy.greedy's
  ``lead_pairs``, the rule hard's playouts use for its own later leads).
- ``pimc:W`` / ``pimct:MS``: plain perfect-information Monte Carlo, the search an
  outsider would write first: W sampled worlds per decision (or as many as fit in MS
  milliseconds) consistent with everything the seat saw, hidden cards uniform (no leans
  from how the others played), every legal action (and letting a «Стоп!» pass) played
  in each world and finished with the greedy rule for every seat, best mean edge wins
  (+1 a deal won, -1 lost, plus a quarter of the penalty edge, as ``hard`` scores).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from engine.bura.actions import Action
from engine.bura.ai.players import (
    GreedyPlayer,
    Player,
    after_option,
    canonical,
    optional,
    rollout,
    utility,
)
from engine.bura.ai.seed import decision_rng
from engine.bura.ai.world import sample_world
from engine.bura.rules import Rules
from engine.bura.view import View

STYLES = {"careful": 0.0, "greedy": 2.0, "reckless": 6.0}  # closed_guess of each
UNIFORM = 1e9  # a discard temperature so high that every card is as likely


class PlainMonteCarlo:
    def __init__(
        self, rules: Rules, seed: int = 0, worlds: int = 40, time_limit: float | None = None
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.worlds = worlds
        self.time_limit = time_limit  # seconds per decision; then ``worlds`` is ignored

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        options: list[Action | None] = [*canonical(legal)]
        if optional(view):
            options.append(None)
        if len(options) == 1:
            return options[0]
        rng = decision_rng(self.seed, view)
        totals = [0.0] * len(options)
        start = time.perf_counter()
        done = 0
        while True:
            if self.time_limit is None:
                if done >= self.worlds:
                    break
            elif done and time.perf_counter() - start >= self.time_limit:
                break
            world = sample_world(view, self.rules, rng, temperature=UNIFORM, trump_weight=1.0)
            for i, option in enumerate(options):
                edge = utility(
                    rollout(after_option(world, option)), view.seat, self.rules, view.players
                )
                totals[i] += (edge > 0) - (edge < 0) + 0.25 * edge
            done += 1
        return options[max(range(len(options)), key=lambda i: totals[i])]


def make_bura_opponent(spec: str, rules: Rules, seed: int) -> Player | None:
    """A benchmark opponent for ``spec``, or ``None`` if it names none."""
    if spec in ("careful", "reckless"):
        return GreedyPlayer(rules, seed, closed_guess=STYLES[spec])
    if spec == "pairs":
        return GreedyPlayer(rules, seed, lead_pairs=True)
    kind, _, budget = spec.partition(":")
    if kind == "pimc":
        return PlainMonteCarlo(rules, seed, worlds=int(budget or 40))
    if kind == "pimct":
        return PlainMonteCarlo(rules, seed, time_limit=int(budget) / 1000)
    return None
