"""Exact play for two players once nothing that matters is hidden.

Once the stock is empty in a two-player deal, every card not seen is in the other
hand: the rest of the deal is a perfect-information game, so the player searches it
to the end instead of sampling. :class:`Solver` is plain minimax over a zero-sum
utility (the opponent plays its best reply, not our greedy policy), made fast by
alpha-beta pruning, a transposition table (the same cards left, the same trick and the
same points are one position, however play got there) and move ordering (beats and
rich plays first).

The same search also solves one fully determined world while a few stock cards remain
(draws then follow the world's stock order), for the "few worlds left" case.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from engine.burkozel.ai.sim import PTS, Sim, covers
from engine.fast import group_leads_of

Option = tuple[tuple[int, ...], bool | None]
Key = tuple[int, int, int, int, tuple[int, ...], int, int, int]

EXACT, LOWER, UPPER = 0, 1, 2


def options(sim: Sim) -> list[Option]:
    """Every legal move of the seat to act in ``sim``."""
    hand = sorted(sim.hands[sim.turn])
    if not sim.k:
        found: list[Option] = [((c,), None) for c in hand]
        found += [(group, None) for group in group_leads_of(hand, sim.lead_limit())]
        return found
    found = []
    for combo in combinations(hand, sim.k):
        if covers(combo, sim.claim, sim.trump):
            found.append((combo, True))  # beats first: they usually decide the trick
        found.append((combo, False))
    return found


def ordered_options(sim: Sim) -> list[Option]:
    """:func:`options`, likely best first (better alpha-beta cut-offs): beats before
    discards, and within each the most points first (tricks in Burkozel are won for
    their points); discards and leads of the cheapest cards come before middling ones."""
    found = options(sim)
    found.sort(key=lambda o: (o[1] is not True, -sum(PTS[c] for c in o[0])))
    return found


def _mask(cards: list[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class Solver:
    """Minimax value for ``me`` of two-player positions in which every card is placed.

    ``value`` scores a finished deal for ``me`` (the other seat gets minus that). One
    solver serves one world (its table is keyed by the cards left, not by which stock
    they came from): make a new one per world.
    """

    def __init__(self, me: int, value: Callable[[Sim], float]) -> None:
        self.me = me
        self.value = value
        self.table: dict[Key, tuple[float, int]] = {}
        self.nodes = 0

    def key(self, sim: Sim) -> Key:
        return (
            _mask(sim.hands[0]),
            _mask(sim.hands[1]),
            len(sim.stock),
            sim.turn,
            sim.claim,
            sim.claimant,
            sim.table_pts,
            sim.points[0],
        )

    def values(self, sim: Sim, moves: list[Option]) -> list[float]:
        """The exact value of each of ``moves`` (legal for the seat to act in ``sim``)."""
        out = []
        for cards, beat in moves:
            child = sim.copy()
            child.play(cards, beat)
            out.append(self.search(child, -1e9, 1e9))
        return out

    def search(self, sim: Sim, alpha: float, beta: float) -> float:
        """Minimax value of ``sim`` for ``me`` (fail-soft alpha-beta)."""
        if sim.turn < 0:
            return self.value(sim)
        self.nodes += 1
        key = self.key(sim)
        hit = self.table.get(key)
        if hit is not None:
            stored, flag = hit
            if flag == EXACT:
                return stored
            if flag == LOWER and stored >= beta:
                return stored
            if flag == UPPER and stored <= alpha:
                return stored
        a0, b0 = alpha, beta
        maximizing = sim.turn == self.me
        best = -1e9 if maximizing else 1e9
        for cards, beat in ordered_options(sim):
            child = sim.copy()
            child.play(cards, beat)
            score = self.search(child, alpha, beta)
            if maximizing:
                if score > best:
                    best = score
                    alpha = max(alpha, best)
            elif score < best:
                best = score
                beta = min(beta, best)
            if alpha >= beta:
                break
        if best <= a0:
            flag = UPPER
        elif best >= b0:
            flag = LOWER
        else:
            flag = EXACT
        self.table[key] = (best, flag)
        return best
