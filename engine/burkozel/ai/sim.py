"""A fast integer model of one Burkozel deal (R5–R13), for playouts only.

:class:`engine.burkozel.deal.Deal` checks every move, keeps history and builds tuples of
:class:`~engine.cards.Card`; a Monte Carlo search runs tens of thousands of playouts per
decision, so it works here on card indices, with the rules as tables on them
(``engine.fast``), and no checking. ``tests/engine/burkozel/ai/test_sim.py`` proves it
plays exactly like ``Deal``.
"""

from __future__ import annotations

import random

from engine.burkozel.deal import View, penalties_for
from engine.burkozel.rules import HAND_SIZE
from engine.cards import DECK, Card
from engine.fast import (
    INDICES,
    POINTS_OF,
    RANK_OF,
    SUIT_NO,
    SUIT_OF,
    beats,
    covers_indices,
    draw_from_end,
)

# The card tables the computer players read, under the names they know.
RANK, SUIT, PTS, SUIT_INDEX = RANK_OF, SUIT_OF, POINTS_OF, SUIT_NO
covers = covers_indices  # R7 on indices
__all__ = ["PTS", "RANK", "SUIT", "SUIT_INDEX", "Sim", "beats", "build_world", "covers"]


class Sim:
    """Mutable deal state; ``stock`` has its top card at the END so drawing is ``pop()``."""

    __slots__ = (
        "claim",
        "claimant",
        "hands",
        "k",
        "last_winner",
        "leader",
        "left",
        "n",
        "points",
        "stock",
        "table_pts",
        "trump",
        "turn",
    )

    n: int
    hands: list[list[int]]
    stock: list[int]
    trump: int
    points: list[int]
    leader: int
    turn: int  # -1 once the deal is over
    claimant: int
    claim: tuple[int, ...]
    table_pts: int
    k: int  # cards per play in the current trick; 0 before the lead
    left: int  # answers still to come in the current trick
    last_winner: int

    def copy(self) -> Sim:
        other = object.__new__(Sim)
        other.n = self.n
        other.hands = list(map(list.copy, self.hands))
        other.stock = self.stock.copy()
        other.trump = self.trump
        other.points = self.points.copy()
        other.leader = self.leader
        other.turn = self.turn
        other.claimant = self.claimant
        other.claim = self.claim
        other.table_pts = self.table_pts
        other.k = self.k
        other.left = self.left
        other.last_winner = self.last_winner
        return other

    def lead_limit(self) -> int:
        """R6: at most 3 cards and no more than the smallest other hand."""
        seat, hands = self.turn, self.hands
        if self.n == 2:
            return min(3, len(hands[1 - seat]), len(hands[seat]))
        others = min(len(h) for s, h in enumerate(hands) if s != seat)
        return min(3, others, len(hands[seat]))

    def play(self, cards: tuple[int, ...], beat: bool | None) -> None:
        """Play a legal move for ``self.turn`` (not checked)."""
        seat = self.turn
        hand = self.hands[seat]
        pts = 0
        for c in cards:
            hand.remove(c)
            pts += PTS[c]
        self.table_pts += pts
        if beat is None:
            self.leader = self.claimant = seat
            self.claim = cards
            self.k = len(cards)
            self.left = self.n - 1
            self.turn = (seat + 1) % self.n
            return
        if beat:
            self.claimant = seat
            self.claim = cards
        self.left -= 1
        if self.left:
            self.turn = (seat + 1) % self.n
            return
        # R9: the claimant takes the trick; R10: draws, winner first.
        winner = self.claimant
        self.points[winner] += self.table_pts
        self.table_pts = 0
        self.k = 0
        self.claim = ()
        self.last_winner = winner
        hands = self.hands
        if self.stock:
            draw_from_end(self.stock, hands, winner, HAND_SIZE)
        self.leader = self.claimant = winner
        self.turn = winner if any(hands) else -1

    def penalties(self) -> tuple[int, ...]:
        return penalties_for(self.points)


def view_table(view: View) -> tuple[tuple[int, ...], int, int, int]:
    """(claim, table points, cards per play, answers still to come) from a view's table."""
    if not view.table:
        return (), 0, 0, 0
    claim: tuple[int, ...] = ()
    pts = 0
    for play in view.table:
        pts += sum(c.points for c in play.cards)
        if play.declared_beat is not False and play.seat == view.claimant:
            claim = tuple(c.index for c in play.cards)
    return claim, pts, len(view.table[0].cards), view.players - len(view.table)


def unseen_for(view: View) -> tuple[list[int], dict[int, list[int]]]:
    """Cards this seat cannot place, and the cards it knows some other seat holds.

    The only such knowledge in the base game is the turned trump card once drawn
    (R3): everyone saw who drew it, and it is in their hand until it is played.
    """
    known: dict[int, list[int]] = {}
    placed = {c.index for c in view.hand} | {c.index for c in view.seen_cards}
    tc = view.trump_card.index
    if tc not in placed:
        placed.add(tc)
        if not view.trump_card_in_stock and view.trump_card_drawn_by is not None:
            known.setdefault(view.trump_card_drawn_by, []).append(tc)
    return [i for i in INDICES if i not in placed], known


def sample_world(view: View, rng: random.Random) -> Sim:
    """A complete deal state consistent with everything ``view`` shows (a determinization).

    Unseen cards are spread uniformly over the other hands and the stock; the turned
    trump card stays at the bottom of the stock or in the hand of whoever drew it.
    """
    if view.turn is None:
        raise ValueError("the deal is over")
    unseen, known = unseen_for(view)
    rng.shuffle(unseen)
    return build_world(view, unseen, known)


def build_world(view: View, unseen: list[int], known: dict[int, list[int]]) -> Sim:
    """The world in which the unseen cards, in this order, fill the other hands (seat
    order), then the stock from the bottom up; ``known`` as from :func:`unseen_for`."""
    if view.turn is None:
        raise ValueError("the deal is over")
    n = view.players
    hands: list[list[int]] = []
    pos = 0
    for seat in range(n):
        if seat == view.seat:
            hands.append([c.index for c in view.hand])
            continue
        hand = list(known.get(seat, ()))
        need = view.hand_sizes[seat] - len(hand)
        hand.extend(unseen[pos : pos + need])
        pos += need
        hands.append(hand)
    stock = unseen[pos:]
    if view.trump_card_in_stock:
        stock.insert(0, view.trump_card.index)  # bottom = index 0, drawn last
    claim, table_pts, k, left = view_table(view)
    sim = object.__new__(Sim)
    sim.n = n
    sim.hands = hands
    sim.stock = stock
    sim.trump = SUIT_INDEX[view.trump]
    sim.points = list(view.points) if view.points is not None else [0] * n
    sim.leader = view.leader
    sim.turn = view.turn
    sim.claimant = view.claimant if view.claimant is not None else view.leader
    sim.claim = claim
    sim.table_pts = table_pts
    sim.k = k
    sim.left = left
    sim.last_winner = view.last_trick.winner if view.last_trick is not None else view.leader
    return sim


def cards_of(indices: tuple[int, ...]) -> frozenset[Card]:
    return frozenset(DECK[i] for i in indices)
