"""How well two Bura players declare (D5), on the duplicate decks of bench/ai_bura.py.
Prints; never asserts.

At every moment a seat may declare, the true points of its pile (face-down cards
included, which it cannot see) are compared with what it chose: a declaration with 31
or more, a false one, or a pass on a pile that already held 31 (a missed declaration),
and whether the deal was then lost anyway. Also the mean points of a face-down card in
each side's pile: what the other side's discards are really worth (the worlds of
``hard`` guess them from engine.bura.ai.world's DISCARD_TEMPERATURE).

    .venv/bin/python bench/ai_bura_declaring.py --a hard --b pimc:170 --pairs 50
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.ai_bura import deck_for, make, parse_rules
from engine.bura.actions import Action, Declare
from engine.bura.ai import Player, play_deal
from engine.bura.ai.players import utility
from engine.bura.deal import DECLARE, Deal
from engine.bura.rules import DECLARE_TARGET
from engine.bura.view import View


class Audited:
    """Wraps one seat's player: each time it may declare, its choice is scored against
    the true pile of ``deal`` (which the player itself never sees)."""

    def __init__(self, player: Player, deal: Deal, who: str, tally: Counter[str]) -> None:
        self.player, self.deal, self.who, self.tally = player, deal, who, tally
        self.missed = False
        self.closed: list[int] = []  # points of the pile's face-down cards, last time

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        chosen = self.player.choose(view, legal)
        if view.phase == DECLARE and view.turn == view.seat:
            total, who = self.deal.points()[view.seat], self.who
            self.closed = [pc.card.points for pc in self.deal.piles[view.seat] if pc.closed]
            if isinstance(chosen, Declare) and chosen.declare:
                self.tally[f"{who} declared, true"] += total >= DECLARE_TARGET
                self.tally[f"{who} declared, false"] += total < DECLARE_TARGET
            elif total >= DECLARE_TARGET:
                self.tally[f"{who} passed on 31 or more"] += 1
                self.missed = True
        return chosen


def audit_deal(
    deal: Deal, players: dict[int, Player], tally: Counter[str], side: dict[int, str]
) -> None:
    """Play ``deal`` out (engine.bura.ai.play_deal), counting each declaring moment."""
    audited = {seat: Audited(player, deal, side[seat], tally) for seat, player in players.items()}
    play_deal(deal, audited)
    result = deal.result()
    for seat, seen in audited.items():
        if seen.missed:
            tally[f"{seen.who} deals with a missed declaration"] += 1
            lost = utility(result, seat, deal.rules, deal.players) <= 0
            tally[f"{seen.who} deals with a missed declaration, then lost"] += lost
        tally[f"{seen.who} face-down cards in its pile"] += len(seen.closed)
        tally[f"{seen.who} their points"] += sum(seen.closed)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="hard")
    parser.add_argument("--b", default="pimc:170")
    parser.add_argument("--pairs", type=int, default=50, help="decks, each played twice")
    parser.add_argument("--first-deck", type=int, default=0)
    parser.add_argument("--rules", default="")
    args = parser.parse_args(argv)
    rules = parse_rules(args.rules)
    tally: Counter[str] = Counter()
    for index in range(args.first_deck, args.first_deck + args.pairs):
        deck = deck_for(index, 2, rules)
        for seat_a in range(2):  # the seeds of bench/ai_bura.py: the same deals as its matches
            players = {s: make(args.b, rules, index * 10 + s) for s in range(2)}
            players[seat_a] = make(args.a, rules, index)
            side = {seat_a: "A", 1 - seat_a: "B"}
            audit_deal(Deal.start(2, deck, 0, rules), players, tally, side)
    print(f"A = {args.a}, B = {args.b}: {2 * args.pairs} deals from deck {args.first_deck}")
    for who in "AB":
        for key in (
            "declared, true",
            "declared, false",
            "passed on 31 or more",
            "deals with a missed declaration",
            "deals with a missed declaration, then lost",
        ):
            print(f"  {who} {key}: {tally[f'{who} {key}']}")
        cards = tally[f"{who} face-down cards in its pile"]
        points = tally[f"{who} their points"]
        mean = points / cards if cards else 0.0
        print(
            f"  {who}'s pile at its last declaring moment: {cards} face-down cards, {mean:.2f} points each"
        )


if __name__ == "__main__":
    main()
