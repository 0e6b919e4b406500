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
from engine.burkozel.rules import HAND_SIZE
from engine.cards import Card, Rank, Suit
from engine.fast import (
    BEATEN_BY,
    INDICES,
    PAIRINGS,
    SUIT_OF,
    SUITS,
    beats,
    group_leads_of,
    suit_cards,
)

# Keep value of a card beyond its points: trumps win tricks later, high plain
# cards sometimes do. Indexed [trump][card].
KEEP: tuple[tuple[float, ...], ...] = tuple(
    tuple((6.0 + 1.0 * RANK[c]) if SUIT_OF[c] == t else 0.3 * RANK[c] for c in INDICES)
    for t in range(SUITS)
)

# Chance that nobody after us beats our answer, by how many still answer.
HOLD = (1.0, 0.55, 0.35)
# No value yet: below every value (float("-inf"), parsed once).
NO_VALUE = float("-inf")


# The lead order of single cards: points plus keep value, then the index (ties).
LEAD_KEY: tuple[tuple[tuple[float, int], ...], ...] = tuple(
    tuple((PTS[c] + KEEP[t][c], c) for c in INDICES) for t in range(SUITS)
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
                zero[SUIT_OF[c]].append(c)
        best_group: tuple[int, ...] = ()
        for suit in range(SUITS):
            group = zero[suit]
            if suit != trump and len(group) > len(best_group):
                best_group = tuple(sorted(group)[:limit])
        if len(best_group) >= 2:
            return best_group
    if not stock_left:
        # Endgame: nothing more to draw, so lead the strongest single to cash points.
        top = max(hand, key=lambda c: (SUIT_OF[c] == trump, RANK[c], PTS[c]))
        if c_is_boss(top, hand, trump):
            return (top,)
    return (min(hand, key=LEAD_KEY[trump].__getitem__),)


def c_is_boss(card: int, hand: list[int], trump: int) -> bool:
    """A trump ace (or a trump above every other trump not in our hand) wins its lead."""
    return SUIT_OF[card] == trump and RANK[card] == Rank.ACE


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
    hold = HOLD[after if after < 2 else 2]
    share = 1.0 if players == 2 else 0.5  # points lost to one of several rivals hurt less
    best_beat: tuple[int, ...] | None = None
    best_beat_value = NO_VALUE
    best_disc: tuple[int, ...] = ()
    best_disc_value = NO_VALUE
    if k == 1:
        # The common case, inlined (same order and ties as the general loop below).
        beaten_by = BEATEN_BY[trump][claim[0]]  # R5: bit c set when card c beats the claim
        for c in hand:
            won = table_pts + PTS[c]
            cost = keep[c]
            disc = -won * share - cost
            if disc > best_disc_value:
                best_disc_value, best_disc = disc, (c,)
            if beaten_by >> c & 1:
                value = hold * won - (1.0 - hold) * won * share - cost
                if value > best_beat_value:
                    best_beat_value, best_beat = value, (c,)
        return best_beat, best_beat_value, best_disc, best_disc_value
    beats_of = BEATS[trump]
    size = len(hand)
    if k == 2:
        # combinations(hand, 2) in its order, the same sums; R7 from the pairing table
        # (each card's beaten claim positions packed two bits a card).
        b0, b1 = beats_of[claim[0]], beats_of[claim[1]]
        covered2 = PAIRINGS[2]
        for i in range(size - 1):
            a = hand[i]
            # won as table_pts + (PTS[a] + PTS[b]): integers, so the same sum.
            tpa, ka, ma = table_pts + PTS[a], keep[a], b0[a] | b1[a] << 1
            for b in hand[i + 1 :]:
                won = tpa + PTS[b]
                cost = ka + keep[b]
                disc = -won * share - cost
                if disc > best_disc_value:
                    best_disc_value, best_disc = disc, (a, b)
                if covered2[ma | (b0[b] | b1[b] << 1) << 2]:
                    value = hold * won - (1.0 - hold) * won * share - cost
                    if value > best_beat_value:
                        best_beat_value, best_beat = value, (a, b)
        return best_beat, best_beat_value, best_disc, best_disc_value
    if k == 3:
        # combinations(hand, 3) in its order; R7 from the pairing table (three bits a card).
        b0, b1, b2 = beats_of[claim[0]], beats_of[claim[1]], beats_of[claim[2]]
        covered3 = PAIRINGS[3]
        for i in range(size - 2):
            a = hand[i]
            pa, ka, ma = PTS[a], keep[a], b0[a] | b1[a] << 1 | b2[a] << 2
            for j in range(i + 1, size - 1):
                b = hand[j]
                pab, kab = pa + PTS[b], ka + keep[b]
                mab = ma | (b0[b] | b1[b] << 1 | b2[b] << 2) << 3
                for m in range(j + 1, size):
                    c = hand[m]
                    won = table_pts + (pab + PTS[c])
                    cost = kab + keep[c]
                    disc = -won * share - cost
                    if disc > best_disc_value:
                        best_disc_value, best_disc = disc, (a, b, c)
                    if covered3[mab | (b0[c] | b1[c] << 1 | b2[c] << 2) << 6]:
                        value = hold * won - (1.0 - hold) * won * share - cost
                        if value > best_beat_value:
                            best_beat_value, best_beat = value, (a, b, c)
        return best_beat, best_beat_value, best_disc, best_disc_value
    return _combo_options(hand, trump, claim, table_pts, after, players)


def _combo_options(
    hand: list[int],
    trump: int,
    claim: tuple[int, ...],
    table_pts: int,
    after: int,
    players: int,
) -> tuple[tuple[int, ...] | None, float, tuple[int, ...], float]:
    """:func:`_answer_options` for any claim, readable: every set of as many cards as the
    claim, in ``combinations`` order (the reference its fast cases are tested against)."""
    keep = KEEP[trump]
    hold = HOLD[min(after, 2)]
    share = 1.0 if players == 2 else 0.5
    best_beat: tuple[int, ...] | None = None
    best_beat_value = float("-inf")
    best_disc: tuple[int, ...] = ()
    best_disc_value = float("-inf")
    for combo in combinations(hand, len(claim)):
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


# The lead order of single cards as one number per card (the rank of LEAD_KEY).
LEAD_ORDER: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(INDICES, key=LEAD_KEY[t].__getitem__).index(c) for c in INDICES)
    for t in range(SUITS)
)
# Cards worth no points, by trump: those of another suit (lead() groups them).
PLAIN_ZERO: tuple[tuple[bool, ...], ...] = tuple(
    tuple(not PTS[c] and SUIT_OF[c] != t for c in INDICES) for t in range(SUITS)
)
TRUMP_ACE = tuple(Card(Rank.ACE, suit).index for suit in Suit)  # by suit number
# R5 on indices: BEATS[trump][claim card][card] says whether card beats claim card.
BEATS: tuple[tuple[tuple[bool, ...], ...], ...] = tuple(
    tuple(tuple(beats(c, c0, t) for c in INDICES) for c0 in INDICES) for t in range(SUITS)
)
# A seat's order of drawing, winner first: DRAW_ORDER[players][winner].
DRAW_ORDER = {n: tuple(tuple((w + i) % n for i in range(n)) for w in range(n)) for n in (2, 3, 4)}
# The seat after each seat: NEXT_SEAT[players][seat].
NEXT_SEAT = {n: tuple((s + 1) % n for s in range(n)) for n in (2, 3, 4)}
# Bit masks and one-card moves by card index.
BIT: tuple[int, ...] = tuple(1 << c for c in INDICES)
ONE: tuple[tuple[int], ...] = tuple((c,) for c in INDICES)

# The values _answer_options gives one card (discard, beat) per card index, computed
# with its very expressions (so equal to the last bit) once per (trump, share, hold,
# table points); a row is a pure function of those four, built the first time it is met.
_ROWS: dict[tuple[int, float, float, int], tuple[tuple[float, ...], tuple[float, ...]]] = {}
_ROWS_BY_TABLE: tuple[dict[int, tuple[tuple[float, ...], tuple[float, ...]]], ...] = tuple(
    {} for _ in range(8)
)
# lead()'s group of worthless plain cards (or ``()``), by ``mask * 4 + limit`` where
# ``mask`` has the bits of the hand's worthless plain cards: a pure function of the two
# (at most 2 ** 12 masks), built the first time it is met.
_GROUPS: dict[int, tuple[int, ...]] = {}


def _row(
    trump: int, share: float, hold: float, table_pts: int
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    key = (trump, share, hold, table_pts)
    row = _ROWS.get(key)
    if row is None:
        keep = KEEP[trump]
        discs: list[float] = []
        values: list[float] = []
        for c in INDICES:
            won = table_pts + PTS[c]
            cost = keep[c]
            discs.append(-won * share - cost)
            values.append(hold * won - (1.0 - hold) * won * share - cost)
        row = _ROWS[key] = (tuple(discs), tuple(values))
    return row


def _table_row(
    trump: int, players: int, table_pts: int, left: int
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The row of :func:`_row` for a table and a one-card trick, kept by the key
    :func:`playout` looks it up with."""
    share = 1.0 if players == 2 else 0.5
    row = _row(trump, share, HOLD[left - 1 if left < 3 else 2], table_pts)
    _ROWS_BY_TABLE[trump * 2 + (players == 2)][table_pts * 4 + left] = row
    return row


def _lead_group(mask: int, limit: int) -> tuple[int, ...]:
    """lead()'s choice of a group of worthless plain cards, ``()`` if it leads a single
    card: the cards are those of ``mask``; the same loop over the suits."""
    key = mask * 4 + limit
    group = _GROUPS.get(key)
    if group is None:
        best_group: tuple[int, ...] = ()
        if limit >= 2:
            for suit in range(SUITS):
                cards = [c for c in suit_cards(suit) if mask >> c & 1]
                if len(cards) > len(best_group):
                    best_group = tuple(cards[:limit])
        group = _GROUPS[key] = best_group if len(best_group) >= 2 else ()
    return group


def playout(sim: Sim, rng: random.Random | None = None, noise: float = 0.0) -> None:
    """Play ``sim`` to the end with the greedy policy (``noise``: chance of a random move).

    The moves are exactly those of :func:`lead` and :func:`answer` played with
    :meth:`Sim.play` (see :func:`playout_steps`); this loop has them inlined on local
    variables: it is where the Monte Carlo search spends its time. It loops over the
    hand in plain bytecode rather than calling ``max``/``min`` with a ``key``, which
    costs a C-level call per card, and keeps the first of equal values as they do.
    """
    hands, stock, points, trump, n = sim.hands, sim.stock, sim.points, sim.trump, sim.n
    turn, leader, claimant, claim = sim.turn, sim.leader, sim.claimant, sim.claim
    table_pts, k, left, last_winner = sim.table_pts, sim.k, sim.left, sim.last_winner
    lead_order, trump_ace = LEAD_ORDER[trump], TRUMP_ACE[trump]
    pts_of, bit, one, groups = PTS, BIT, ONE, _GROUPS
    beats_of = BEATS[trump]
    draw_order = DRAW_ORDER[n]
    next_seat = NEXT_SEAT[n]
    two = n == 2
    noisy = bool(noise) and rng is not None
    beats_claim = beats_of[claim[0]] if claim else beats_of[0]
    # The rows of card values of this trump and table size, by table points and answers
    # left (table points stay far below 128: the deck holds 120).
    rows = _ROWS_BY_TABLE[trump * 2 + two]
    no_value = NO_VALUE
    full, pop = HAND_SIZE, stock.pop
    cards: tuple[int, ...]
    beat: bool | None
    while turn >= 0:
        hand = hands[turn]
        if noisy and rng.random() < noise:  # type: ignore[union-attr]
            sim.turn, sim.leader, sim.claimant, sim.claim = turn, leader, claimant, claim
            sim.table_pts, sim.k, sim.left, sim.last_winner = table_pts, k, left, last_winner
            cards, beat = random_move(sim, rng)  # type: ignore[arg-type]
        elif k == 1:
            # answer() of a one-card claim, as _answer_options computes it: the best
            # discard and the best beat, each the first of its highest value in hand order.
            try:
                discs, values = rows[table_pts * 4 + left]
            except KeyError:
                discs, values = _table_row(trump, n, table_pts, left)
            best_disc = top_value = no_value
            top = -1
            for c in hand:
                value = discs[c]
                if value > best_disc:
                    best_disc = value
                    best = c
                if beats_claim[c]:
                    value = values[c]
                    if value > top_value:
                        top_value = value
                        top = c
            if top_value >= best_disc:
                hand.remove(top)
                table_pts += pts_of[top]
                claimant = turn
                claim = one[top]
                beats_claim = beats_of[top]
            else:
                hand.remove(best)
                table_pts += pts_of[best]
            left -= 1
            if left:
                turn = next_seat[turn]
                continue
            cards = ()  # the trick is complete (below)
            beat = False
        elif k:
            cards, beat = answer(hand, trump, claim, table_pts, left - 1, n)
        else:
            # lead(), with sim.lead_limit(): the single card first in LEAD_ORDER, or a
            # group of worthless plain cards of one suit when there are two of a suit.
            low = 99
            card = -1
            zero = 0
            for c in hand:
                order = lead_order[c]
                if order < low:
                    low = order
                    card = c
                if order < 12:  # the worthless plain cards lead first (PLAIN_ZERO)
                    zero |= bit[c]
            cards = ()
            if zero & (zero - 1):
                try:
                    group = groups[zero * 4 + 3]
                except KeyError:
                    group = _lead_group(zero, 3)
                if group:
                    limit = len(hand)
                    if two:
                        other = len(hands[1 - turn])
                        if other < limit:
                            limit = other
                    else:
                        for s in range(n):
                            if s != turn:
                                other = len(hands[s])
                                if other < limit:
                                    limit = other
                    if limit >= 3:
                        cards = group
                    elif limit == 2:
                        cards = _lead_group(zero, 2)
            if cards:
                for c in cards:
                    hand.remove(c)
                    table_pts += pts_of[c]
                claim = cards
                k = len(cards)
            else:
                if not stock and trump_ace in hand:
                    card = trump_ace  # the trump ace leads first in the endgame
                hand.remove(card)
                table_pts += pts_of[card]
                claim = one[card]
                k = 1
            beats_claim = beats_of[claim[0]]
            leader = claimant = turn
            left = n - 1
            turn = next_seat[turn]
            continue
        if cards:
            # Sim.play inlined (a move of the noise, or an answer of several cards).
            for c in cards:
                hand.remove(c)
                table_pts += pts_of[c]
            if beat is None:
                leader = claimant = turn
                claim = cards
                beats_claim = beats_of[cards[0]]
                k = len(cards)
                left = n - 1
                turn = next_seat[turn]
                continue
            if beat:
                claimant = turn
                claim = cards
                beats_claim = beats_of[cards[0]]
            left -= 1
            if left:
                turn = next_seat[turn]
                continue
        # R9: the claimant takes the trick; R10: draws, winner first, one card a round
        # while the stock lasts: another round only if a hand is still short (Sim.play
        # tries one more round and stops when nobody drew in it).
        winner = claimant
        points[winner] += table_pts
        table_pts = 0
        k = 0
        claim = ()
        last_winner = winner
        if stock:
            order_ = draw_order[winner]
            while True:
                short = False  # a hand that will draw again in the next round
                for s in order_:
                    h = hands[s]
                    size = len(h)
                    if size < full and stock:
                        h.append(pop())
                        if size < full - 1:
                            short = True
                if not (short and stock):
                    break
        leader = claimant = winner
        turn = winner if hands[winner] or any(hands) else -1
    sim.turn, sim.leader, sim.claimant, sim.claim = turn, leader, claimant, claim
    sim.table_pts, sim.k, sim.left, sim.last_winner = table_pts, k, left, last_winner


def playout_steps(sim: Sim, rng: random.Random | None = None, noise: float = 0.0) -> None:
    """:func:`playout` one move at a time through :func:`decide`-like calls (the
    readable reference the fast loop is tested against)."""
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
        leads: list[tuple[int, ...]] = [(c,) for c in hand]
        leads += group_leads_of(sorted(hand), sim.lead_limit())
        return rng.choice(leads), None
    options: list[tuple[tuple[int, ...], bool | None]] = []
    for combo in combinations(sorted(hand), sim.k):
        options.append((combo, False))
        if covers(combo, sim.claim, sim.trump):
            options.append((combo, True))
    return rng.choice(options)
