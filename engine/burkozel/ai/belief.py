"""Inference from the other seats' open plays: which sampled worlds explain them best.

A determinization (``sim.sample_world``) spreads the unseen cards uniformly. But the
view also shows what the others just played: the plays on the table now and the
plays of the last trick. Assuming they play roughly like the greedy policy, a world
in which the greedy policy, given that seat's hand *before* the play, would have made
exactly the observed play explains it well; a world in which it would not explains it
``eps`` times as well. Worlds are then drawn from that posterior by rejection.

Only the view is used (its table and last trick), so this never looks at hidden cards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from engine.burkozel.ai import policy
from engine.burkozel.ai.sim import PTS, SUIT_INDEX, Sim, covers, sample_world
from engine.burkozel.deal import Play, View
from engine.burkozel.rules import HAND_SIZE
from engine.cards import DECK
from engine.fast import SUIT_OF
from engine.tricks import one_suit

Option = tuple[tuple[int, ...], bool | None]


@dataclass(frozen=True, slots=True)
class Observation:
    """One play by another seat and what that seat knew when it made it.

    ``drawn``: how many cards that seat drew after the play and still holds hidden
    (or has since played on the current table); its hand before the play was its
    current hand plus ``extra`` minus ``drawn`` of those cards, plus the play.
    """

    seat: int
    cards: tuple[int, ...]
    beat: bool | None
    claim: tuple[int, ...]  # () for a lead
    table_pts: int
    after: int  # answers still to come after this one
    limit: int  # lead limit (leads only)
    stock_left: int
    extra: tuple[int, ...]  # cards that seat has played since (current table)
    drawn: int


def _plays(plays: Sequence[Play], players: int) -> list[tuple[Play, tuple[int, ...], int, int]]:
    """Each play of a trick with the claim and table points it answered, and answers after it."""
    out = []
    claim: tuple[int, ...] = ()
    pts = 0
    for j, play in enumerate(plays):
        cards = tuple(c.index for c in play.cards)
        out.append((play, claim, pts, players - 1 - j))
        pts += sum(PTS[c] for c in cards)
        if play.declared_beat is not False:
            claim = cards
    return out


def observations(view: View) -> list[Observation]:
    """The other seats' plays this view shows, with the context each was made in."""
    n = view.players
    found: list[Observation] = []
    on_table: dict[int, tuple[int, ...]] = {}
    if view.table:
        k = len(view.table[0].cards)
        for play, claim, pts, after in _plays(view.table, n):
            cards = tuple(c.index for c in play.cards)
            if play.seat != view.seat:
                limit = 0
                if not claim:
                    sizes = [
                        view.hand_sizes[s] + (k if any(p.seat == s for p in view.table) else 0)
                        for s in range(n)
                    ]
                    others = min(sizes[s] for s in range(n) if s != play.seat)
                    limit = min(3, others, sizes[play.seat])
                found.append(
                    Observation(
                        play.seat,
                        cards,
                        play.declared_beat if claim else None,
                        claim,
                        pts,
                        after,
                        limit,
                        view.stock_size,
                        (),
                        0,
                    )
                )
            on_table[play.seat] = cards
    last = view.last_trick
    # After the last trick every seat drew as many cards as it played, as long as the
    # stock has not run out since (then nobody has drawn the turned trump card either).
    if last is not None and view.stock_size > 0:
        k = len(last.plays[0].cards)
        for play, claim, pts, after in _plays(last.plays, n):
            if play.seat == view.seat:
                continue
            cards = tuple(c.index for c in play.cards)
            found.append(
                Observation(
                    play.seat,
                    cards,
                    play.declared_beat if claim else None,
                    claim,
                    pts,
                    after,
                    3,
                    view.stock_size + n * k,
                    on_table.get(play.seat, ()),
                    k,
                )
            )
    return found


def explains(hand: list[int], trump: int, players: int, obs: Observation) -> bool:
    """Would the greedy policy holding ``hand`` have made the observed play?"""
    if not obs.claim:
        return tuple(sorted(policy.lead(hand, trump, obs.limit, obs.stock_left))) == tuple(
            sorted(obs.cards)
        )
    best_beat, best_disc = policy.answer_values(
        hand, trump, obs.claim, obs.table_pts, obs.after, players
    )
    mine_beat, mine_disc = policy.answer_values(
        list(obs.cards), trump, obs.claim, obs.table_pts, obs.after, players
    )
    if obs.beat:
        return best_beat >= best_disc and mine_beat >= best_beat - 1e-9
    return best_beat < best_disc and mine_disc >= best_disc - 1e-9


def likelihood(world: Sim, players: int, obs: Sequence[Observation], eps: float) -> float:
    """How well ``world`` explains the observed plays (1 = all exactly greedy)."""
    total = 1.0
    for o in obs:
        now = world.hands[o.seat] + list(o.extra)
        if not o.drawn:
            ok = 1.0 if explains(now + list(o.cards), world.trump, players, o) else 0.0
        else:
            subsets = list(combinations(now, o.drawn))
            hits = sum(
                explains([c for c in now if c not in d] + list(o.cards), world.trump, players, o)
                for d in subsets
            )
            ok = hits / len(subsets)
        total *= eps + (1.0 - eps) * ok
    return total


class Sampler:
    """Draws worlds from the posterior: uniform worlds, accepted with their likelihood."""

    def __init__(self, view: View, eps: float | None, tries: int = 12) -> None:
        self.view = view
        self.eps = eps
        self.tries = tries
        self.obs = observations(view) if eps is not None else []

    def __call__(self, rng: random.Random) -> Sim:
        world = sample_world(self.view, rng)
        if not self.obs or self.eps is None:
            return world
        for _ in range(self.tries):
            if rng.random() < likelihood(world, self.view.players, self.obs, self.eps):
                return world
            world = sample_world(self.view, rng)
        return world


# --- Inference from public play without a model of the other seats ---------
#
# ``likelihood`` above asks "would our greedy policy have made this play?", which only
# helps against our greedy policy. The weights below ask only what nearly any sensible
# player does, whatever its style (R7 lets a seat discard even when it could beat):
#
# - a seat that discarded instead of beating could probably not beat with plain cards
#   (beating with a higher card of the led suit costs nothing worth keeping and wins
#   the trick), and somewhat less probably with trumps (trumps are often saved);
# - a seat spends no more trumps than it must: a discard with a trump in it, or a beat
#   with more trumps than the cheapest cover, suggests it had nothing cheaper;
# - a discard gives the trick's winner its points: one with points in it suggests the
#   seat had no pointless plain card to give instead.
#
# Each is a soft factor (a world that contradicts it stays possible, only less likely),
# so a player who plays otherwise is not ruled out, merely mis-weighted a little.

P_PLAIN_COVER = 0.15  # discarded although a plain (no-trump) cover was in hand
P_TRUMP_COVER = 0.6  # discarded although a cover with trumps was in hand
P_WASTE = 0.5  # spent more trumps, or discarded more points, than the hand required


def _answer_factor(hand: list[int], trump: int, obs: Observation) -> float:
    """How likely a seat holding ``hand`` (before its answer) was to answer as observed."""
    k = len(obs.claim)
    played = obs.cards
    played_trumps = sum(SUIT_OF[c] == trump for c in played)
    cover_trumps = 99  # fewest trumps in any cover (99: none covers)
    cheapest_disc = (99, 99)  # (trumps, points) of the cheapest k cards to give away
    for combo in combinations(hand, k):
        trumps = sum(SUIT_OF[c] == trump for c in combo)
        if trumps < cover_trumps and covers(combo, obs.claim, trump):
            cover_trumps = trumps
        pts = sum(PTS[c] for c in combo)
        if (trumps, pts) < cheapest_disc:
            cheapest_disc = (trumps, pts)
    if obs.beat:
        return P_WASTE if cover_trumps < played_trumps else 1.0
    factor = 1.0
    if cover_trumps == 0:
        factor = P_PLAIN_COVER
    elif cover_trumps < 99:
        factor = P_TRUMP_COVER
    if (played_trumps, sum(PTS[c] for c in played)) > cheapest_disc:
        factor *= P_WASTE
    return factor


def public_weight(world: Sim, obs: Sequence[Observation], strength: float) -> float:
    """How well ``world`` explains the other seats' observed answers (1 = no doubt),
    each factor raised to ``strength``; leads are not used (too style-dependent)."""
    total = 1.0
    for o in obs:
        if not o.claim:
            continue
        now = world.hands[o.seat] + list(o.extra)
        if not o.drawn:
            f = _answer_factor(now + list(o.cards), world.trump, o)
        else:
            subsets = list(combinations(range(len(now)), o.drawn))
            f = 0.0
            for d in subsets:
                hand = [c for j, c in enumerate(now) if j not in d] + list(o.cards)
                f += _answer_factor(hand, world.trump, o)
            f /= len(subsets)
        total *= f**strength
    return total


class PublicSampler:
    """Draws worlds weighted by :func:`public_weight`: uniform worlds, accepted with
    their weight (at most ``tries`` draws, then the last one).

    ``history``: also use older answers, from the deal rebuilt by :func:`past_tricks`,
    after which the seat drew at most this many cards (0: the last trick only).
    """

    def __init__(self, view: View, strength: float, tries: int = 12, history: int = 0) -> None:
        self.view = view
        self.strength = strength
        self.tries = tries
        obs: list[Observation] = []
        if strength > 0:
            rebuilt = history_observations(view, history) if history > 0 else None
            obs = observations(view) if rebuilt is None else rebuilt
        self.obs = [o for o in obs if o.claim]

    def weight(self, world: Sim) -> float:
        return public_weight(world, self.obs, self.strength) if self.obs else 1.0

    def __call__(self, rng: random.Random) -> Sim:
        world = sample_world(self.view, rng)
        if not self.obs:
            return world
        for _ in range(self.tries):
            if rng.random() < self.weight(world):
                return world
            world = sample_world(self.view, rng)
        return world


# --- The deal so far, rebuilt from the open cards (R8) ---------------------------------

# (leader, winner, the plays in seat order from the leader, cards each seat drew after
# it, which answers were beats)
Trick = tuple[int, int, tuple[tuple[int, ...], ...], tuple[int, ...], tuple[bool, ...]]


def past_tricks(view: View, depth: int = 6) -> list[Trick] | None:
    """The last finished tricks of the deal (at most ``depth``, oldest first), rebuilt
    from ``view.seen_cards`` (the open cards in the order they were played, R8), or
    ``None`` when the view does not allow it.

    Each trick is a lead of k cards (R6: one suit when k > 1) and one answer of k
    cards per other seat in turn (R7: one that covers may have been a beat or a
    discard); its claimant takes it (R9, R12: its points) and leads next (R11); R4:
    the seat after the dealer led the first. Every reading of the cards from the
    deal's start that reaches what the view shows (trick count, leader, points, the
    last trick as shown) is considered; going back from the end, the tricks all of
    them agree on are returned, so a trick returned is the one that was played.
    """
    n = view.players
    last = view.last_trick
    if last is None or (view.seats_in and len(view.seats_in) != n):
        return None
    if any(p.face_down for p in view.table) or any(p.face_down for p in last.plays):
        return None
    seq = [c.index for c in view.seen_cards]
    seq = seq[: len(seq) - sum(len(p.cards) for p in view.table)]
    start_stock = len(DECK) - HAND_SIZE * n  # what the deal left in the stock (R3)
    if view.stock_size != max(0, start_stock - len(seq)):
        return None  # not a base-game deal played from a full hand (R3, R10)
    trump = SUIT_INDEX[view.trump]
    total = view.trick_number

    def trick(pos: int, k: int, leader: int, beats: tuple[bool, ...]) -> Trick:
        plays = tuple(tuple(seq[pos + j * k : pos + (j + 1) * k]) for j in range(n))
        winner = leader
        for j, beat in enumerate(beats, 1):
            if beat:
                winner = (leader + j) % n
        # R10: the stock refills what was played, winner first, while it lasts.
        stock = max(0, start_stock - pos - n * k)
        gets = max(0, start_stock - pos) - stock
        drew = [0] * n
        for i in range(gets):
            drew[(winner + i) % n] += 1
        return (leader, winner, plays, tuple(drew), beats)

    def readings(
        plays: list[tuple[int, ...]], claim: tuple[int, ...], j: int
    ) -> list[tuple[bool, ...]]:
        """Which answers from the j-th on were beats: R7 lets one that covers be a discard."""
        if j == n:
            return [()]
        out = [(False, *rest) for rest in readings(plays, claim, j + 1)]
        if covers(plays[j], claim, trump):
            out += [(True, *rest) for rest in readings(plays, plays[j], j + 1)]
        return out

    shown = tuple(tuple(c.index for c in p.cards) for p in last.plays)
    last_trick = (last.plays[0].seat, last.winner, shown)
    last_beats = tuple(p.declared_beat is True for p in last.plays[1:])
    size = len(seq)
    # (cards played before, leader, tricks before, each seat's points so far: R12)
    State = tuple[int, int, int, tuple[int, ...]]

    def edges(state: State) -> list[tuple[State, Trick]]:
        pos, leader, count, points = state
        rest = total - count - 1  # tricks after this one
        out = []
        for k in (1, 2, 3):
            left = size - pos - n * k
            if left < n * rest or left > 3 * n * rest:
                continue
            if k > 1 and not one_suit([DECK[c] for c in seq[pos : pos + k]]):
                continue
            plays = [tuple(seq[pos + j * k : pos + (j + 1) * k]) for j in range(n)]
            for beats in readings(plays, plays[0], 1):
                t = trick(pos, k, leader, beats)
                if rest == 0 and ((t[0], t[1], t[2]) != last_trick or beats != last_beats):
                    continue
                won = list(points)
                won[t[1]] += sum(PTS[c] for play in plays for c in play)
                out.append(((pos + n * k, t[1], count + 1, tuple(won)), t))
        return out

    if view.points is None:
        return None
    goal: State = (size, view.leader, total, tuple(view.points))
    ends: dict[State, bool] = {}

    def reaches(state: State) -> bool:
        """Whether some reading leads from ``state`` to the position the view shows."""
        if state[2] == total:
            return state == goal
        if state not in ends:
            ends[state] = False
            ends[state] = any(reaches(nxt) for nxt, _t in edges(state))
        return ends[state]

    start: State = (0, (view.dealer + 1) % n, 0, (0,) * n)
    if total == 0 or not reaches(start):
        return None
    # Every trick on some full reading, by the state it leads to.
    into: dict[State, set[tuple[State, Trick]]] = {}
    todo, seen = [start], {start}
    while todo:
        state = todo.pop()
        for nxt, t in edges(state):
            if reaches(nxt):
                into.setdefault(nxt, set()).add((state, t))
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
    out: list[Trick] = []
    state = goal
    while state != start and len(out) < depth:
        ways = into.get(state, set())
        if len(ways) != 1:
            break
        state, t = next(iter(ways))
        out.append(t)
    return out[::-1] or None


def history_observations(view: View, max_drawn: int) -> list[Observation] | None:
    """The other seats' answers on the table now and in the last tricks of the deal
    (:func:`past_tricks`), each with the cards that seat has played and drawn since
    (R10); answers after which a seat drew more than ``max_drawn`` cards tell little
    and are left out. ``None`` when the deal cannot be rebuilt."""
    tricks = past_tricks(view)
    if tricks is None:
        return None
    n = view.players
    found = [o for o in observations(view) if o.claim and not o.drawn]  # the table now
    later: dict[int, list[int]] = {}  # cards each seat played after the trick looked at
    for p in view.table:
        later.setdefault(p.seat, []).extend(c.index for c in p.cards)
    drawn = [0] * n  # cards each seat drew after the trick looked at
    for leader, _winner, plays, drew, beats in reversed(tricks):
        for s in range(n):
            drawn[s] += drew[s]
        if min(drawn[s] for s in range(n) if s != view.seat) > max_drawn:
            break
        claim = plays[0]
        pts = sum(PTS[c] for c in claim)
        for j in range(1, n):
            seat = (leader + j) % n
            cards = plays[j]
            beat = beats[j - 1]
            if seat != view.seat and drawn[seat] <= max_drawn:
                found.append(
                    Observation(
                        seat,
                        cards,
                        beat,
                        claim,
                        pts,
                        n - 1 - j,
                        0,
                        0,
                        tuple(later.get(seat, ())),
                        drawn[seat],
                    )
                )
            pts += sum(PTS[c] for c in cards)
            if beat:
                claim = cards
        for j in range(n):
            later.setdefault((leader + j) % n, []).extend(plays[j])
    return found
