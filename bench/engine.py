"""Engine speed: random full deals per second and moves per second, on one core.

Run with ``python bench/engine.py`` (``--seconds`` per measurement, default 2).
Each deal starts from a seeded random deck; every move is a random pick from
``Deal.legal_moves()`` (Burkozel) or from every acting seat's legal actions, never
declaring (Bura, D-rules with ``moscow: on``). "push" plays it trusted (no re-check, as a simulating
computer player would); "apply" re-validates it first.

Then the computer players' playout simulator (``engine/burkozel/ai/sim.py`` with the greedy
rollout policy, ``engine/burkozel/ai/policy.py``): full greedy playouts per second from a
sampled world at the start of a deal, the figure the Monte Carlo search spends its
time on.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import shuffled_deck
from engine.bura.deal import BuraDeal
from engine.bura.rules import BuraRules
from engine.burkozel import Deal
from engine.burkozel.ai import policy
from engine.burkozel.ai.sim import sample_world


def play_deal(players: int, rng: random.Random, *, validated: bool) -> int:
    """Play one random full deal; return the number of moves made."""
    deal = Deal.start(players, shuffled_deck(rng=rng), rng.randrange(players))
    play = deal.apply if validated else deal.push
    moves = 0
    while not deal.finished:
        play(rng.choice(deal.legal_moves()))
        moves += 1
    return moves


BURA_RULES = BuraRules(moscow="on")


def play_bura_deal(players: int, rng: random.Random, *, validated: bool) -> int:
    """Play one random full Bura deal (any seat that may act, never declaring, so the
    deal is played out unless a combination ends it); return the number of moves."""
    deal = BuraDeal.start(players, shuffled_deck(rng=rng), rng.randrange(players), BURA_RULES)
    play = deal.apply if validated else deal.push
    moves = 0
    while not deal.finished:
        options = [
            a
            for s in deal.actors()
            for a in deal.legal_actions(s)
            if getattr(a, "declare", False) is not True
        ]
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
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(20):
            moves += one_deal(players, rng, validated=validated)
            deals += 1
        elapsed = time.perf_counter() - start
    return deals / elapsed, moves / elapsed


def measure_playouts(players: int, seconds: float) -> float:
    """Greedy playouts per second, each from a fresh copy of a start-of-deal world."""
    rng = random.Random(players)
    worlds = []
    for _ in range(50):
        deal = Deal.start(players, shuffled_deck(rng=rng), rng.randrange(players))
        worlds.append(sample_world(deal.view(deal.turn or 0), rng))
    done = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for world in worlds:
            sim = world.copy()
            policy.playout(sim)
        done += len(worlds)
        elapsed = time.perf_counter() - start
    return done / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    print(f"{'game':>8} {'players':>7} {'mode':>6} {'deals/s':>10} {'moves/s':>10}")
    for game in ("burkozel", "bura"):
        for players in (2, 3, 4):
            for mode in ("push", "apply"):
                dps, mps = measure(players, args.seconds, validated=mode == "apply", game=game)
                print(f"{game:>8} {players:>7} {mode:>6} {dps:>10,.0f} {mps:>10,.0f}", flush=True)
    print(f"\n{'players':>7} {'playouts/s':>11}  (computer players' simulator, greedy rollouts)")
    for players in (2, 3, 4):
        print(f"{players:>7} {measure_playouts(players, args.seconds):>11,.0f}", flush=True)


if __name__ == "__main__":
    main()
