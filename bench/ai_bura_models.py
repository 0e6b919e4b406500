"""How well ``hard``'s models of the other seat fit a real opponent, 2 players, on the
duplicate decks of bench/ai_bura.py. Prints; never asserts.

At each decision of the measured seat A (a ``hard`` level, whose own leans are used):
- **trumps in the other hand**: the mean number its sampled worlds put in the other seat's
  hand of three, against the real hand, by how many cards the stock still holds; beside
  it the same worlds with no trump lean (``trump_weight`` 1, as the plain Monte Carlo
  player samples);
- **its face-down cards**: the points its worlds give the face-down cards of its own pile
  (the other seat's discards, D3) against their real points, by how many there are.
At each decision of the other seat B: how often **greedy's rule** (what ``hard``'s
playouts play for B) chooses B's real move, by phase.

    .venv/bin/python bench/ai_bura_models.py --a hard:40 --b pimc:170 --pairs 40
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.ai_bura import deck_for, make
from engine.bura.actions import Action
from engine.bura.ai import Player, StrongPlayer, play_deal
from engine.bura.ai.players import canonical, optional
from engine.bura.ai.policy import Situation, greedy
from engine.bura.ai.world import sample_world
from engine.bura.deal import Deal
from engine.bura.rules import Rules
from engine.bura.view import View
from engine.cards import Card

WORLDS = 100  # sampled per decision of A for the figures (not A's own search)
STOCK_BAND = 6  # cards of stock per row of the trumps table


class Tables:
    def __init__(self) -> None:
        # stock band -> (lean's trumps, uniform's trumps, real trumps) per decision
        self.trumps: dict[int, list[tuple[float, float, int]]] = defaultdict(list)
        # face-down cards in A's pile -> (worlds' points, real points) per decision
        self.closed: dict[int, list[tuple[float, int]]] = defaultdict(list)
        # phase -> greedy chose B's move, per decision of B
        self.alike: dict[str, list[bool]] = defaultdict(list)


def _trumps(hand: Sequence[Card], view: View) -> int:
    return sum(card.suit is view.trump for card in hand)


class Measured:
    """Seat A: before each decision, its worlds are compared with the real ``deal``."""

    def __init__(self, player: StrongPlayer, deal: Deal, tables: Tables) -> None:
        self.player, self.deal, self.tables = player, deal, tables

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        p, deal, other = self.player, self.deal, 1 - view.seat
        rng = random.Random(f"{view}")
        trumps: list[list[int]] = [[], []]  # with the player's trump lean, with none
        closed = []
        for weight, counts in zip((p.trump_weight, 1.0), trumps, strict=True):
            for _ in range(WORLDS):
                world = sample_world(
                    view, p.rules, rng, p.temperature, p.lead_lean, p.beater_lean,
                    weight, p.rank_lean, p.last_lean,
                )  # fmt: skip
                counts.append(_trumps(world.hands[other], view))
                closed.append(sum(pc.card.points for pc in world.piles[view.seat] if pc.closed))
        leaned, uniform = trumps
        if len(deal.hands[other]) == 3:
            self.tables.trumps[view.stock_size // STOCK_BAND].append(
                (
                    statistics.fmean(leaned),
                    statistics.fmean(uniform),
                    _trumps(deal.hands[other], view),
                )
            )
        real = [pc.card.points for pc in deal.piles[view.seat] if pc.closed]
        if real:
            self.tables.closed[len(real)].append((statistics.fmean(closed), sum(real)))
        return p.choose(view, legal)


class Predicted:
    """Seat B: each decision with a choice is compared with greedy's rule."""

    def __init__(self, player: Player, rules: Rules, tables: Tables) -> None:
        self.player, self.rules, self.tables = player, rules, tables

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        chosen = self.player.choose(view, legal)
        if len(legal) > 1 or optional(view):
            rule = greedy(Situation.of_view(view, self.rules), canonical(legal))
            self.tables.alike[view.phase].append(rule == chosen)
        return chosen


def run(spec_a: str, spec_b: str, pairs: int, first: int) -> Tables:
    rules, tables = Rules(), Tables()
    for index in range(first, first + pairs):
        deck = deck_for(index, 2, rules)
        for seat_a in range(2):
            deal = Deal.start(2, deck, 0, rules)
            a = make(spec_a, rules, index)
            if not isinstance(a, StrongPlayer):
                raise SystemExit(f"--a must be a hard or normal level, not {spec_a}")
            seats: dict[int, Player] = {
                seat_a: Measured(a, deal, tables),
                1 - seat_a: Predicted(make(spec_b, rules, index * 10 + 1 - seat_a), rules, tables),
            }
            play_deal(deal, seats)
    return tables


def report(tables: Tables, spec_a: str, spec_b: str) -> None:
    print(f"== {spec_a} against {spec_b}")
    print("  trumps in the other hand of three (mean per decision): worlds / no lean / real")
    for band, rows in sorted(tables.trumps.items()):
        leaned, uniform, real = (statistics.fmean(r[i] for r in rows) for i in range(3))
        low, high = band * STOCK_BAND, band * STOCK_BAND + STOCK_BAND - 1
        print(
            f"    stock {low:2}-{high:2}: {leaned:.2f} / {uniform:.2f} / {real:.2f} ({len(rows)})"
        )
    rows = [r for band in tables.trumps.values() for r in band]
    if rows:
        leaned, uniform, real = (statistics.fmean(r[i] for r in rows) for i in range(3))
        print(f"    all         : {leaned:.2f} / {uniform:.2f} / {real:.2f} ({len(rows)})")
    print("  points of the face-down cards in its own pile (mean): worlds / real")
    for count, pairs in sorted(tables.closed.items()):
        worlds, real = (statistics.fmean(p[i] for p in pairs) for i in range(2))
        print(f"    {count} face down: {worlds:5.2f} / {real:5.2f} ({len(pairs)})")
    print(f"  greedy's rule chose {spec_b}'s move:")
    for phase, alike in sorted(tables.alike.items()):
        print(f"    {phase}: {sum(alike) / len(alike):.1%} of {len(alike)} decisions")
    every = [x for alike in tables.alike.values() for x in alike]
    if every:
        print(f"    all: {sum(every) / len(every):.1%} of {len(every)} decisions", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="hard:40", help="the measured seat (hard or normal)")
    parser.add_argument("--b", default="pimc:170", help="the other seat")
    parser.add_argument("--pairs", type=int, default=40, help="decks, each played twice")
    parser.add_argument("--first-deck", type=int, default=0)
    args = parser.parse_args(argv)
    report(run(args.a, args.b, args.pairs, args.first_deck), args.a, args.b)


if __name__ == "__main__":
    main()
