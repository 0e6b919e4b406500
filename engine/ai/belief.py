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

from engine.ai import policy
from engine.ai.sim import PTS, Sim, covers, sample_world
from engine.deal import Play, PlayerView

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


def observations(view: PlayerView) -> list[Observation]:
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

    def __init__(self, view: PlayerView, eps: float | None, tries: int = 12) -> None:
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


# --- Inference from public play without a model of the other seats (issue 13) ---------
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
    played_trumps = sum(c // 9 == trump for c in played)
    cover_trumps = 99  # fewest trumps in any cover (99: none covers)
    cheapest_disc = (99, 99)  # (trumps, points) of the cheapest k cards to give away
    for combo in combinations(hand, k):
        trumps = sum(c // 9 == trump for c in combo)
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
    their weight (at most ``tries`` draws, then the last one)."""

    def __init__(self, view: PlayerView, strength: float, tries: int = 12) -> None:
        self.view = view
        self.strength = strength
        self.tries = tries
        obs = observations(view) if strength > 0 else []
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
