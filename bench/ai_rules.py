"""Computer players under house rules (RULES.md Part B/C): duplicate matches, printed only.

Used by ``bench/ai.py --rules NAME=VALUE ...``. Each deck is played once per rotation
of the line-up over the shared stock (the per-seat draw queues of ``bench/ai.py``
model the base game only). Under B5 pairs, A plays one pair (seats 0+2, then 1+3)
and B the other; otherwise A takes each seat in turn against B in the others.
Figures are per deal and per side: penalties (credits under B4), point margin, deal
wins, and how often each side won by a show (C1/C2).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from engine.burkozel.ai import Player
from engine.burkozel.deal import Deal
from engine.burkozel.rules import Rules
from engine.burkozel.scoring import sides
from engine.cards import shuffled_deck


@dataclass
class RulesDeck:
    a_pen: list[float] = field(default_factory=list)
    b_pen: list[float] = field(default_factory=list)
    margin: list[float] = field(default_factory=list)
    a_win: list[int] = field(default_factory=list)
    a_shows: list[int] = field(default_factory=list)
    b_shows: list[int] = field(default_factory=list)
    a_times: list[float] = field(default_factory=list)


Task = tuple[str, str, int, int, dict[str, object]]


def play_deck(task: Task, make: Callable[[str, int], Player]) -> RulesDeck:
    spec_a, spec_b, players, index, rules_data = task
    rules = Rules.from_dict(rules_data)
    deck = shuffled_deck(seed=f"bench-{index}")
    out = RulesDeck()
    teams = sides(rules, range(players))
    for a_team in teams if rules.teams == "pairs" else [(s,) for s in range(players)]:
        seats = [make(spec_a if s in a_team else spec_b, index * 10 + s) for s in range(players)]
        deal = Deal.start(players, deck, players - 1, rules)
        while not deal.finished:
            stopper = deal.stopper()  # C3/C4: a seat that may lead out of turn is asked first
            seat = stopper if stopper is not None else deal.turn
            assert seat is not None
            legal = deal.legal_actions(seat)
            t0 = time.perf_counter()
            move = seats[seat].choose(deal.view(seat), legal)
            if seat in a_team and len(legal) > 1:
                out.a_times.append(time.perf_counter() - t0)
            deal.apply(move)
        res = deal.result()
        others = [t for t in teams if a_team[0] not in t]
        out.a_pen.append(res.penalties[a_team[0]])
        out.b_pen.append(statistics.fmean(res.penalties[t[0]] for t in others))
        a_pts = sum(res.points[s] for s in a_team)
        b_best = max(sum(res.points[s] for s in t) for t in others)
        out.margin.append(a_pts - b_best)
        out.a_win.append(
            int(a_pts > b_best) if res.outcome == "played" else int(deal.shown_by in a_team)
        )
        shown = res.outcome != "played"
        out.a_shows.append(int(shown and deal.shown_by in a_team))
        out.b_shows.append(int(shown and deal.shown_by not in a_team))
    return out


def _ci(values: Sequence[float]) -> str:
    m = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return f"{m:6.2f} ± {half:5.2f}"


def match(
    spec_a: str,
    spec_b: str,
    players: int,
    rules: Rules,
    decks: int,
    jobs: int,
    runner: Callable[[Task], RulesDeck],
) -> None:
    tasks: list[Task] = [(spec_a, spec_b, players, i, rules.to_dict()) for i in range(decks)]
    t0 = time.perf_counter()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(runner, tasks, chunksize=2))
    else:
        results = [runner(t) for t in tasks]
    wall = time.perf_counter() - t0
    per = {
        name: [statistics.fmean(getattr(r, name)) for r in results]
        for name in ("a_pen", "b_pen", "margin", "a_win", "a_shows", "b_shows")
    }
    edge = [b - a for a, b in zip(per["a_pen"], per["b_pen"], strict=True)]
    if rules.scoring == "winner_takes":
        edge = [-e for e in edge]
    times = sorted(t for r in results for t in r.a_times)
    what = "credits" if rules.scoring == "winner_takes" else "penalties"
    side = "pair" if rules.teams == "pairs" else "seat"
    print(f"\n== {spec_a} vs {spec_b}, {players} players, rules {rules.to_dict()}: {decks} decks")
    print(f"  deal wins of {spec_a}'s {side}: {statistics.fmean(per['a_win']):.1%}")
    print(f"  {what} per deal {spec_a}: {_ci(per['a_pen'])}   {spec_b}: {_ci(per['b_pen'])}")
    print(f"  {what} edge of {spec_a}: {_ci(edge)}   point margin: {_ci(per['margin'])}")
    print(
        f"  deals won by a show: {spec_a} {statistics.fmean(per['a_shows']):.1%}, "
        f"{spec_b} {statistics.fmean(per['b_shows']):.1%}"
    )
    if times:
        p50, p95 = times[len(times) // 2], times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"  time per move {spec_a}: p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms")
    print(f"  ({wall:.0f} s wall, {jobs} processes)", flush=True)
