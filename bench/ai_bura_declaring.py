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
from engine.bura.ai import Player
from engine.bura.ai.players import utility
from engine.bura.deal import DECLARE, Deal
from engine.bura.rules import DECLARE_TARGET, Rules


def audit_deal(
    deal: Deal, players: dict[int, Player], tally: Counter[str], side: dict[int, str]
) -> None:
    """Play ``deal`` out as engine.bura.ai.play_deal does, counting each declaring moment."""
    missed: set[int] = set()
    last_pile: dict[int, tuple[int, int]] = {}  # seat -> (closed cards, their points)
    while not deal.finished:
        turn = deal.turn
        chosen: Action | None = None
        for seat in deal.actors():
            if seat != turn:
                chosen = players[seat].choose(deal.view(seat), deal.legal_actions(seat))
                if chosen is not None:
                    break
        if chosen is None:
            assert turn is not None
            chosen = players[turn].choose(deal.view(turn), deal.legal_actions(turn))
            assert chosen is not None
            if deal.phase == DECLARE:
                total = deal.points()[turn]
                closed = [pc.card.points for pc in deal.piles[turn] if pc.closed]
                last_pile[turn] = (len(closed), sum(closed))
                who = side[turn]
                if isinstance(chosen, Declare) and chosen.declare:
                    tally[f"{who} declared, true"] += total >= DECLARE_TARGET
                    tally[f"{who} declared, false"] += total < DECLARE_TARGET
                elif total >= DECLARE_TARGET:
                    tally[f"{who} passed on 31 or more"] += 1
                    missed.add(turn)
        deal.apply(chosen)
    result = deal.result()
    for seat in missed:
        tally[f"{side[seat]} deals with a missed declaration"] += 1
        lost = utility(result, seat, deal.rules, deal.players) <= 0
        tally[f"{side[seat]} deals with a missed declaration, then lost"] += lost
    for seat, (cards, points) in last_pile.items():
        tally[f"{side[seat]} face-down cards in its pile"] += cards
        tally[f"{side[seat]} their points"] += points


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="hard")
    parser.add_argument("--b", default="pimc:170")
    parser.add_argument("--pairs", type=int, default=50, help="decks, each played twice")
    parser.add_argument("--first-deck", type=int, default=0)
    parser.add_argument("--rules", default="")
    args = parser.parse_args(argv)
    rules: Rules = parse_rules(args.rules)
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
