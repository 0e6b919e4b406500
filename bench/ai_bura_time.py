"""Time per decision of Bura players, side by side in one process. Prints; never asserts.

The positions are every decision with a real choice in deals played by greedy players
(``--decks`` decks from bench/ai_bura.py's deck set); every spec decides each position
in turn, so load on the machine hits all specs alike. Times are wall and CPU time.

    nice -n 10 .venv/bin/python bench/ai_bura_time.py --decks 20 hard pimc:40 pimc:60
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.ai_bura import deck_for, make, parse_rules
from engine.bura.actions import Action
from engine.bura.ai import make_player
from engine.bura.deal import Deal
from engine.bura.rules import Rules
from engine.bura.view import View


def positions(decks: int, players: int, rules: Rules) -> list[tuple[View, list[Action]]]:
    found = []
    for index in range(decks):
        deal = Deal.start(players, deck_for(index, players, rules), 0, rules)
        bots = {s: make_player("greedy", rules, index) for s in range(players)}
        while not deal.finished:
            turn = deal.turn
            chosen = None
            for seat in [s for s in deal.actors() if s != turn] + [turn]:
                assert seat is not None
                view, legal = deal.view(seat), deal.legal_actions(seat)
                if len(legal) > 1 or seat != turn:
                    found.append((view, legal))
                chosen = bots[seat].choose(view, legal)
                if chosen is not None:
                    break
            assert chosen is not None
            deal.apply(chosen)
    return found


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rules", default="")
    args = parser.parse_args(argv)
    rules = parse_rules(args.rules)
    found = positions(args.decks, args.players, rules)
    wall: dict[str, list[float]] = {s: [] for s in args.specs}
    cpu: dict[str, list[float]] = {s: [] for s in args.specs}
    players = {s: make(s, rules, 1) for s in args.specs}
    for view, legal in found:
        for spec in args.specs:
            start, start_cpu = time.perf_counter(), time.process_time()
            players[spec].choose(view, legal)
            wall[spec].append(time.perf_counter() - start)
            cpu[spec].append(time.process_time() - start_cpu)
    print(f"{len(found)} decisions from {args.decks} greedy deals, {args.players} players")
    for spec in args.specs:
        for kind, values in (("wall", wall[spec]), ("CPU", cpu[spec])):
            ordered = sorted(values)
            p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
            print(
                f"  {spec:>12} {kind:>4}: mean {statistics.fmean(values) * 1000:6.1f} ms,"
                f" p50 {ordered[len(ordered) // 2] * 1000:6.1f} ms, p95 {p95 * 1000:6.1f} ms,"
                f" max {ordered[-1] * 1000:6.1f} ms"
            )


if __name__ == "__main__":
    main()
