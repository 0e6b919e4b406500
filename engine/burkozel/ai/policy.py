"""The greedy rule-based policy on card indices: the baseline player and the playout policy.

One function serves both, so what the search assumes about play is exactly the
baseline it is measured against, and it is cheap: no enumeration of all legal moves,
at most C(4, k) answer sets.

Values are in deal points from this seat's point of view. Cards leave the hand
either way, so an answer compares what the trick is worth to us with what the cards
we spend could still do later ("keep" value: trumps and high cards win tricks).
"""

from __future__ import annotations

import random
from itertools import combinations

from engine.burkozel.ai.sim import PTS, RANK, Sim, covers

# Keep value of a card beyond its points: trumps win tricks later, high plain
# cards sometimes do. Indexed [trump][card].
KEEP: tuple[tuple[float, ...], ...] = tuple(
    tuple((6.0 + 1.0 * RANK[c]) if c // 9 == t else 0.3 * RANK[c] for c in range(36))
    for t in range(4)
)

# Chance that nobody after us beats our answer, by how many still answer.
HOLD = (1.0, 0.55, 0.35)


# The lead order of single cards: points plus keep value, then the index (ties).
LEAD_KEY: tuple[tuple[tuple[float, int], ...], ...] = tuple(
    tuple((PTS[c] + KEEP[t][c], c) for c in range(36)) for t in range(4)
)


def lead(hand: list[int], trump: int, limit: int, stock_left: int) -> tuple[int, ...]:
    """Lead low: a cheap single, or several worthless plain cards of one suit.

    Several cards make every other player answer with as many: they spend more
    cards (trumps, if they want the trick) to win nothing, or hand over their worst.
    """
    if limit >= 2:
        zero: list[list[int]] = [[], [], [], []]
        for c in hand:
            if not PTS[c]:
                zero[c // 9].append(c)
        best_group: tuple[int, ...] = ()
        for suit in range(4):
            group = zero[suit]
            if suit != trump and len(group) > len(best_group):
                best_group = tuple(sorted(group)[:limit])
        if len(best_group) >= 2:
            return best_group
    if not stock_left:
        # Endgame: nothing more to draw, so lead the strongest single to cash points.
        top = max(hand, key=lambda c: (c // 9 == trump, RANK[c], PTS[c]))
        if c_is_boss(top, hand, trump):
            return (top,)
    return (min(hand, key=LEAD_KEY[trump].__getitem__),)


def c_is_boss(card: int, hand: list[int], trump: int) -> bool:
    """A trump ace (or a trump above every other trump not in our hand) wins its lead."""
    return card // 9 == trump and RANK[card] == 8


def _answer_options(
    hand: list[int],
    trump: int,
    claim: tuple[int, ...],
    table_pts: int,
    after: int,
    players: int,
) -> tuple[tuple[int, ...] | None, float, tuple[int, ...], float]:
    """The best beat (``None`` if none covers) and the best discard, with their values."""
    keep = KEEP[trump]
    k = len(claim)
    hold = HOLD[min(after, 2)]
    share = 1.0 if players == 2 else 0.5  # points lost to one of several rivals hurt less
    best_beat: tuple[int, ...] | None = None
    best_beat_value = float("-inf")
    best_disc: tuple[int, ...] = ()
    best_disc_value = float("-inf")
    if k == 1:
        # The common case, inlined (same order and ties as the general loop below).
        c0 = claim[0]
        s0 = c0 // 9
        for c in hand:
            won = table_pts + PTS[c]
            cost = keep[c]
            disc = -won * share - cost
            if disc > best_disc_value:
                best_disc_value, best_disc = disc, (c,)
            sc = c // 9
            if c > c0 if sc == s0 else sc == trump:
                value = hold * won - (1.0 - hold) * won * share - cost
                if value > best_beat_value:
                    best_beat_value, best_beat = value, (c,)
        return best_beat, best_beat_value, best_disc, best_disc_value
    for combo in combinations(hand, k):
        pts = 0
        cost = 0.0
        for c in combo:
            pts += PTS[c]
            cost += keep[c]
        won = table_pts + pts
        disc = -won * share - cost
        if disc > best_disc_value:
            best_disc_value, best_disc = disc, combo
        if covers(combo, claim, trump):
            value = hold * won - (1.0 - hold) * won * share - cost
            if value > best_beat_value:
                best_beat_value, best_beat = value, combo
    return best_beat, best_beat_value, best_disc, best_disc_value


def answer(
    hand: list[int],
    trump: int,
    claim: tuple[int, ...],
    table_pts: int,
    after: int,
    players: int,
) -> tuple[tuple[int, ...], bool]:
    """Beat when the trick is worth the cards it costs, else discard the least valuable."""
    beat, beat_value, disc, disc_value = _answer_options(
        hand, trump, claim, table_pts, after, players
    )
    if beat is not None and beat_value >= disc_value:
        return beat, True
    return disc, False


def answer_values(
    hand: list[int],
    trump: int,
    claim: tuple[int, ...],
    table_pts: int,
    after: int,
    players: int,
) -> tuple[float, float]:
    """The values :func:`answer` compares: best beat (``-inf`` if none) and best discard."""
    _, beat_value, _, disc_value = _answer_options(hand, trump, claim, table_pts, after, players)
    return beat_value, disc_value


def decide(sim: Sim) -> tuple[tuple[int, ...], bool | None]:
    """The greedy move for the seat to act in ``sim``."""
    hand = sim.hands[sim.turn]
    if not sim.k:
        return lead(hand, sim.trump, sim.lead_limit(), len(sim.stock)), None
    return answer(hand, sim.trump, sim.claim, sim.table_pts, sim.left - 1, sim.n)


def playout(sim: Sim, rng: random.Random | None = None, noise: float = 0.0) -> None:
    """Play ``sim`` to the end with the greedy policy (``noise``: chance of a random move)."""
    # decide() inlined: this loop is where the Monte Carlo search spends its time.
    hands, trump, n, play = sim.hands, sim.trump, sim.n, sim.play
    while sim.turn >= 0:
        if noise and rng is not None and rng.random() < noise:
            cards, beat = random_move(sim, rng)
        elif sim.k:
            cards, beat = answer(hands[sim.turn], trump, sim.claim, sim.table_pts, sim.left - 1, n)
        else:
            cards = lead(hands[sim.turn], trump, sim.lead_limit(), len(sim.stock))
            beat = None
        play(cards, beat)


def random_move(sim: Sim, rng: random.Random) -> tuple[tuple[int, ...], bool | None]:
    """A uniformly random legal move of ``sim`` (used for noisy playouts)."""
    hand = sim.hands[sim.turn]
    if not sim.k:
        limit = sim.lead_limit()
        leads: list[tuple[int, ...]] = [(c,) for c in hand]
        for size in range(2, limit + 1):
            leads += [
                combo
                for combo in combinations(sorted(hand), size)
                if len({c // 9 for c in combo}) == 1
            ]
        return rng.choice(leads), None
    options: list[tuple[tuple[int, ...], bool | None]] = []
    for combo in combinations(sorted(hand), sim.k):
        options.append((combo, False))
        if covers(combo, sim.claim, sim.trump):
            options.append((combo, True))
    return rng.choice(options)
