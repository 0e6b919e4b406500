"""Computer players for Bura: random, greedy and strong (determinized Monte Carlo);
every level takes a sure win first (``engine.bura.ai.sure``).

``make_player(level, seed).choose(view, legal)`` returns one of ``legal``, or
``None`` to let a «Стоп!» chance pass (only when the seat is not the one to act, i.e.
``view.turn != view.seat``). ``play_deal`` drives a deal with one player per seat.
"""

from engine.bura.ai.players import (
    LEVELS,
    GreedyPlayer,
    Player,
    RandomPlayer,
    StrongPlayer,
    make_player,
    play_deal,
)

__all__ = [
    "LEVELS",
    "GreedyPlayer",
    "Player",
    "RandomPlayer",
    "StrongPlayer",
    "make_player",
    "play_deal",
]
