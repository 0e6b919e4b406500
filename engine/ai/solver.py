"""Exact play for the two-player endgame.

Once the stock is empty in a two-player deal, every card not seen is in the other
hand: the deal has perfect information, so instead of sampling, the player searches
the rest of the deal to the end (alpha-beta over a zero-sum utility). With at most
four cards each this is a few thousand positions.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from engine.ai.sim import Sim, covers

Option = tuple[tuple[int, ...], bool | None]


def options(sim: Sim) -> list[Option]:
    """Every legal move of the seat to act in ``sim``."""
    hand = sorted(sim.hands[sim.turn])
    if not sim.k:
        found: list[Option] = [((c,), None) for c in hand]
        for size in range(2, sim.lead_limit() + 1):
            found += [
                (combo, None)
                for combo in combinations(hand, size)
                if len({c // 9 for c in combo}) == 1
            ]
        return found
    found = []
    for combo in combinations(hand, sim.k):
        if covers(combo, sim.claim, sim.trump):
            found.append((combo, True))  # beats first: they usually decide the trick
        found.append((combo, False))
    return found


def solve(
    sim: Sim,
    me: int,
    value: Callable[[Sim], float],
    alpha: float,
    beta: float,
    model: Callable[[Sim], Option] | None = None,
) -> float:
    """Minimax value for ``me`` of ``sim`` (two players, ``value`` zero-sum at the end).

    With ``model``, the other seat is assumed to play that policy instead of its best
    reply: the value of our best response to it (what the rollouts assume elsewhere).
    """
    if sim.turn < 0:
        return value(sim)
    if model is not None and sim.turn != me:
        child = sim.copy()
        child.play(*model(child))
        return solve(child, me, value, alpha, beta, model)
    maximizing = sim.turn == me
    best = -1e9 if maximizing else 1e9
    for cards, beat in options(sim):
        child = sim.copy()
        child.play(cards, beat)
        score = solve(child, me, value, alpha, beta, model)
        if maximizing:
            if score > best:
                best = score
            alpha = max(alpha, best)
        else:
            if score < best:
                best = score
            beta = min(beta, best)
        if alpha >= beta:
            break
    return best
