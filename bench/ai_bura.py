"""Benchmark the Bura computer players with duplicate matches. Prints; never asserts.

Every deck is played once per rotation of the line-up (2 players: twice, seats
swapped), so the luck of the cards partly cancels out (draws still depend on play).
Decks void from the deal (D9) are skipped: they are void for every line-up.

    .venv/bin/python bench/ai_bura.py --quick                 # a small run
    .venv/bin/python bench/ai_bura.py --pairs 300 --jobs 2    # the report
    .venv/bin/python bench/ai_bura.py --a hard:60 --b greedy --rules moscow=on,dave=on

Tuning runs should use other decks than the report (``--first-deck 1000``); two runs
with ``--deck-log`` on the same decks are compared deck by deck with ``--compare``:

    nice -n 10 .venv/bin/python bench/ai_bura.py --pairs 150 --first-deck 1000 --a hard --deck-log /tmp/a.jsonl
    .venv/bin/python bench/ai_bura.py --compare /tmp/a.jsonl /tmp/b.jsonl

Player specs: random, greedy, easy, normal, hard, or hard:W[:S] (W worlds; S = all | key:
search every decision, or only declaring, «Стоп!», shows and даве); the benchmark-only
opponents of bench/bura_opponents.py: careful, reckless, pairs, pimc:W, pimct:MS, and
the oracles peek, peekall (they see the real deal).
"A deal won" is a deal whose result favours the player (its penalty edge > 0);
void deals (run out, D9) favour nobody and are counted apart.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.bura_opponents import make_bura_opponent
from engine.bura.actions import Action
from engine.bura.ai import Player, StrongPlayer, make_player, play_deal
from engine.bura.ai.players import utility
from engine.bura.deal import Deal
from engine.bura.rules import Rules
from engine.bura.view import View
from engine.cards import Card, shuffled_deck


def make(spec: str, rules: Rules, seed: int) -> Player:
    opponent = make_bura_opponent(spec, rules, seed)
    if opponent is not None:
        return opponent
    spec, *options = spec.split("+")  # hard:20+temperature=20+sure_self=1
    level, _, rest = spec.partition(":")
    worlds, _, search = rest.partition(":")
    player = make_player(level, rules, seed)
    if isinstance(player, StrongPlayer):
        player.worlds = int(worlds) if worlds else player.worlds
        player.search = search or player.search
        for option in options:
            name, _, value = option.partition("=")
            kind = type(getattr(player, name))
            if kind is tuple:  # styles=0/2/6
                setattr(player, name, tuple(float(v) for v in value.split("/")))
            else:
                setattr(player, name, kind(float(value)) if kind is not str else value)
    return player


class Timed:
    """Wraps a player and records the time of each decision with a real choice."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.times: list[float] = []
        self.cpu: list[float] = []  # CPU time of the same decisions (load-independent)

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        start, cpu = time.perf_counter(), time.process_time()
        choice = self.player.choose(view, legal)
        if len(legal) > 1 or view.turn != view.seat:
            self.times.append(time.perf_counter() - start)
            self.cpu.append(time.process_time() - cpu)
        return choice


def deck_for(index: int, players: int, rules: Rules) -> tuple[Card, ...]:
    """The index-th deck that is not void from the deal."""
    attempt = 0
    while True:
        deck = shuffled_deck(f"bura-bench-{index}-{attempt}")
        if not Deal.start(players, deck, 0, rules).finished:
            return deck
        attempt += 1


@dataclass
class Tally:
    edges: list[float] = field(default_factory=list)  # per deal, for player A
    won: int = 0
    lost: int = 0
    void: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    decks: list[dict[str, object]] = field(default_factory=list)  # per deck, for --deck-log

    def add(self, other: Tally) -> None:
        self.decks += other.decks
        self.edges += other.edges
        self.won += other.won
        self.lost += other.lost
        self.void += other.void
        for key, n in other.outcomes.items():
            self.outcomes[key] = self.outcomes.get(key, 0) + n
        self.times += other.times
        self.cpu += other.cpu


def play_decks(args: tuple[str, str, int, Rules, int, int, int]) -> Tally:
    spec_a, spec_b, players, rules, first, count, seed = args
    tally = Tally()
    for index in range(first, first + count):
        deck = deck_for(index, players, rules)
        row: dict[str, object] = {
            "deck": index,
            "edges": [],
            "won": [],
            "outcomes": [],
            "stock_left": [],  # cards still in the stock when the deal ended
        }
        tally.decks.append(row)
        for shift in range(players):
            seat_a = shift  # A plays one seat, B the others
            timed = Timed(make(spec_a, rules, index + seed * 1_000_003))
            bots: dict[int, Player] = {
                s: make(spec_b, rules, (index * 10 + s) + seed * 1_000_003) for s in range(players)
            }
            bots[seat_a] = timed
            deal = Deal.start(players, deck, 0, rules)
            for bot in [*bots.values(), timed.player]:
                if hasattr(bot, "truth"):
                    bot.truth = deal  # bench/bura_opponents.py's oracle
            play_deal(deal, bots)
            result = deal.result()
            edge = utility(result, seat_a, rules, players)
            tally.edges.append(edge)
            tally.times += timed.times
            tally.cpu += timed.cpu
            if result.outcome == "void":
                tally.void += 1
            elif edge > 0:
                tally.won += 1
            else:
                tally.lost += 1
            by = "-" if result.by is None else ("A" if result.by == seat_a else "B")
            key = f"{result.outcome} by {by}"
            for name, value in (
                ("edges", edge),
                ("won", int(edge > 0)),
                ("outcomes", key),
                ("stock_left", len(deal.stock)),
            ):
                column = row[name]
                assert isinstance(column, list)
                column.append(value)
            tally.outcomes[key] = tally.outcomes.get(key, 0) + 1
    return tally


def run_match(
    spec_a: str,
    spec_b: str,
    players: int,
    rules: Rules,
    pairs: int,
    jobs: int,
    first: int = 0,
    seed: int = 0,
) -> Tally:
    chunk = max(1, math.ceil(pairs / (jobs * 4)))
    tasks = [
        (spec_a, spec_b, players, rules, first + start, min(chunk, pairs - start), seed)
        for start in range(0, pairs, chunk)
    ]
    total = Tally()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for part in pool.map(play_decks, tasks):
                total.add(part)
    else:
        for task in tasks:
            total.add(play_decks(task))
    return total


def report(spec_a: str, spec_b: str, players: int, pairs: int, tally: Tally, secs: float) -> None:
    counted = tally.won + tally.lost
    deals = counted + tally.void
    rate = tally.won / counted if counted else 0.0
    half = 1.96 * math.sqrt(rate * (1 - rate) / counted) if counted else 0.0
    mean = statistics.fmean(tally.edges)
    sd = statistics.pstdev(tally.edges) / math.sqrt(len(tally.edges))
    print(f"== {spec_a} vs {spec_b}: {players} players, {pairs} decks x {players} rotations")
    print(
        f"  deals won by {spec_a}: {rate:.1%} of {counted} counted deals (95% CI ± {half:.1%});"
        f" void {tally.void} of {deals}"
    )
    print(f"  mean penalty edge per deal: {mean:+.2f} ± {1.96 * sd:.2f}")
    outcomes = ", ".join(f"{k} {n}" for k, n in sorted(tally.outcomes.items()))
    print(f"  outcomes (A = {spec_a}): {outcomes}")
    for kind, values in (("time", tally.times), ("CPU time", tally.cpu)):
        if values:
            times = sorted(values)
            p50 = times[len(times) // 2]
            p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
            print(
                f"  {kind} per decision of {spec_a}: p50 {p50 * 1000:.0f} ms,"
                f" p95 {p95 * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms over {len(times)} decisions"
            )
    print(f"  wall time {secs:.0f} s", flush=True)


def compare(path_a: str, path_b: str) -> None:
    """Paired comparison of two --deck-log files on the decks both hold: the difference
    in deals won (and in edge) per deck, with a 95% interval of the mean difference."""
    runs = []
    for path in (path_a, path_b):
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        runs.append({row["deck"]: row for row in rows})
    decks = sorted(set(runs[0]) & set(runs[1]))
    if not decks:
        print("no deck in common")
        return
    print(f"paired: {path_a} minus {path_b}, {len(decks)} decks in common")
    for name in ("won", "edges"):
        diffs = [sum(runs[0][d][name]) - sum(runs[1][d][name]) for d in decks]
        mean = statistics.fmean(diffs)
        half = 1.96 * statistics.pstdev(diffs) / math.sqrt(len(diffs))
        totals = [sum(sum(run[d][name]) for d in decks) for run in runs]
        print(
            f"  {name}: {totals[0]:.1f} vs {totals[1]:.1f}, per deck {mean:+.3f} ± {half:.3f}"
            f" (decks better {sum(x > 0 for x in diffs)}, worse {sum(x < 0 for x in diffs)})"
        )


def summary(paths: Sequence[str]) -> None:
    """Deals won and mean edge over --deck-log files (chunks of one match, concatenated)."""
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            rows += [json.loads(line) for line in f if line.strip()]
    won = sum(sum(row["won"]) for row in rows)
    void = sum(sum(o.startswith("void") for o in row["outcomes"]) for row in rows)
    counted = sum(len(row["won"]) for row in rows) - void
    edges = [e for row in rows for e in row["edges"]]
    rate = won / counted if counted else 0.0
    half = 1.96 * math.sqrt(rate * (1 - rate) / counted) if counted else 0.0
    sd = statistics.pstdev(edges) / math.sqrt(len(edges)) if edges else 0.0
    print(
        f"{len(rows)} decks: won {won} of {counted} counted deals = {rate:.1%} ± {half:.1%};"
        f" mean edge {statistics.fmean(edges) if edges else 0.0:+.2f} ± {1.96 * sd:.2f}"
    )
    stock = sorted(n for row in rows for n in row.get("stock_left", []))
    if stock:
        print(
            f"  stock left when a deal ended: min {stock[0]}, median {stock[len(stock) // 2]},"
            f" empty in {stock.count(0)} of {len(stock)} deals"
        )


def parse_rules(text: str) -> Rules:
    pairs = [item.split("=", 1) for item in text.split(",") if item]
    return Rules.from_dict({k: v for k, v in pairs})


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300, help="decks per match")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--a", default="hard", help="the player measured")
    parser.add_argument("--b", default="greedy", help="its opponents")
    parser.add_argument("--rules", default="", help="switches, e.g. moscow=on,dave=on")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="30 decks")
    parser.add_argument("--baseline", action="store_true", help="also greedy vs random")
    parser.add_argument("--first-deck", type=int, default=0, help="index of the first deck")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="shifts the players' seeds: the same decks with other random draws of the search",
    )
    parser.add_argument("--deck-log", help="write each deck's results to this file (JSON lines)")
    parser.add_argument("--compare", nargs=2, metavar="LOG", help="compare two --deck-log files")
    parser.add_argument("--summary", nargs="+", metavar="LOG", help="totals of --deck-log files")
    args = parser.parse_args(argv)
    if args.compare:
        compare(*args.compare)
        return
    if args.summary:
        summary(args.summary)
        return
    pairs = 30 if args.quick else args.pairs
    rules = parse_rules(args.rules)
    print(
        f"bench/ai_bura.py: rules {rules.to_dict() or 'base'}, {pairs} decks per match"
        f" from deck {args.first_deck}, player seed {args.seed}"
    )
    matches = [(args.a, args.b)]
    if args.baseline:
        matches.append(("greedy", "random"))
    for spec_a, spec_b in matches:
        start = time.perf_counter()
        tally = run_match(
            spec_a, spec_b, args.players, rules, pairs, args.jobs, args.first_deck, args.seed
        )
        if args.deck_log and spec_a == args.a:
            with open(args.deck_log, "w", encoding="utf-8") as f:
                for row in sorted(tally.decks, key=lambda r: int(str(r["deck"]))):
                    f.write(json.dumps(row) + "\n")
        report(spec_a, spec_b, args.players, pairs, tally, time.perf_counter() - start)


if __name__ == "__main__":
    main()
