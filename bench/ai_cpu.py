"""CPU time per decision of several player specs on the same positions.

    .venv/bin/python bench/ai_cpu.py hard mc:300 hard+infer=1.0 --deals 4

Plays ``--deals`` two-player deals with the greedy policy and, at every decision with
more than one legal move, times each spec's choice with ``time.process_time`` (CPU
time of this process, so the figures hold on a loaded machine). Specs as in
``bench/ai.py``. Prints mean, p95 and max per spec.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.ai import make, pct
from engine.burkozel.ai import GreedyPlayer
from engine.burkozel.deal import Deal
from engine.cards import shuffled_deck


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {spec: [] for spec in args.specs}
    for d in range(args.deals):
        deal = Deal.start(args.players, shuffled_deck(seed=f"cpu-{d}"), args.players - 1)
        greedy = GreedyPlayer(d)
        players = {spec: make(spec, d) for spec in args.specs}
        while not deal.finished:
            seat = deal.turn
            assert seat is not None
            view, legal = deal.view(seat), deal.legal_actions()
            if len(legal) > 1:
                for spec, player in players.items():
                    t0 = time.process_time()
                    player.choose(view, legal)
                    times[spec].append(time.process_time() - t0)
            deal.apply(greedy.choose(view, legal))
    for spec, values in times.items():
        print(
            f"{spec:40s} {len(values):4d} decisions: mean {1000 * statistics.fmean(values):6.1f} ms,"
            f" p95 {1000 * pct(values, 0.95):6.1f} ms, max {1000 * max(values):6.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
