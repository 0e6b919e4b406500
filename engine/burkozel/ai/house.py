"""Computer play under the house rules (Part B and C), from a seat's view only.

The fast simulator (``engine.burkozel.ai.sim``) models the base game; under any other rule set
the players come here instead:

* :func:`house_choice`, a greedy rule that knows every switch: it shows a бура or
  Москва at once (C1, C2), leads out of turn when offered (C3, C4), leads four only
  when they are worthless or a combination that is hard to cover, and under B5 does
  not beat its partner's claim: it discards, and with no opponent left to answer it
  smears points onto the partner's trick.
* :class:`HouseSearch`, determinized Monte Carlo with the switches on: worlds
  consistent with the view are built as real :class:`~engine.burkozel.deal.Deal` positions
  (closed discards and seats that are out included) and finished with the greedy
  rule; the score is the rule set's own (penalties, credits, pairs, combinations).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from statistics import fmean

from engine.burkozel.ai import policy
from engine.burkozel.ai.sim import PTS, SUIT_INDEX
from engine.burkozel.combinations import is_four_foreheads, is_lead_combination, show_kind
from engine.burkozel.deal import Action, Deal, Play, View
from engine.burkozel.scoring import PLAYED, sides
from engine.cards import DECK, Card
from engine.fast import SUIT_OF


def _seats_in(view: View) -> tuple[int, ...]:
    return view.seats_in or tuple(range(view.players))


def side_of(view: View, seat: int) -> tuple[int, ...]:
    """The seats scoring with ``seat``: its B5 pair, else itself."""
    return next(s for s in sides(view.rules, _seats_in(view)) if seat in s)


def _combinations_count(view: View) -> bool:
    return view.rules.combinations == "on" and view.trick_number >= 1 and not view.finished


def _answer_order(view: View) -> list[int]:
    """The seats still to answer after this one, in order (B3: seats in only)."""
    seats = _seats_in(view)
    n = len(seats)
    start = seats.index(view.seat)
    played = {p.seat for p in view.table}
    return [seats[(start + k) % n] for k in range(1, n) if seats[(start + k) % n] not in played]


def house_choice(view: View) -> Action:
    """The greedy move for the seat to play (``view.turn == view.seat``)."""
    seat = view.seat
    hand = list(view.hand)
    if _combinations_count(view):
        kind = show_kind(hand, view.trump)
        if kind is not None:
            return Action(seat, (), show=kind)  # C1/C2: the deal is won (or lost to a better one)
    idx = [c.index for c in hand]
    trump = SUIT_INDEX[view.trump]
    if not view.table:
        if _combinations_count(view) and is_lead_combination(hand, view.trump):
            worthless = all(c.points == 0 for c in hand)
            if worthless or is_four_foreheads(hand):
                return Action(seat, tuple(hand))  # hard to cover with four (C3/C4)
        others = [view.hand_sizes[s] for s in _seats_in(view) if s != seat]
        b2 = view.rules.max_lead == 4 and view.trick_number >= 1
        limit = min(4 if b2 else 3, min(others), len(idx))
        cards = policy.lead(idx, trump, limit, view.stock_size)
        return Action(seat, tuple(DECK[c] for c in cards))
    claim, table_pts = _claim(view)
    after = _answer_order(view)
    mine = side_of(view, seat)
    n_sides = len(sides(view.rules, _seats_in(view)))
    if view.claimant in mine:  # B5: never beat the partner's claim
        foes_after = any(s not in mine for s in after)
        return Action(seat, _partner_discard(idx, trump, len(claim), smear=not foes_after), False)
    cards, beat = policy.answer(idx, trump, claim, table_pts, len(after), n_sides)
    return Action(seat, tuple(DECK[c] for c in cards), beat)


def _claim(view: View) -> tuple[tuple[int, ...], int]:
    claim: tuple[int, ...] = ()
    pts = 0
    for play in view.table:
        pts += sum(c.points for c in play.cards)
        if play.declared_beat is not False and play.seat == view.claimant:
            claim = tuple(c.index for c in play.cards)
    return claim, pts


def _partner_discard(hand: list[int], trump: int, k: int, smear: bool) -> tuple[Card, ...]:
    """Discard onto the partner's trick: the most points (no trumps) when nobody can
    take it any more, otherwise the least valuable cards."""
    keep = policy.KEEP[trump]

    def value(combo: tuple[int, ...]) -> float:
        trumps = sum(keep[c] for c in combo if SUIT_OF[c] == trump)
        pts = sum(PTS[c] for c in combo)
        return pts - trumps if smear else -(pts + sum(keep[c] for c in combo))

    best = max(combinations(sorted(hand), k), key=value)
    return tuple(DECK[c] for c in best)


def house_move(view: View, legal: Sequence[Action]) -> Action:
    """:func:`house_choice` if legal, else the first legal move in a fixed order; a
    lead out of turn (the only move offered to a seat off turn) is always taken."""
    if view.turn != view.seat:
        stops = [m for m in legal if m.stop]
        if stops:
            return stops[0]
    choice = house_choice(view) if view.turn == view.seat else None
    if choice is not None:
        want = _key(choice)
        for move in legal:
            if _key(move) == want:
                return move
    return sorted(legal, key=_key)[0]


def _key(move: Action) -> tuple[int, tuple[int, ...], int, str, bool]:
    beat = -1 if move.beat is None else int(move.beat)
    return (
        len(move.cards),
        tuple(sorted(c.index for c in move.cards)),
        beat,
        move.show or "",
        move.stop,
    )


def sample_deal(view: View, rng: random.Random) -> Deal:
    """A complete position consistent with everything ``view`` shows (a determinization):
    the unseen cards spread at random over the other hands, the face-down discards on
    the table and the stock; the turned card stays where the view says it is."""
    tc = view.trump_card
    placed = set(view.hand) | set(view.seen_cards)
    known: dict[int, list[Card]] = {}
    drawer = view.trump_card_drawn_by
    hidden_tc = False
    if tc not in placed and not view.trump_card_in_stock and drawer is not None:
        if view.hand_sizes[drawer]:
            known[drawer] = [tc]  # R3: everyone saw who drew the turned card
        else:
            hidden_tc = True  # B1: its drawer has since discarded it face down
    unseen = [c for c in DECK if c not in placed and (c is not tc or hidden_tc)]
    rng.shuffle(unseen)
    table = []
    for play in view.table:
        if play.face_down:
            cards = tuple(unseen.pop() for _ in range(play.face_down))
            table.append(Play(play.seat, cards, False))
        else:
            table.append(play)
    hands: list[list[Card]] = []
    for seat in range(view.players):
        if seat == view.seat:
            hands.append(list(view.hand))
            continue
        hand = list(known.get(seat, ()))
        while len(hand) < view.hand_sizes[seat] and unseen:
            hand.append(unseen.pop())
        hands.append(hand)
    in_stock = view.stock_size - (1 if view.trump_card_in_stock else 0)
    stock = [unseen.pop() for _ in range(min(in_stock, len(unseen)))]
    if view.trump_card_in_stock:
        stock.append(tc)  # R3: drawn last
    return Deal.from_view(view, hands, stock, table)


def rollout(deal: Deal) -> None:
    """Finish ``deal`` with the greedy rule (out-of-turn leads always taken)."""
    while deal.turn is not None:
        stopper = deal.stopper()
        if stopper is not None:
            deal.push(deal.legal_actions(stopper)[0])
            continue
        seat = deal.turn
        move = house_choice(deal.view(seat))
        try:
            deal.check(move)
        except ValueError:
            move = house_move(deal.view(seat), deal.legal_actions(seat))
        deal.push(move)


def deal_utility(deal: Deal, seat: int, margin_weight: float) -> float:
    """How good a finished deal is for ``seat``'s side, by the rule set's own scoring."""
    result = deal.result()
    teams = sides(deal.rules, deal.seats_in)
    mine = next(s for s in teams if seat in s)
    others = [s for s in teams if s is not mine]
    own = result.penalties[mine[0]]
    rest = fmean(result.penalties[s[0]] for s in others)
    edge = own - rest if deal.rules.scoring == "winner_takes" else rest - own
    if result.outcome != PLAYED:
        return edge
    pts = [sum(result.points[x] for x in s) for s in teams]
    best_other = max(pts[i] for i, s in enumerate(teams) if s is not mine)
    return edge + margin_weight * (pts[teams.index(mine)] - best_other) / 60.0


class HouseSearch:
    """Determinized Monte Carlo under any rule set (see the module docstring)."""

    def __init__(self, seed: int = 0, worlds: int = 16, margin_weight: float = 1.0) -> None:
        self.seed = seed
        self.worlds = worlds
        self.margin_weight = margin_weight

    def choose(self, view: View, legal: Sequence[Action], rng: random.Random) -> Action:
        moves = sorted(legal, key=_key)
        if len(moves) == 1 or view.turn != view.seat:
            return house_move(view, legal)
        shows = [m for m in moves if m.show is not None]
        if shows:
            return shows[0]
        totals = [0.0] * len(moves)
        for _ in range(self.worlds):
            world = sample_deal(view, rng)
            for i, move in enumerate(moves):
                sim = world.copy()
                sim.push(move)
                rollout(sim)
                totals[i] += deal_utility(sim, view.seat, self.margin_weight)
        best = max(range(len(moves)), key=lambda i: (totals[i], -i))
        return moves[best]
