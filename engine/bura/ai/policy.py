"""The greedy Bura policy: a few rules of thumb over what one seat knows.

It reads a :class:`Situation`, built from a seat's view (a real decision) or from a
simulated deal for that seat (a Monte Carlo playout), so both use the same rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.bura.actions import Action, Answer, DaveReply, Declare, Lead, Show
from engine.bura.deal import ANSWER, DAVE, DECLARE, Deal
from engine.bura.rules import BUST_LIMIT, DECLARE_TARGET, Rules
from engine.bura.view import View
from engine.cards import Card, Suit

# A face-down discard is usually a low card; this is what one is guessed to be worth.
CLOSED_GUESS = 2.0


@dataclass(frozen=True, slots=True)
class Situation:
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
    RESULTS-ai.md, fifth pass); the shipped greedy level does not lead so."""
    shows = [a for a in legal if isinstance(a, Show)]
    if shows:
        return shows[-1]  # Москва if held, else бура: wins at once
    if sit.phase == DECLARE:
        estimate = sit.known_points + closed_guess * sit.closed_in_pile
        bust = sit.rules.target == "31_50" and estimate > BUST_LIMIT
        go = estimate >= DECLARE_TARGET and not bust
        return Declare(sit.seat, go)
    if sit.phase == DAVE:
        trumps = [c for c in sit.hand if c.suit is sit.trump]
        strong = len(trumps) >= 2 or any(c.points >= 10 for c in trumps)
        return DaveReply(sit.seat, strong)
    if sit.phase == ANSWER:
        return _answer(sit, legal)
    stops = [a for a in legal if isinstance(a, Lead) and a.stop]
    if stops:
        return stops[0]
    leads = [a for a in legal if isinstance(a, Lead)]
    whole = [a for a in leads if len(a.cards) == 3]
    if whole:  # an own молодка or малая Москва: lead all three
        return whole[0]
    pairs = [a for a in leads if len(a.cards) == 2] if lead_pairs else []
    if pairs:  # the best pair to keep: with same_rank_leads there may be several (D2)
        return max(pairs, key=lambda a: sum(keep_value(c, sit.trump) for c in a.cards))
    return min(leads, key=lambda a: (len(a.cards) > 1, keep_value(a.cards[0], sit.trump)))


def _answer(sit: Situation, legal: Sequence[Action]) -> Action:
    answers = [a for a in legal if isinstance(a, Answer)]
    beats = [a for a in answers if a.beat]
    trump = sit.trump
    if beats:

        def beat_cost(a: Answer) -> tuple[int, int]:
            return (sum(c.suit is trump for c in a.cards), -sum(c.points for c in a.cards))

        best = min(beats, key=beat_cost)
        if beat_cost(best)[0] == 0 or sit.table_points >= 10:
            return best
    discards = [a for a in answers if not a.beat]
    return min(discards, key=lambda a: sum(keep_value(c, trump) for c in a.cards))
