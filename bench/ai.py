"""Benchmark the computer players with duplicate matches. Prints; never asserts.

Every deck is played once per rotation of the line-up (2 players: twice, seats
swapped), so the luck of the cards cancels out. To make the two games of a pair
deal alike even after play diverges, each seat draws from its own pre-shuffled queue
of stock cards instead of the shared stock (``QueuedDeal``); that is a benchmark-only
device, never used in real play (``--stock shared`` plays the real shared stock,
``--stock both`` every match both ways).

    .venv/bin/python bench/ai.py --quick          # a small run, about a minute
    .venv/bin/python bench/ai.py --pairs 500 --side-pairs 100   # the report (long)
    .venv/bin/python bench/ai.py --only sg --pairs 200 --jobs 2

Player specs: random, greedy, easy, normal, hard; hard:W (the levels' configuration
with W worlds); strong:W[:M[:E[:B[:X[:Z]]]]] (Monte Carlo with W worlds, margin
weight M, endgame search E = minimax|off, belief B = none|eps, exact worlds
X, pruning z Z; defaults 1, minimax, none, 0, 0); hard+NAME=VALUE+... (the hard level
with StrongPlayer attributes changed, e.g. hard+worlds=60+rollout=informed). Benchmark-only opponents
(``bench/opponents.py``): cautious, aggressive, randomish, and the plain Monte Carlo
baseline mc:W (W worlds per decision) or mct:MS (MS milliseconds per decision); and two
yardsticks handed the real deal, to measure what the hidden cards are worth:
peek[:K[:S]] (hard seeing all, or K, cards of each other hand; with S, only once at
most S cards are left in the stock) and oracle (every card, the stock's order too, one
greedy playout per move).

    .venv/bin/python bench/ai.py --only mc --stock both --pairs 300   # hard against plain Monte Carlo
    .venv/bin/python bench/ai.py --only styles --pairs 100 --stock both

``--deck-offset N`` plays decks N, N+1, ...: tune on decks the reported runs (from 0)
do not use.

``--game bura``, given first, runs Bura's duplicate matches instead (``bench/ai_bura.py``;
the options after it are that script's), e.g. hard vs greedy:

    .venv/bin/python bench/ai.py --game bura --pairs 300
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.opponents import STYLES, make_opponent
from engine.burkozel.ai import (
    LEVELS,
    Player,
    RandomPlayer,
    StrongPlayer,
    make_player,
    strong_player,
)
from engine.burkozel.ai.players import HARD_WORLDS
from engine.burkozel.deal import Deal
from engine.burkozel.rules import HAND_SIZE, Rules
from engine.cards import Card, shuffled_deck


class QueuedDeal(Deal):
    """A deal in which each seat draws from its own queue (benchmark only, see above).

    The stock below the deal is split round robin into one queue per seat, in dealing
    order; the turned trump card goes last in the shortest queue, so it is still drawn
    in the final draw round. Every seat draws the same number of cards over a deal, so
    all queues run out together, exactly when the shared stock would.
    """

    __slots__ = ("_queues",)

    _queues: list[list[Card]]

    @classmethod
    def start_queued(cls, players: int, deck: Sequence[Card], dealer: int) -> QueuedDeal:
        deal = cls.start(players, deck, dealer)
        assert isinstance(deal, QueuedDeal)
        queues: list[list[Card]] = [[] for _ in range(players)]
        for j, card in enumerate(deal._stock[:-1]):
            queues[(dealer + 1 + j) % players].append(card)
        min(queues, key=len).append(deal.trump_card)
        deal._queues = queues
        return deal

    def _draw(self, winner: int) -> None:
        hands, queues = self._hands, self._queues
        order = [(winner + i) % self.players for i in range(self.players)]
        while any(len(hands[s]) < HAND_SIZE and queues[s] for s in order):
            for s in order:
                if len(hands[s]) < HAND_SIZE and queues[s]:
                    card = queues[s].pop(0)
                    self._stock.remove(card)  # keeps stock_size and the card count honest
                    if card is self.trump_card:
                        self._trump_drawn_by = s
                    hands[s].append(card)


def make(spec: str, seed: int) -> Player:
    if spec.startswith("strong:"):
        # strong:WORLDS[:MARGIN_WEIGHT[:ENDGAME[:BELIEF[:EXACT[:PRUNE_Z]]]]]
        parts = spec.split(":")[1:]
        parts += ["1", "minimax", "none", "0", "0"][len(parts) - 1 :]
        return StrongPlayer(
            seed,
            worlds=int(parts[0]),
            margin_weight=float(parts[1]),
            endgame=parts[2],
            belief=None if parts[3] == "none" else float(parts[3]),
            exact_worlds=int(parts[4]),
            prune=float(parts[5]),
        )
    if spec.startswith("hard+"):
        # hard+NAME=VALUE+...: the hard level with StrongPlayer attributes overridden
        player = strong_player(seed, HARD_WORLDS)
        for item in spec.split("+")[1:]:
            name, text = item.split("=")
            current = getattr(player, name)
            value: object = text
            if text == "none":
                value = None
            elif isinstance(current, bool | int | float) or current is None:
                value = float(text) if "." in text else int(text)
            setattr(player, name, value)
        return player
    if spec.startswith("hard:"):
        # hard:WORLDS = the levels' configuration with another budget
        return strong_player(seed, int(spec.split(":")[1]))
    if spec == "random":
        return RandomPlayer(seed)
    opponent = make_opponent(spec, seed)
    return opponent if opponent is not None else make_player(spec, seed)


@dataclass
class DeckResult:
    """One deck played in every rotation: per rotation, A's and the B seats' figures."""

    a_points: list[int] = field(default_factory=list)
    b_points: list[float] = field(default_factory=list)
    a_pen: list[int] = field(default_factory=list)
    b_pen: list[float] = field(default_factory=list)
    a_win: list[int] = field(default_factory=list)  # 1 = strictly the highest score
    a_tie: list[int] = field(default_factory=list)
    a_times: list[float] = field(default_factory=list)
    b_times: list[float] = field(default_factory=list)


def play_deck(task: tuple[str, str, int, int, bool]) -> DeckResult:
    spec_a, spec_b, players, index, queued = task
    deck = shuffled_deck(seed=f"bench-{index}")
    out = DeckResult()
    for a_seat in range(players):
        seats = [make(spec_a if s == a_seat else spec_b, index * 10 + s) for s in range(players)]
        dealer = players - 1
        if queued:
            deal: Deal = QueuedDeal.start_queued(players, deck, dealer)
        else:
            deal = Deal.start(players, deck, dealer)
        while not deal.finished:
            seat = deal.turn
            assert seat is not None
            legal = deal.legal_actions()
            if getattr(seats[seat], "sees_deal", False):
                seats[seat].deal = deal  # type: ignore[attr-defined]  # the oracle's yardstick
            t0 = time.perf_counter()
            move = seats[seat].choose(deal.view(seat), legal)
            spent = time.perf_counter() - t0
            if len(legal) > 1:
                (out.a_times if seat == a_seat else out.b_times).append(spent)
            deal.apply(move)
        if isinstance(deal, QueuedDeal):  # every draw went through QueuedDeal._draw
            left = sum(map(len, deal._queues))
            assert left == deal.stock_size, "the deal did not draw from the per-seat queues"
        res = deal.result()
        others = [s for s in range(players) if s != a_seat]
        out.a_points.append(res.points[a_seat])
        out.b_points.append(sum(res.points[s] for s in others) / len(others))
        out.a_pen.append(res.penalties[a_seat])
        out.b_pen.append(sum(res.penalties[s] for s in others) / len(others))
        best_other = max(res.points[s] for s in others)
        out.a_win.append(int(res.points[a_seat] > best_other))
        out.a_tie.append(int(res.points[a_seat] == best_other))
    return out


def ci(values: Sequence[float]) -> str:
    """Mean ± half-width of a normal 95% interval."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return f"{m:7.2f}"
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{m:7.2f} ± {half:5.2f}"


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def match(
    spec_a: str,
    spec_b: str,
    players: int,
    pairs: int,
    jobs: int,
    queued: bool,
    deck_log: str | None = None,
    offset: int = 0,
) -> None:
    tasks = [(spec_a, spec_b, players, offset + i, queued) for i in range(pairs)]
    t0 = time.perf_counter()
    decks: list[DeckResult] = []
    with contextlib.ExitStack() as stack:
        log = stack.enter_context(open(deck_log, "a")) if deck_log else None
        if jobs > 1:
            pool = stack.enter_context(ProcessPoolExecutor(jobs))
            results: Iterable[DeckResult] = pool.map(play_deck, tasks, chunksize=4)
        else:
            results = map(play_deck, tasks)
        for deck in results:
            decks.append(deck)
            if log is not None:  # a long run's partial results survive an interruption
                log.write(
                    json.dumps([spec_a, spec_b, players, queued, dataclasses.asdict(deck)]) + "\n"
                )
                log.flush()
    report(spec_a, spec_b, players, queued, decks, time.perf_counter() - t0, jobs)


def report_log(path: str) -> None:
    """Print the figures of the decks a ``--deck-log`` file holds (a partial run)."""
    by_match: dict[tuple[str, str, int, bool], list[DeckResult]] = {}
    with open(path) as log:
        for line in log:
            spec_a, spec_b, players, queued, fields_ = json.loads(line)
            key = (spec_a, spec_b, players, queued)
            by_match.setdefault(key, []).append(DeckResult(**fields_))
    for (spec_a, spec_b, players, queued), decks in by_match.items():
        report(spec_a, spec_b, players, queued, decks, float("nan"), 0)


def report(
    spec_a: str,
    spec_b: str,
    players: int,
    queued: bool,
    decks: list[DeckResult],
    wall: float,
    jobs: int,
) -> None:
    pairs = len(decks)
    # Duplicate statistics: average each deck over its rotations first, so the
    # interval is over independent decks and the luck of the cards cancels.
    per_deck = {
        name: [statistics.fmean(getattr(d, name)) for d in decks]
        for name in ("a_points", "b_points", "a_pen", "b_pen", "a_win", "a_tie")
    }
    margin = [a - b for a, b in zip(per_deck["a_points"], per_deck["b_points"], strict=True)]
    pen_edge = [b - a for a, b in zip(per_deck["a_pen"], per_deck["b_pen"], strict=True)]
    a_times = [t for d in decks for t in d.a_times]
    b_times = [t for d in decks for t in d.b_times]
    b_label = spec_b if players == 2 else f"{players - 1}x {spec_b}"
    stock = "per-seat queues" if queued else "shared stock"
    print(
        f"\n== {spec_a} vs {b_label}: {players} players, {pairs} decks x {players} rotations, "
        f"{stock}"
    )
    print(
        f"  deal wins of {spec_a}: {statistics.fmean(per_deck['a_win']):.1%} "
        f"(ties {statistics.fmean(per_deck['a_tie']):.1%}; "
        f"95% CI ± {1.96 * statistics.stdev(per_deck['a_win']) / math.sqrt(pairs):.1%})"
    )
    print(f"  mean deal points   {spec_a:>10}: {ci(per_deck['a_points'])}")
    print(f"                     {spec_b:>10}: {ci(per_deck['b_points'])}")
    print(f"  point margin       {'':>10}  {ci(margin)}")
    print(f"  penalties per deal {spec_a:>10}: {ci(per_deck['a_pen'])}")
    print(f"                     {spec_b:>10}: {ci(per_deck['b_pen'])}")
    print(f"  penalty edge       {'':>10}  {ci(pen_edge)}")
    for label, times in ((spec_a, a_times), (spec_b, b_times)):
        print(
            f"  time per move {label:>10}: mean {statistics.fmean(times or [0.0]) * 1000:7.1f} ms, "
            f"p50 {pct(times, 0.5) * 1000:7.1f} ms, "
            f"p95 {pct(times, 0.95) * 1000:7.1f} ms, max {pct(times, 1.0) * 1000:7.1f} ms"
        )
    print(f"  ({wall:.0f} s wall, {jobs} processes)", flush=True)


MC_WORLDS = 300  # the plain Monte Carlo baseline's budget: about hard's mean time per move

SUITES: dict[str, list[tuple[str, str, int]]] = {
    "sg": [("hard", "greedy", 2)],
    "gr": [("greedy", "random", 2)],
    "sr": [("hard", "random", 2)],
    "table3": [("hard", "greedy", 3), ("greedy", "random", 3)],
    "budget": [("hard:20", "greedy", 2), ("hard:60", "greedy", 2), ("hard:150", "greedy", 2)],
    "levels": [("easy", "random", 2), ("normal", "easy", 2), ("hard", "normal", 2)],
    # Hard against a plain Monte Carlo search at about the same mean time per
    # move (check the printed means), and every level against every opponent style.
    "mc": [("hard", f"mc:{MC_WORLDS}", 2)],
    "styles": [(level, style, 2) for level in LEVELS for style in STYLES],
}

SIDE_SUITES = ("table3", "budget", "levels", "styles")


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in[:2] == ["--game", "bura"]:  # one entry point for both games
        import ai_bura  # bench/ is on the path when this runs as a script

        ai_bura.main(args_in[2:])
        return 0
    if args_in[:2] == ["--game", "burkozel"]:
        args_in = args_in[2:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=500, help="decks per match (default 500)")
    parser.add_argument("--quick", action="store_true", help="40 decks per match")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--only", action="append", choices=sorted(SUITES), help="repeatable")
    parser.add_argument("--match", help="one custom match, e.g. strong:80,greedy,2")
    parser.add_argument(
        "--side-pairs",
        type=int,
        help="decks per match for the table3, budget and levels suites (default: --pairs)",
    )
    parser.add_argument(
        "--stock",
        choices=("queued", "shared", "both"),
        default="queued",
        help="per-seat draw queues, the real shared stock, or every match with each",
    )
    parser.add_argument("--shared-stock", action="store_true", help="same as --stock shared")
    parser.add_argument("--deck-log", help="append each deck's figures to this file (JSON lines)")
    parser.add_argument("--report-log", help="only print the figures of a --deck-log file")
    parser.add_argument(
        "--deck-offset",
        type=int,
        default=0,
        help="start at this deck number (tune on decks the report does not use)",
    )
    parser.add_argument(
        "--rules",
        nargs="+",
        metavar="NAME=VALUE",
        help="house rules (Part B/C), e.g. combinations=on or teams=pairs: hard vs greedy "
        "(or --match A,B,N) under them, see bench/ai_rules.py",
    )
    args = parser.parse_args(args_in)
    if args.report_log:
        report_log(args.report_log)
        return 0
    if args.rules:
        return house_rules_main(args)
    pairs = 40 if args.quick else args.pairs
    stock = "shared" if args.shared_stock else args.stock
    modes = {"queued": [True], "shared": [False], "both": [True, False]}[stock]
    print(f"bench/ai.py: {pairs} decks per match, stock: {stock}")
    print("Time per move counts only decisions with more than one legal move.")
    if args.match:
        a, b, n = args.match.split(",")
        for queued in modes:
            match(a, b, int(n), pairs, args.jobs, queued, args.deck_log, args.deck_offset)
        return 0
    side = pairs if args.quick or args.side_pairs is None else args.side_pairs
    if side != pairs:
        print(f"Suites {', '.join(SIDE_SUITES)}: {side} decks per match.")
    for name in args.only or list(SUITES):
        for spec_a, spec_b, players in SUITES[name]:
            for queued in modes:
                size = side if name in SIDE_SUITES else pairs
                match(
                    spec_a,
                    spec_b,
                    players,
                    size,
                    args.jobs,
                    queued,
                    args.deck_log,
                    args.deck_offset,
                )
    return 0


def play_rules_deck(task: tuple[str, str, int, int, dict[str, object]]) -> object:
    from bench import ai_rules

    return ai_rules.play_deck(task, make)


def house_rules_main(args: argparse.Namespace) -> int:
    """``--rules``: one match under house rules (bench/ai_rules.py)."""
    from bench import ai_rules

    rules = Rules.from_options(args.rules)
    a, b, n = (args.match or f"hard,greedy,{4 if rules.teams == 'pairs' else 2}").split(",")
    decks = 10 if args.quick else args.pairs
    print(f"bench/ai.py --rules: {decks} decks, shared stock")
    ai_rules.match(a, b, int(n), rules, decks, args.jobs, play_rules_deck)
    return 0


if __name__ == "__main__":
    sys.exit(main())
