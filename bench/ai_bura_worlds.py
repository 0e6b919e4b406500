"""How well the Bura strong player's sampled worlds match the real hidden cards. Prints.

Plays ``--a`` (a bench/ai_bura.py spec) against ``--b`` (greedy unless told) on
``--decks`` decks and, at each of its decisions, compares the worlds it would sample with
the real deal:

- per kind of unseen card (trump or plain, by rank): how often it really is in the
  other hand, against the share of worlds that put it there (the ratio gave
  ``engine.bura.ai.world.PLAIN_RANK_WEIGHT``, measured with
  ``--a hard:20+rank_lean=0+last_lean=1``, worlds with no rank lean);
- at each chance to declare (D5): the share of worlds whose pile holds 31, against how
  often the real pile did, and how often the player declared.

    .venv/bin/python bench/ai_bura_worlds.py --decks 60 --first-deck 3000
    .venv/bin/python bench/ai_bura_worlds.py --b pimc:170   # worlds fit to greedy, met by another
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import Counter
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.ai_bura import deck_for, make
from engine.bura.actions import Action, Declare
from engine.bura.ai import StrongPlayer, play_deal
from engine.bura.ai.world import sample_world
from engine.bura.deal import Deal
from engine.bura.rules import DECLARE_TARGET, Rules
from engine.bura.view import View
from engine.cards import DECK

WORLDS = 40


class Watch:
    """Wraps the strong player and compares its worlds with the real deal."""

    def __init__(self, player: StrongPlayer, deal: Deal) -> None:
        self.player, self.deal = player, deal
        self.real: Counter[str] = Counter()
        self.sampled: Counter[str] = Counter()
        self.seen: Counter[str] = Counter()
        self.declares: list[tuple[float, bool, bool]] = []  # share, really 31, declared
        # Per decision: the squared error of the worlds' mean trump count in the other
        # hand, and the Brier score of the worlds' hand (sum over unseen cards).
        self.trump_errors: list[float] = []
        self.briers: list[float] = []

    def worlds(self, view: View) -> list[Deal]:
        p, rng = self.player, random.Random(repr(view))
        return [
            sample_world(
                view,
                p.rules,
                rng,
                p.temperature,
                p.lead_lean,
                p.beater_lean,
                p.trump_weight,
                p.rank_lean,
                p.last_lean,
            )
            for _ in range(WORLDS)
        ]

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        choice = self.player.choose(view, legal)
        if len(legal) < 2:
            return choice
        worlds = self.worlds(view)
        other = 1 - view.seat
        known = {*view.hand, *view.seen_cards(), view.trump_card}
        known |= {c for c, _ in view.my_closed}
        real_trumps = sum(c.suit is view.trump for c in self.deal.hands[other])
        mean_trumps = sum(sum(c.suit is view.trump for c in w.hands[other]) for w in worlds)
        self.trump_errors.append((mean_trumps / WORLDS - real_trumps) ** 2)
        brier = 0.0
        for card in DECK:
            if card in known:
                continue
            kind = f"{'trump' if card.suit is view.trump else 'plain'} {card.rank.name.lower()}"
            self.seen[kind] += 1
            self.real[kind] += card in self.deal.hands[other]
            share = sum(card in w.hands[other] for w in worlds) / WORLDS
            self.sampled[kind] += share
            brier += (share - (card in self.deal.hands[other])) ** 2
        self.briers.append(brier)
        if view.phase == "declare" and view.turn == view.seat:
            share = sum(w.points()[view.seat] >= DECLARE_TARGET for w in worlds) / WORLDS
            real = self.deal.points()[view.seat] >= DECLARE_TARGET
            declared = isinstance(choice, Declare) and choice.declare
            self.declares.append((share, real, declared))
        return choice


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="hard", help="the strong player's spec")
    parser.add_argument("--b", default="greedy", help="the other seat's spec")
    parser.add_argument("--decks", type=int, default=60)
    parser.add_argument("--first-deck", type=int, default=3000)
    args = parser.parse_args()
    rules = Rules()
    watches: list[Watch] = []
    for index in range(args.first_deck, args.first_deck + args.decks):
        deck = deck_for(index, 2, rules)
        for seat in range(2):
            deal = Deal.start(2, deck, 0, rules)
            player = make(args.a, rules, index)
            assert isinstance(player, StrongPlayer)
            watch = Watch(player, deal)
            watches.append(watch)
            play_deal(deal, {seat: watch, 1 - seat: make(args.b, rules, index * 10 + 1 - seat)})
    seen, real, sampled = Counter[str](), Counter[str](), Counter[str]()
    for w in watches:
        seen.update(w.seen)
        real.update(w.real)
        sampled.update(w.sampled)
    print(f"{args.a} vs {args.b}, {2 * args.decks} deals: unseen cards in the other hand")
    for kind in sorted(seen):
        ratio = real[kind] / sampled[kind] if sampled[kind] else float("nan")
        print(
            f"  {kind:13} {seen[kind]:6} real {real[kind] / seen[kind]:.3f}"
            f" worlds {sampled[kind] / seen[kind]:.3f} ratio {ratio:.2f}"
        )
    errors = [e for w in watches for e in w.trump_errors]
    briers = [b for w in watches for b in w.briers]
    print(
        f"  over {len(errors)} decisions: Brier score of the other hand"
        f" {sum(briers) / len(briers):.3f}, mean squared error of its trump count"
        f" {sum(errors) / len(errors):.3f}"
    )
    print("chances to declare, by the share of worlds whose pile holds 31 (D5)")
    rows = [row for w in watches for row in w.declares]
    for low in range(0, 11):
        band = [r for r in rows if min(int(r[0] * 10), 10) == low]
        if band:
            print(
                f"  {low / 10:.1f}+ {len(band):4} really 31: {sum(r[1] for r in band) / len(band):.2f}"
                f" declared: {sum(r[2] for r in band) / len(band):.2f}"
            )


if __name__ == "__main__":
    main()
