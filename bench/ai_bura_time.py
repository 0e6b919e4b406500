"""Time per decision of Bura players, side by side in one process. Prints; never asserts.

The positions are every decision with a real choice in deals played by greedy players
(``--decks`` decks from bench/ai_bura.py's deck set); every spec decides each position
in turn, so load on the machine hits all specs alike. Times are wall and CPU time.

    nice -n 10 .venv/bin/python bench/ai_bura_time.py --decks 20 hard pimc:40 pimc:60

``--baseline-tree DIR`` loads the engine of another checkout beside this one (as the
package ``engine_baseline``), and a spec ``base:LEVEL`` is that tree's level, deciding
the same positions replayed there: a speed change measured side by side, one process.

    git worktree add /tmp/base main
    .venv/bin/python bench/ai_bura_time.py --decks 10 --baseline-tree /tmp/base hard base:hard
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.ai_bura import deck_for, make, parse_rules
from engine.bura.actions import Action
from engine.bura.rules import Rules
from engine.bura.view import View


def positions(
    decks: int, players: int, rules: Rules, engine: str = "engine"
) -> tuple[list[tuple[View, list[Action]]], Rules]:
    """Every decision with a real choice in ``decks`` deals of greedy players, as the
    package ``engine`` (this tree's, or ``engine_baseline``) plays them; and the rules
    as that package holds them."""
    card = importlib.import_module(f"{engine}.cards").Card
    deal_type = importlib.import_module(f"{engine}.bura.deal").Deal
    make_greedy = importlib.import_module(f"{engine}.bura.ai").make_player
    own_rules = importlib.import_module(f"{engine}.bura.rules").Rules.from_dict(rules.to_dict())
    found = []
    for index in range(decks):
        deck = [card.parse(c.code()) for c in deck_for(index, players, rules)]
        deal = deal_type.start(players, deck, 0, own_rules)
        bots = {s: make_greedy("greedy", own_rules, index) for s in range(players)}
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
    return found, own_rules


def baseline_engine(tree: str) -> None:
    """Make ``engine`` of the checkout ``tree`` importable beside this one as ``engine_baseline``."""
    target = Path(tempfile.mkdtemp()) / "engine_baseline"
    shutil.copytree(Path(tree) / "engine", target)
    for path in target.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"\b(from|import) engine\b", r"\1 engine_baseline", text))
    sys.path.insert(0, str(target.parent))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+")
    parser.add_argument("--decks", type=int, default=20)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rules", default="")
    parser.add_argument("--baseline-tree", help="a checkout whose levels base:LEVEL names")
    args = parser.parse_args(argv)
    rules = parse_rules(args.rules)
    found, _ = positions(args.decks, args.players, rules)
    replayed: list[tuple[Any, list[Any]]] = []
    players: dict[str, Any] = {
        s: make(s, rules, 1) for s in args.specs if not s.startswith("base:")
    }
    if args.baseline_tree:
        baseline_engine(args.baseline_tree)
        replayed, base_rules = positions(args.decks, args.players, rules, "engine_baseline")
        if len(replayed) != len(found):
            raise SystemExit("the baseline tree's greedy deals differ from this tree's")
        make_base = importlib.import_module("engine_baseline.bura.ai").make_player
        for spec in args.specs:
            if spec.startswith("base:"):
                players[spec] = make_base(spec[5:], base_rules, 1)
    wall: dict[str, list[float]] = {s: [] for s in args.specs}
    cpu: dict[str, list[float]] = {s: [] for s in args.specs}
    chosen: dict[str, list[str]] = {s: [] for s in args.specs}  # each choice's repr
    for i, (view, legal) in enumerate(found):
        # Each spec's turn comes first as often as last: a spec timed right after another
        # meets warm caches.
        order = args.specs if i % 2 == 0 else args.specs[::-1]
        for spec in order:
            seen, offered = replayed[i] if spec.startswith("base:") else (view, legal)
            start, start_cpu = time.perf_counter(), time.process_time()
            choice = players[spec].choose(seen, offered)
            wall[spec].append(time.perf_counter() - start)
            cpu[spec].append(time.process_time() - start_cpu)
            chosen[spec].append(repr(choice))
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
    for spec in args.specs:
        if spec.startswith("base:") and spec[5:] in chosen:
            alike = sum(a == b for a, b in zip(chosen[spec], chosen[spec[5:]], strict=True))
            print(f"  {spec[5:]} and {spec} chose alike at {alike} of {len(found)} decisions")


if __name__ == "__main__":
    main()
