"""Another style for the other seats in the strong player's playouts (issue 13).

The playouts model every seat with our greedy policy; people (and other searches) do
not play like it. Here the other seats may instead play an *aggressive* style that
beats whenever it can (R7: with its cheapest cover) and leads its richest plain cards
(R6: several of one suit when it can), so the search also expects an opponent that
contests every trick. The strong player picks one style per world for all the other seats
(``StrongPlayer(mix=...)``), so every move of a decision is still compared on the
same worlds.
"""

from __future__ import annotations

from itertools import combinations

from engine.ai import policy
from engine.ai.sim import PTS, RANK, Sim, covers

Option = tuple[tuple[int, ...], bool | None]


def _cost(cards: tuple[int, ...], trump: int) -> tuple[int, int, int]:
    """What a set of cards is worth keeping: trumps first, then points, then rank."""
    return (
        sum(c // 9 == trump for c in cards),
        sum(PTS[c] for c in cards),
        sum(RANK[c] for c in cards),
    )


def aggressive(sim: Sim) -> Option:
    """The aggressive style's move for the seat to act in ``sim``."""
    hand, trump = sorted(sim.hands[sim.turn]), sim.trump
    if not sim.k:
        limit = sim.lead_limit()
        best: tuple[int, ...] = ()
        best_key = (-1, 0)
        for size in range(1, limit + 1):
            for combo in combinations(hand, size):
                suit = combo[0] // 9
                if suit == trump or any(c // 9 != suit for c in combo):
                    continue
                key = (sum(PTS[c] for c in combo), size)
                if key > best_key:
                    best, best_key = combo, key
        if not best:  # only trumps: the cheapest one
            best = (min(hand, key=lambda c: _cost((c,), trump)),)
        return best, None
    cover: tuple[int, ...] | None = None
    discard: tuple[int, ...] = ()
    for combo in combinations(hand, sim.k):
        cost = _cost(combo, trump)
        if covers(combo, sim.claim, trump) and (cover is None or cost < _cost(cover, trump)):
            cover = combo
        if not discard or cost < _cost(discard, trump):
            discard = combo
    if cover is not None:
        return cover, True
    return discard, False


def playout(sim: Sim, seat: int) -> None:
    """Play ``sim`` to the end: ``seat`` greedily, every other seat aggressively."""
    while sim.turn >= 0:
        sim.play(*(policy.decide(sim) if sim.turn == seat else aggressive(sim)))
