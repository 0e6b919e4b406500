"""Burkozel's rules as docs/RULES.md reads them: which moves are legal now, and what
playing one does (the trick, its points and the draw). Slow and plain on purpose:
:meth:`engine.burkozel.deal.Deal.legal_actions` and ``Deal.apply`` are the fast forms,
and tests/engine/test_reference.py holds them equal to these, move for move and in
the same order (the computer players break ties by that order)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from engine.burkozel.actions import Action, Play
from engine.burkozel.combinations import is_lead_combination, show_kind
from engine.burkozel.deal import Deal
from engine.burkozel.rules import HAND_SIZE
from engine.cards import Card
from engine.tricks import covers, draw_up, group_leads, one_suit


def lead_limit(deal: Deal, seat: int) -> int:
    """R6: at most 3 cards (B2: 4 from the second trick of the deal), never more than
    the smallest hand among the other seats still in (B3)."""
    cap = 4 if deal.rules.max_lead == 4 and deal.trick_number >= 1 else 3
    return min([cap, *(len(deal.hand(s)) for s in deal.seats_in if s != seat)])


def leads(deal: Deal, seat: int) -> list[Action]:
    """R6 in hand order: every single card, then the groups of one suit by size (in
    ``combinations`` order), then a whole молодка or четыре лба (C3/C4) when
    combinations count and the limit would not already offer it."""
    hand, limit = deal.hand(seat), lead_limit(deal, seat)
    moves = [Action(seat, (card,)) for card in hand]
    moves += [Action(seat, group) for group in group_leads(hand, limit)]
    if (
        deal.combinations_count()
        and is_lead_combination(hand, deal.trump)
        and not (limit >= 4 and one_suit(hand))
    ):
        moves.append(Action(seat, hand))
    return moves


def claim(deal: Deal) -> tuple[Card, ...]:
    """R7: the claimant's cards, which an answer must beat."""
    return [
        p.cards for p in deal.table if p.seat == deal.claimant and p.declared_beat is not False
    ][-1]


def answers(deal: Deal, seat: int) -> list[Action]:
    """R7: every set of as many cards as were led, in ``combinations`` order, each as a
    discard and then, if it covers the claim, as a beat."""
    cards = claim(deal)
    moves = []
    for answer in combinations(deal.hand(seat), len(cards)):
        moves.append(Action(seat, answer, False))
        if covers(answer, cards, deal.trump):
            moves.append(Action(seat, answer, True))
    return moves


def legal_actions(deal: Deal, seat: int) -> list[Action]:
    """Every legal move of ``seat``: a show of бура or Москва on its turn (C1/C2, once
    combinations count), then its leads (R6) or answers (R7); for another seat only a
    lead out of turn (C3/C4) when it is the stopper."""
    if deal.turn is None:
        return []
    if seat != deal.turn:
        return [Action(seat, deal.hand(seat), stop=True)] if seat == deal.stopper() else []
    moves = []
    if deal.combinations_count():
        kind = show_kind(deal.hand(seat), deal.trump)
        if kind is not None:
            moves.append(Action(seat, (), show=kind))
    return moves + (answers(deal, seat) if deal.table else leads(deal, seat))


@dataclass(frozen=True)
class Position:
    """What a move changes: the hands (in order: dealt, then drawn), the stock (top
    first), the table, the trick points and whose turn it is (``None``: the deal is
    over)."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    table: tuple[Play, ...]
    points: tuple[int, ...]
    turn: int | None


def position(deal: Deal) -> Position:
    return Position(
        tuple(deal.hand(s) for s in range(deal.players)),
        deal.stock,
        deal.table,
        tuple(deal.points),
        deal.turn,
    )


def after(deal: Deal, move: Action) -> Position:
    """The position ``move`` (a legal one) leaves: a show ends the deal (C1/C2); cards
    go from the hand to the table; once every seat still in has played, the claimant
    takes the trick and its points (R9, R12), draws first and the others clockwise
    (R10), and leads next (R11), unless every hand is empty (the deal is over)."""
    now = position(deal)
    if move.show is not None:
        return Position(now.hands, now.stock, now.table, now.points, None)
    hands = [list(hand) for hand in now.hands]
    hands[move.seat] = [c for c in hands[move.seat] if c not in move.cards]
    table = [*now.table, Play(move.seat, move.cards, move.beat)]
    if len(table) < len(deal.seats_in):
        return Position(_frozen(hands), now.stock, tuple(table), now.points, _next(deal, move.seat))
    taker = [p.seat for p in table if p.declared_beat is not False][-1]
    points = list(now.points)
    points[taker] += sum(c.points for p in table for c in p.cards)
    stock = list(now.stock)
    order = [taker]
    while len(order) < len(deal.seats_in):
        order.append(_next(deal, order[-1]))
    draw_up(stock, hands, order, HAND_SIZE, deal.trump_card)
    turn = taker if any(hands) else None
    return Position(_frozen(hands), tuple(stock), (), tuple(points), turn)


def _next(deal: Deal, seat: int) -> int:
    """The next seat still in, clockwise (B3)."""
    nxt = (seat + 1) % deal.players
    while nxt not in deal.seats_in:
        nxt = (nxt + 1) % deal.players
    return nxt


def _frozen(hands: list[list[Card]]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(hand) for hand in hands)
