"""The computer players choose the same moves on two engines.

Plays seeded deals with ``hard`` against ``greedy`` (Burkozel, 2 and 3 players, base
and house rules; Bura, 2 and 3 players with Москва and даве on) and prints a digest of
every move chosen, with the CPU seconds the players spent. Run it in two trees and
compare the digests:

    .venv/bin/python bench/engine_same.py               # this tree
    .venv/bin/python bench/engine_same.py --root DIR    # e.g. a git archive of main
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--deals", type=int, default=6, help="deals per table")
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    from engine import bura, burkozel, shuffled_deck
    from engine.bura.ai.players import make_player as make_bura_player
    from engine.bura.ai.players import play_deal
    from engine.burkozel import Deal
    from engine.burkozel.ai import make_player

    tables = [
        (2, burkozel.Rules()),
        (3, burkozel.Rules()),
        (2, burkozel.Rules(combinations="on", discards="closed", max_lead=4)),
    ]
    for players, rules in tables:
        digest = hashlib.sha256()
        moves = 0
        start = time.process_time()
        for d in range(args.deals):
            deal = Deal.start(players, shuffled_deck(seed=f"same-{d}"), d % players, rules)
            seats = [
                make_player("hard" if s == d % players else "greedy", d * 10 + s)
                for s in range(players)
            ]
            while not deal.finished:
                seat = deal.turn
                assert seat is not None
                move = seats[seat].choose(deal.view(seat), deal.legal_actions())
                digest.update(json.dumps(move.to_json()).encode())
                deal.apply(move)
                moves += 1
        spent = time.process_time() - start
        print(
            f"burkozel {players}p {rules.to_dict() or 'base'}: {moves} moves,"
            f" digest {digest.hexdigest()[:16]}, {spent:.1f} CPU s"
        )
    for players in (2, 3):
        bura_rules = bura.Rules(moscow="on", dave="on" if players == 2 else "off")
        digest = hashlib.sha256()
        moves = 0
        start = time.process_time()
        for d in range(args.deals):
            deal = bura.Deal.start(
                players, shuffled_deck(seed=f"same-{d}"), d % players, bura_rules
            )
            seats = {
                s: make_bura_player(
                    "hard" if s == d % players else "greedy", bura_rules, d * 10 + s
                )
                for s in range(players)
            }
            play_deal(deal, seats)
            for action in deal.history:
                digest.update(json.dumps(action.to_json()).encode())
            moves += len(deal.history)
        spent = time.process_time() - start
        print(
            f"    bura {players}p {bura_rules.to_dict()}: {moves} moves,"
            f" digest {digest.hexdigest()[:16]}, {spent:.1f} CPU s"
        )


if __name__ == "__main__":
    main()
