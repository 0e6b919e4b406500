"""Where two players' games on the same deck part: the first different move.

    .venv/bin/python bench/ai_diverge.py hard mc:300 1001,1006,1007

For each deck (numbered as in ``bench/ai.py``, real shared stock, 2 players, the same
seeds) plays both rotations, A in seat 0 then B in seat 0, and prints the first
decision at which the two games differ: the position (stock left, points, trump,
hand, table), each player's move there, and the points that seat ended the deal with
in each game. Before that decision both games are identical.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench.ai import make
from engine.burkozel.deal import Action, Deal, View
from engine.cards import shuffled_deck


def play(
    spec_a: str, spec_b: str, index: int, a_seat: int
) -> tuple[list[tuple[int, View, Action]], tuple[int, ...]]:
    deck = shuffled_deck(seed=f"bench-{index}")
    seats = [make(spec_a if s == a_seat else spec_b, index * 10 + s) for s in range(2)]
    deal = Deal.start(2, deck, 1)
    history = []
    while not deal.finished:
        seat = deal.turn
        assert seat is not None
        view = deal.view(seat)
        move = seats[seat].choose(view, deal.legal_actions())
        history.append((seat, view, move))
        deal.apply(move)
    return history, deal.result().points


def text(move: Action) -> str:
    kind = "" if move.beat is None else (" beat" if move.beat else " discard")
    return " ".join(c.code() for c in move.cards) + kind


def same(a: Action, b: Action) -> bool:
    return (sorted(c.index for c in a.cards), a.beat) == (sorted(c.index for c in b.cards), b.beat)


def main(argv: Sequence[str]) -> int:
    spec_a, spec_b, decks = argv[0], argv[1], [int(x) for x in argv[2].split(",")]
    for index in decks:
        first, points_first = play(spec_a, spec_b, index, 0)
        second, points_second = play(spec_a, spec_b, index, 1)
        for step, ((seat, view, m1), (_, _, m2)) in enumerate(zip(first, second, strict=False)):
            if same(m1, m2):
                continue
            # In the first game seat 0 is A; in the second seat 0 is B.
            a_move, b_move = (m1, m2) if seat == 0 else (m2, m1)
            a_pts, b_pts = (
                (points_first[seat], points_second[seat])
                if seat == 0
                else (points_second[seat], points_first[seat])
            )
            table = " / ".join(" ".join(c.code() for c in p.cards) for p in view.table)
            print(
                f"deck {index} step {step} seat {seat} stock {view.stock_size} points {view.points}"
                f" trump {view.trump_card.code()} hand {' '.join(c.code() for c in view.hand)}"
                f" table [{table}] | {spec_a}: {text(a_move)} -> {a_pts} |"
                f" {spec_b}: {text(b_move)} -> {b_pts}",
                flush=True,
            )
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
