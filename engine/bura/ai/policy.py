"""The greedy Bura policy: a few rules of thumb over what one seat knows.

It reads a :class:`Situation`, built from a seat's view (a real decision) or from a
simulated deal for that seat (a Monte Carlo playout), so both use the same rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from engine.bura.actions import Action, Answer, DaveReply, Declare, Lead, Show
from engine.bura.deal import ANSWER, DAVE, DECLARE, Deal
from engine.bura.rules import BUST_LIMIT, DECLARE_TARGET, Rules
from engine.bura.view import View
from engine.cards import DECK, Card, Suit

# A face-down discard is usually a low card; this is what one is guessed to be worth.
CLOSED_GUESS = 2.0


class Situation(NamedTuple):
    """What greedy reads of one seat's moment. A named tuple, not a frozen dataclass:
    a playout builds one per move, and a tuple is built several times faster."""

    seat: int
    phase: str
    hand: tuple[Card, ...]
    trump: Suit
    table_points: int  # points of the open cards on the table
    known_points: int  # open cards in the seat's own trick pile
    closed_in_pile: int  # face-down cards in the seat's own pile (unknown to it)
    rules: Rules

    @classmethod
    def of_view(cls, view: View, rules: Rules) -> Situation:
        pile = view.piles[view.seat]
        return cls(
            view.seat,
            view.phase,
            view.hand,
            view.trump,
            sum(c.points for p in view.table for c in (p.cards or ())),
            sum(c.points for c in pile.open_cards),
            len(pile.closed_by),
            rules,
        )

    @classmethod
    def of_deal(cls, deal: Deal, seat: int) -> Situation:
        """The playouts' hot path: the sums are taken only in the phase that reads them
        (the table's points when answering, the seat's pile when declaring); they are 0
        in the other phases, where greedy does not look at them."""
        phase = deal.phase
        table = shown = closed = 0
        if phase == ANSWER:
            table = sum(c.points for p in deal.plays if not p.closed for c in p.cards)
        elif phase == DECLARE:
            for pc in deal.piles[seat]:
                if pc.closed:
                    closed += 1
                else:
                    shown += pc.card.points
        return cls(
            seat, phase, tuple(deal.hands[seat]), deal.trump, table, shown, closed, deal.rules
        )


def keep_value(card: Card, trump: Suit) -> float:
    """How much a card is worth keeping in hand: trumps most, then points, then rank."""
    return (20.0 if card.suit is trump else 0.0) + card.points + card.rank * 0.1


# keep_value of every card (by Card.index) under each trump suit: the playouts' greedy
# reads it hundreds of thousands of times a decision.
KEEP_VALUES = {trump: tuple(keep_value(card, trump) for card in DECK) for trump in Suit}


def greedy(
    sit: Situation,
    legal: Sequence[Action],
    closed_guess: float = CLOSED_GUESS,
    lead_pairs: bool = False,
) -> Action | None:
    """The greedy choice among ``legal``; ``None`` never (it always takes a «Стоп!»).
    ``closed_guess``: what each face-down card in its pile is taken to be worth when it
    decides to declare (D5): 0 declares only on open points, more declares sooner.
    ``lead_pairs``: lead two cards whenever the hand may (D2), trumps too, instead of
    the least wanted single card: the other seat must then beat both or give up two
    cards. Played against the plain rule it wins 58.5% ± 1.2 of deals (bench/
    RESULTS-ai.md, fifth pass); the shipped greedy level does not lead so.

    One pass over ``legal`` per phase, with the first of equals kept as ``min`` and
    ``max`` would: this runs at every move of every playout."""
    phase = sit.phase
    # Declaring (D5) and a reply to даве (D11) are their own moments: no show then.
    if phase == DECLARE:
        estimate = sit.known_points + closed_guess * sit.closed_in_pile
        bust = sit.rules.target == "31_50" and estimate > BUST_LIMIT
        go = estimate >= DECLARE_TARGET and not bust
        return Declare(sit.seat, go)
    if phase == DAVE:
        trumps = [c for c in sit.hand if c.suit is sit.trump]
        strong = len(trumps) >= 2 or any(c.points >= 10 for c in trumps)
        return DaveReply(sit.seat, strong)
    show: Show | None = None
    for action in legal:
        if type(action) is Show and (show is None or action.kind == "moscow"):
            show = action  # Москва if held, else бура: wins at once (D6, D8)
    if show is not None:
        return show
    if phase == ANSWER:
        return _answer(sit, legal)
    return _lead(sit, legal, lead_pairs)


def _lead(sit: Situation, legal: Sequence[Action], lead_pairs: bool) -> Action | None:
    """A «Стоп!» if it may (D7), else a whole hand of one suit, else (``lead_pairs``)
    the pair most worth keeping, else the single card least worth keeping."""
    keep = KEEP_VALUES[sit.trump]
    whole: Lead | None = None
    pair: Lead | None = None
    pair_value = 0.0
    single: Lead | None = None
    single_value = 0.0
    several: Lead | None = None  # a group lead, if no single card may be led
    several_value = 0.0
    for action in legal:
        if type(action) is not Lead:
            continue
        if action.stop:
            return action
        cards = action.cards
        if len(cards) == 1:
            value = keep[cards[0].index]
            if single is None or value < single_value:
                single, single_value = action, value
            continue
        if len(cards) == 3:
            if whole is None:
                whole = action
        elif lead_pairs:  # the best pair to keep: with same_rank_leads there may be several
            value = sum(keep[c.index] for c in cards)
            if pair is None or value > pair_value:
                pair, pair_value = action, value
        value = keep[cards[0].index]
        if several is None or value < several_value:
            several, several_value = action, value
    return whole or pair or single or several


def _answer(sit: Situation, legal: Sequence[Action]) -> Action:
    """The cheapest beat (plain cards before trumps, then the most points taken) if it
    spends no trump or the table holds 10 points or more; else the discard least worth
    keeping."""
    trump = sit.trump
    keep = KEEP_VALUES[trump]
    beat: Answer | None = None
    beat_cost = (0, 0)  # (trumps spent, -points taken): the cheapest first
    discard: Answer | None = None
    discard_value = 0.0
    for action in legal:
        if type(action) is not Answer:
            continue
        cards = action.cards
        if action.beat:
            trumps = points = 0
            for card in cards:
                trumps += card.suit is trump
                points += card.points
            cost = (trumps, -points)
            if beat is None or cost < beat_cost:
                beat, beat_cost = action, cost
        else:
            value = keep[cards[0].index] if len(cards) == 1 else sum(keep[c.index] for c in cards)
            if discard is None or value < discard_value:
                discard, discard_value = action, value
    if beat is not None and (beat_cost[0] == 0 or sit.table_points >= 10):
        return beat
    assert discard is not None, "R7: every answer may be a discard"
    return discard
