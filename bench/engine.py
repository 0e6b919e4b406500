"""Engine speed: random full deals per second and moves per second, on one core.

Run with ``python bench/engine.py`` (``--seconds`` per measurement, default 2). Seconds
are the measuring process's CPU seconds (``time.process_time``), so other jobs on a
shared machine disturb the figures less than they would wall-clock ones.
Each deal starts from a seeded random deck; every move is a random pick from
``Deal.legal_actions()`` (Burkozel) or from every acting seat's legal actions, never
declaring (Bura, D-rules with ``moscow: on``). "push" plays it trusted (no re-check, as a simulating
computer player would); "apply" re-validates it first.

Then the computer players' playout simulator (``engine/burkozel/ai/sim.py`` with the greedy
rollout policy, ``engine/burkozel/ai/policy.py``): full greedy playouts per second from a
sampled world at the start of a deal, the figure the Monte Carlo search spends its
time on.

``--against REV`` measures this tree's engine side by side with the engine of commit
``REV`` (any git revision), in one run: ``REV``'s tree is extracted with ``git archive``
into a temporary directory, each engine runs in its own worker process (the same
measuring code, importing ``engine`` from its own tree), and every row alternates the
two (``--rounds`` times each, the best kept, so load from elsewhere hurts both alike).
It prints both figures and their ratio (this tree / ``REV``), and the median of the
rounds' own ratios (each round's two turns run back to back): on a machine whose speed
drifts by 10% from one second to the next, the best turns can come from different
moments, while the paired median compares turns run under the same conditions.

    .venv/bin/python bench/engine.py --against main~3 --seconds 1 --rounds 3

Instructions instead of seconds (the same work on a loaded machine counts the same): a
worker given a row with ``"deals"`` plays that many deals and exits; count it under
valgrind with 400 deals and with 100, and divide the difference by 300 (the first 100
warm up the interned moves and tables). ``ROOT`` is a tree (``git archive`` of a commit
for the old engine; a fixed hash seed and no address randomisation make a count repeat
exactly, where without them two counts of one tree differ by up to 2%):

    echo '{"game": "bura", "players": 2, "mode": "push", "deals": 400}' |
        PYTHONHASHSEED=0 setarch -R valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        .venv/bin/python -S bench/engine.py --worker ROOT
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__" and "--worker" in sys.argv:
    # A worker measures the engine of the tree named after --worker.
    sys.path.insert(0, sys.argv[sys.argv.index("--worker") + 1])
else:
    sys.path.insert(0, str(ROOT))

GAMES = ("burkozel", "bura")
PLAYERS = (2, 3, 4)
MODES = ("push", "apply")


def _burkozel() -> Any:
    """Burkozel's deal class, in either engine layout (``--against`` an older commit)."""
    try:
        from engine.burkozel import Deal
    except ImportError:  # before the engine/<game>/ layout
        from engine import Deal  # type: ignore[attr-defined,no-redef]
    return Deal


def _sim() -> tuple[Any, Any]:
    """The greedy policy module and ``sample_world``, in either layout."""
    try:
        from engine.burkozel.ai import policy, sim
    except ImportError:  # before the engine/<game>/ layout
        from engine.ai import policy, sim  # type: ignore[no-redef]
    return policy, sim.sample_world


def play_deal(players: int, rng: random.Random, *, validated: bool) -> int:
    """Play one random full deal; return the number of moves made."""
    from engine import shuffled_deck

    deal = _burkozel().start(players, shuffled_deck(rng=rng), rng.randrange(players))
    play = deal.apply if validated else deal.push
    # The name before both games shared one (an --against commit may be older).
    legal = getattr(deal, "legal_actions", None) or getattr(deal, "legal_" + "moves")
    moves = 0
    while not deal.finished:
        play(rng.choice(legal()))
        moves += 1
    return moves


def play_bura_deal(players: int, rng: random.Random, *, validated: bool) -> int:
    """Play one random full Bura deal (any seat that may act, never declaring, so the
    deal is played out unless a combination ends it); return the number of moves."""
    from engine import shuffled_deck
    from engine.bura import deal as deal_module
    from engine.bura import rules as rules_module

    # The names before both games shared them (an --against commit may be older).
    Deal = getattr(deal_module, "Deal", None) or getattr(deal_module, "Bura" + "Deal")
    Rules = getattr(rules_module, "Rules", None) or getattr(rules_module, "Bura" + "Rules")

    deal = Deal.start(players, shuffled_deck(rng=rng), rng.randrange(players), Rules(moscow="on"))
    play = deal.apply if validated else deal.push
    moves = 0
    while not deal.finished:
        actors = deal.actors()
        if len(actors) == 1:
            options = deal.legal_actions(actors[0])
        else:
            options = [a for s in actors for a in deal.legal_actions(s)]
        if deal.phase == "declare":  # the options but a declaration (D5)
            options = [a for a in options if getattr(a, "declare", False) is not True]
        play(rng.choice(options))
        moves += 1
    return moves


def measure(
    players: int, seconds: float, *, validated: bool, game: str = "burkozel"
) -> tuple[float, float]:
    """(deals per second, moves per second) over about ``seconds`` of wall time."""
    rng = random.Random(players)
    one_deal = play_bura_deal if game == "bura" else play_deal
    deals = moves = 0
    start = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(20):
            moves += one_deal(players, rng, validated=validated)
            deals += 1
        elapsed = time.process_time() - start
    return deals / elapsed, moves / elapsed


def measure_playouts(players: int, seconds: float) -> float:
    """Greedy playouts per second, each from a fresh copy of a start-of-deal world."""
    from engine import shuffled_deck

    Deal = _burkozel()
    policy, sample_world = _sim()
    rng = random.Random(players)
    worlds = []
    for _ in range(50):
        deal = Deal.start(players, shuffled_deck(rng=rng), rng.randrange(players))
        worlds.append(sample_world(deal.view(deal.turn or 0), rng))
    done = 0
    start = time.process_time()
    elapsed = 0.0
    while elapsed < seconds:
        for world in worlds:
            sim = world.copy()
            policy.playout(sim)
        done += len(worlds)
        elapsed = time.process_time() - start
    return done / elapsed


def play_deals(row: dict[str, Any]) -> list[float]:
    """Play ``row["deals"]`` deals of a row, seeded as :func:`measure` seeds them, and
    return [moves made]: a fixed amount of work, for counting instructions."""
    rng = random.Random(row["players"])
    one_deal = play_bura_deal if row["game"] == "bura" else play_deal
    validated = row["mode"] == "apply"
    return [
        float(sum(one_deal(row["players"], rng, validated=validated) for _ in range(row["deals"])))
    ]


def run_row(row: dict[str, Any]) -> list[float]:
    """One measurement: [deals/s, moves/s] or [playouts/s]; with ``"deals"``, :func:`play_deals`."""
    if "deals" in row:
        return play_deals(row)
    if row["game"] == "playouts":
        return [measure_playouts(row["players"], row["seconds"])]
    dps, mps = measure(
        row["players"], row["seconds"], validated=row["mode"] == "apply", game=row["game"]
    )
    return [dps, mps]


def worker() -> None:
    """Answer one JSON row per input line with one JSON list of figures."""
    for line in sys.stdin:
        print(json.dumps(run_row(json.loads(line))), flush=True)


class Worker:
    """A worker process measuring the engine of the tree at ``root``."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            # -S: no site-packages, so the project's editable install cannot lend a tree of
            # the old layout this tree's engine.burkozel (the engine needs only stdlib).
            [sys.executable, "-S", str(Path(__file__).resolve()), "--worker", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=root,
        )

    def run(self, row: dict[str, Any]) -> list[float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(row) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        if not answer:
            raise SystemExit(f"the worker for {self.proc.args[-1]} died")
        figures: list[float] = json.loads(answer)
        return figures

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def rows(seconds: float) -> list[dict[str, Any]]:
    table = [
        {"game": g, "players": p, "mode": m, "seconds": seconds}
        for g in GAMES
        for p in PLAYERS
        for m in MODES
    ]
    return table + [
        {"game": "playouts", "players": p, "mode": "greedy", "seconds": seconds} for p in PLAYERS
    ]


def against(rev: str, seconds: float, rounds: int, only: str | None = None) -> None:
    """Side by side: this tree's engine and ``rev``'s, alternating, best of ``rounds``."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="engine-bench-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        new, old = Worker(ROOT), Worker(Path(tmp))
        print(f"this tree ({ROOT}) against {rev} = {commit}; best of {rounds} x {seconds} s")
        print(
            f"{'game':>8} {'players':>7} {'mode':>6} {'new/s':>10} {commit + '/s':>10}"
            f" {'ratio':>6} {'paired':>7} {'new moves/s':>12} {commit + ' moves/s':>14}"
        )
        try:
            for row in rows(seconds / rounds):
                if only and row["game"] != only:
                    continue
                best_new: list[float] = []
                best_old: list[float] = []
                paired: list[float] = []
                for r in range(rounds):
                    # Alternate which engine goes first, so drift hurts both alike.
                    order = (new, old) if r % 2 == 0 else (old, new)
                    turn: dict[Worker, float] = {}
                    for w in order:
                        figures = w.run(row)
                        turn[w] = figures[0]
                        best = best_new if w is new else best_old
                        if not best or figures[0] > best[0]:
                            best[:] = figures
                    paired.append(turn[new] / turn[old])
                ratio = best_new[0] / best_old[0]
                line = (
                    f"{row['game']:>8} {row['players']:>7} {row['mode']:>6}"
                    f" {best_new[0]:>10,.0f} {best_old[0]:>10,.0f} {ratio:>5.2f}x"
                    f" {statistics.median(paired):>6.2f}x"
                )
                if len(best_new) > 1:
                    line += f" {best_new[1]:>12,.0f} {best_old[1]:>14,.0f}"
                print(line, flush=True)
        finally:
            new.close()
            old.close()


def profile(game: str) -> None:
    """Where the time goes: cProfile over a fixed amount of work, sorted by own time."""
    import cProfile
    import pstats

    rng = random.Random(1)
    profiler = cProfile.Profile()
    profiler.enable()
    for players in PLAYERS:
        if game == "playouts":
            measure_playouts(players, 1.0)
            continue
        for _ in range(150):
            (play_bura_deal if game == "bura" else play_deal)(players, rng, validated=True)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--against", metavar="REV", help="also measure the engine of commit REV")
    parser.add_argument("--rounds", type=int, default=3, help="with --against: turns each")
    parser.add_argument("--only", choices=(*GAMES, "playouts"), help="with --against: one kind")
    parser.add_argument(
        "--profile",
        choices=(*GAMES, "playouts"),
        help="cProfile 150 checked deals per table size (or 1 s of playouts each), top 15",
    )
    parser.add_argument("--worker", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    if args.profile:
        profile(args.profile)
        return
    if args.against:
        against(args.against, args.seconds, args.rounds, args.only)
        return
    print(f"{'game':>8} {'players':>7} {'mode':>6} {'deals/s':>10} {'moves/s':>10}")
    for game in GAMES:
        for players in PLAYERS:
            for mode in MODES:
                dps, mps = measure(players, args.seconds, validated=mode == "apply", game=game)
                print(f"{game:>8} {players:>7} {mode:>6} {dps:>10,.0f} {mps:>10,.0f}", flush=True)
    print(f"\n{'players':>7} {'playouts/s':>11}  (computer players' simulator, greedy rollouts)")
    for players in PLAYERS:
        print(f"{players:>7} {measure_playouts(players, args.seconds):>11,.0f}", flush=True)


if __name__ == "__main__":
    main()
