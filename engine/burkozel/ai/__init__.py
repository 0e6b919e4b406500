"""Computer players for Burkozel: pure, seeded, deciding from a seat's view only.

``make_player(level, seed).choose(view, legal)`` returns one of ``legal``;
``safe_move(view, legal)`` is the cheap deterministic move for an absent player.
"""

from engine.burkozel.ai.players import (
    LEVELS,
    GreedyPlayer,
    Player,
    RandomPlayer,
    StrongPlayer,
    canonical,
    make_player,
    safe_move,
    strong_player,
)

__all__ = [
    "LEVELS",
    "GreedyPlayer",
    "Player",
    "RandomPlayer",
    "StrongPlayer",
    "canonical",
    "make_player",
    "safe_move",
    "strong_player",
]
