"""Bura's rules as docs/RULES.md Part D reads them: who may act, which actions are legal
now, and what playing one does (the trick, the pile, the draw). Slow and plain on
purpose: :class:`engine.bura.deal.Deal`'s ``actors``, ``legal_actions`` and
``apply`` are the fast forms, and tests/engine/test_reference.py holds them equal to
these, action for action and in the same order (the computer players break ties by it).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from engine.bura.actions import (
    Action,
    Answer,
    Dave,
    DaveReply,
    Declare,
    Lead,
    PileCard,
    Show,
    TablePlay,
)
from engine.bura.combinations import is_small_moscow, show_kind, stop_refusal
from engine.bura.deal import ANSWER, DAVE, DECLARE, LEAD, OVER, Deal
from engine.bura.rules import HAND_SIZE
from engine.cards import Card
from engine.tricks import covers, draw_up, group_leads


def lead_limit(deal: Deal, seat: int) -> int:
    """D2: at most 3 cards, never more than the smallest hand among the other seats."""
    return min([HAND_SIZE, *(len(h) for s, h in enumerate(deal.hands) if s != seat)])


def may_say_dave(deal: Deal, seat: int) -> bool:
    """D11: switched on, two players, the rightful leader, not twice in a row."""
    return (
        deal.rules.dave == "on"
        and deal.players == 2
        and seat == deal.leader
        and deal.last_dave_by != seat
    )


def leads(deal: Deal, seat: int) -> list[Action]:
    """The rightful leader's: даве (D11); single cards in hand order; groups of one suit
    (or of one rank with ``same_rank_leads``, D2) by size in ``combinations`` order; the
    three sixes of a малая Москва (D8 "Precisely"), offered once."""
    hand, rules, limit = tuple(deal.hands[seat]), deal.rules, lead_limit(deal, seat)
    actions: list[Action] = [Dave(seat)] if may_say_dave(deal, seat) else []
    actions += [Lead(seat, (card,)) for card in hand]
    same_rank = rules.same_rank_leads == "on"
    actions += [Lead(seat, group) for group in group_leads(hand, limit, same_rank)]
    whole = Lead(seat, hand)
    if limit >= HAND_SIZE and is_small_moscow(hand, deal.trump, rules) and whole not in actions:
        actions.append(whole)
    return actions


def answers(deal: Deal, seat: int) -> list[Action]:
    """R7: every set of as many cards as the claim, in ``combinations`` order, each a
    discard and then, if it covers the claim, a beat."""
    actions: list[Action] = []
    for cards in combinations(deal.hands[seat], len(deal.claim)):
        actions.append(Answer(seat, cards, False))
        if covers(cards, deal.claim, deal.trump):
            actions.append(Answer(seat, cards, True))
    return actions


def legal_actions(deal: Deal, seat: int) -> list[Action]:
    """Every legal action of ``seat`` now: right after taking a trick, to declare or not
    (D5); after даве, to accept or fold (D11); on its turn a show of бура or Москва
    (D6, D8) first, then its leads or answers; for another seat before the lead, «Стоп!»
    with the whole hand (D7, D8 "Precisely")."""
    phase = deal.phase
    if phase == OVER or not 0 <= seat < deal.players:
        return []
    if phase == DECLARE:
        return [Declare(seat, True), Declare(seat, False)] if seat == deal.turn else []
    if phase == DAVE:
        return [DaveReply(seat, True), DaveReply(seat, False)] if seat == deal.turn else []
    hand = deal.hands[seat]
    if phase == LEAD and seat != deal.leader:
        if stop_refusal(deal.hands, seat, deal.leader, deal.trump, deal.rules) is None:
            return [Lead(seat, tuple(hand), True)]
        return []
    if phase == ANSWER and seat != deal.turn:
        return []
    kind = show_kind(hand, deal.trump, deal.rules)
    shows: list[Action] = [Show(seat, kind)] if kind else []
    return shows + (answers(deal, seat) if phase == ANSWER else leads(deal, seat))


def actors(deal: Deal) -> tuple[int, ...]:
    """The seats with a legal action: the one whose turn it is, and before a lead also
    every seat that may say «Стоп!» (the rightful leader first)."""
    if deal.phase == OVER:
        return ()
    if deal.phase != LEAD:
        assert deal.turn is not None
        return (deal.turn,)
    stoppers = [
        s
        for s in range(deal.players)
        if s != deal.leader
        and stop_refusal(deal.hands, s, deal.leader, deal.trump, deal.rules) is None
    ]
    return (deal.leader, *stoppers)


@dataclass(frozen=True)
class Position:
    """What an action changes: the hands (in order: dealt, then drawn), the stock (top
    first), the table, the trick piles, who drew the turned trump, the phase and whose
    turn it is; once the deal is over, only that it is."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    table: tuple[TablePlay, ...]
    piles: tuple[tuple[PileCard, ...], ...]
    trump_drawn_by: int | None
    phase: str
    turn: int | None


OVER_POSITION = Position((), (), (), (), None, OVER, None)


def position(deal: Deal) -> Position:
    if deal.phase == OVER:
        return OVER_POSITION
    return Position(
        tuple(tuple(h) for h in deal.hands),
        tuple(deal.stock),
        tuple(deal.plays),
        tuple(tuple(p) for p in deal.piles),
        deal.trump_drawn_by,
        deal.phase,
        deal.turn,
    )


def after(deal: Deal, action: Action) -> Position:
    """The position ``action`` (a legal one) leaves.

    Right after a take, anything but declaring means no declaration (D5): the draw
    follows first, the taker first and then clockwise back to 3 (D4, R10), or, with
    stock and hands out, the deal is over (D9 run out). Declaring, a show (D6, D8) and a
    fold (D11) end the deal. Даве passes the turn to the other seat; accepting it gives
    the lead back. A lead («Стоп!» included) and an answer go from the hand to the
    table (D3: a discard lies closed under closed discards); when every seat has played,
    the claimant takes the trick into their pile (R9) and may declare (D5).
    """
    if isinstance(action, Show) or (isinstance(action, Declare) and action.declare):
        return OVER_POSITION
    if isinstance(action, DaveReply) and not action.accept:
        return OVER_POSITION
    hands = [list(h) for h in deal.hands]
    stock = list(deal.stock)
    drawn_by, leader = deal.trump_drawn_by, deal.leader
    if deal.phase == DECLARE:
        if not stock and not any(hands):
            return OVER_POSITION
        order = [(leader + i) % deal.players for i in range(deal.players)]
        drawn = draw_up(stock, hands, order, HAND_SIZE, deal.trump_card)
        drawn_by = drawn if drawn is not None else drawn_by
    piles = tuple(tuple(p) for p in deal.piles)

    def now(table: tuple[TablePlay, ...], phase: str, turn: int) -> Position:
        frozen = tuple(tuple(h) for h in hands)
        return Position(frozen, tuple(stock), table, piles, drawn_by, phase, turn)

    if isinstance(action, Declare):
        return now((), LEAD, leader)
    if isinstance(action, Dave):
        return now((), DAVE, (action.seat + 1) % deal.players)
    if isinstance(action, DaveReply):
        return now((), LEAD, leader)
    hands[action.seat] = [c for c in hands[action.seat] if c not in action.cards]
    nxt = (action.seat + 1) % deal.players
    if isinstance(action, Lead):
        return now((TablePlay(action.seat, action.cards, None, action.stop),), ANSWER, nxt)
    closed = not action.beat and deal.rules.discards == "closed"
    table = (*deal.plays, TablePlay(action.seat, action.cards, action.beat, False, closed))
    if nxt != table[0].seat:
        return now(table, ANSWER, nxt)
    taker = [p.seat for p in table if p.beat is not False][-1]
    trick = [PileCard(c, p.seat, p.closed, deal.trick_number) for p in table for c in p.cards]
    piles = tuple((*pile, *trick) if s == taker else pile for s, pile in enumerate(piles))
    return now((), DECLARE, taker)
