"""The strong player's rollout policy: the greedy policy, made to use the sampled world.

A playout runs inside one determinization, where every hand is known. Our greedy
policy ignores that and guesses (a fixed chance that a later seat beats an answer; in
the endgame it cashes only a trump ace). Here each seat plays the world it is in:

- an answer that beats counts as winning the trick only if no seat still to answer
  holds a cover for it in this world (3-4 players; with 2 the answerer is last anyway);
- with the stock empty, a seat leads its richest card that no other hand can beat,
  cashing points the way a strong player does at the end of a deal.

So the opponents in each world are modelled as better than our greedy policy: they
play as well informed as the world lets them, which is what the search must expect
from strong people. Everything else is the greedy policy.
"""

from __future__ import annotations

from itertools import combinations

from engine.burkozel.ai import policy
from engine.burkozel.ai.sim import PTS, Sim, covers
from engine.fast import BEATEN_BY

Option = tuple[tuple[int, ...], bool | None]


def can_cover(hand: list[int], claim: tuple[int, ...], trump: int) -> bool:
    """Does ``hand`` hold cards that beat all of ``claim`` (R7)?"""
    if len(claim) == 1:
        beaten_by = BEATEN_BY[trump][claim[0]]  # R5: bit c set when card c beats the claim
        for c in hand:  # noqa: SIM110 - a plain loop: any() over a generator costs more
            if beaten_by >> c & 1:
                return True
        return False
    return any(covers(combo, claim, trump) for combo in combinations(hand, len(claim)))


def answer(sim: Sim) -> Option:
    """Beat when the trick is worth the cards and nobody after us can take it back."""
    seat, n, trump = sim.turn, sim.n, sim.trump
    after = sim.left - 1
    hand = sim.hands[seat]
    if not after:
        return policy.answer(hand, trump, sim.claim, sim.table_pts, 0, n)
    later = [sim.hands[(seat + i) % n] for i in range(1, after + 1)]
    keep = policy.KEEP[trump]
    share = 0.5  # points lost to one of several rivals hurt less
    best_beat: tuple[int, ...] | None = None
    best_beat_value = float("-inf")
    best_disc: tuple[int, ...] = ()
    best_disc_value = float("-inf")
    for combo in combinations(hand, sim.k):
        won = sim.table_pts
        cost = 0.0
        for c in combo:
            won += PTS[c]
            cost += keep[c]
        lost = -won * share - cost
        if lost > best_disc_value:
            best_disc_value, best_disc = lost, combo
        if covers(combo, sim.claim, trump):
            held = not any(can_cover(h, combo, trump) for h in later)
            value = won - cost if held else lost
            if value > best_beat_value:
                best_beat_value, best_beat = value, combo
    if best_beat is not None and best_beat_value >= best_disc_value:
        return best_beat, True
    return best_disc, False


def lead(sim: Sim) -> Option:
    """Greedy, except with the stock empty: cash the richest card nobody can beat."""
    seat, trump = sim.turn, sim.trump
    hand = sim.hands[seat]
    if not sim.stock:
        others = [h for s, h in enumerate(sim.hands) if s != seat]
        best = -1
        for c in hand:
            if (best < 0 or PTS[c] > PTS[best]) and not any(
                can_cover(h, (c,), trump) for h in others
            ):
                best = c
        if best >= 0:
            return (best,), None
    return policy.lead(hand, trump, sim.lead_limit(), len(sim.stock)), None


def decide(sim: Sim) -> Option:
    """The informed move for the seat to act in ``sim``."""
    return answer(sim) if sim.k else lead(sim)


def playout(sim: Sim) -> None:
    """Play ``sim`` to the end with the informed policy for every seat."""
    while sim.turn >= 0:
        cards, beat = answer(sim) if sim.k else lead(sim)
        sim.play(cards, beat)
