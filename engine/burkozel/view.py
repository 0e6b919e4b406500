"""What a seat sees of a deal (R8, B1), and a deal rebuilt from what a seat sees.

Kept apart from :mod:`engine.burkozel.deal` (the rules of play); both functions work on a
:class:`~engine.burkozel.deal.Deal`'s state and are reached through ``Deal.view`` and
``Deal.from_view``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from engine.burkozel.actions import Play, PlayerView, TrickResult
from engine.burkozel.scoring import PLAYED
from engine.cards import DECK, Card, Suit
from engine.errors import GameOverError, IllegalMoveError

if TYPE_CHECKING:
    from engine.burkozel.deal import Deal


PUBLIC = -1  # the seat of the public view: nobody's hand, nobody's closed discards


def seat_view(self: Deal, seat: int) -> PlayerView:
    """What ``seat`` sees: its own hand and the open table, never other hands, nor
    (B1 closed) another seat's discards until the deal is over. ``PUBLIC`` is what a
    spectator (the group) sees: no hand and no closed discard at all."""
    if seat != PUBLIC and not 0 <= seat < self.players:
        raise IllegalMoveError(f"no seat {seat} at a {self.players}-player table")
    hidden: set[Card] = set()
    if self._face_down and not self.finished:
        hidden = {c for c, owner in self._face_down.items() if owner != seat}
    last = self.last_trick
    table = tuple(self._plays)
    seen = tuple(self._seen)
    known = tuple(self.points)
    if hidden:
        if last is not None:
            plays = tuple(_masked(p, hidden) for p in last.plays)
            shown = sum(c.points for p in plays for c in p.cards)
            last = TrickResult(last.winner, plays, shown)
        table = tuple(_masked(p, hidden) for p in table)
        seen = tuple(c for c in seen if c not in hidden)
        known = tuple(
            p - sum(c.points for c in pile if c in hidden)
            for p, pile in zip(self.points, self.won_cards, strict=True)
        )
    closed = self.rules.discards == "closed" and not self.finished
    return PlayerView(
        seat=seat,
        players=self.players,
        hand=()
        if seat == PUBLIC
        else tuple(sorted(self._hands[seat], key=_display_key(self.trump))),
        hand_sizes=self.hand_sizes(),
        trump=self.trump,
        trump_card=self.trump_card,
        trump_card_in_stock=self._trump_drawn_by is None,
        trump_card_drawn_by=self._trump_drawn_by,
        stock_size=len(self._stock),
        dealer=self.dealer,
        leader=self._leader,
        turn=self.turn,
        claimant=self.claimant,
        table=table,
        seen_cards=seen,
        points=None if closed else tuple(self.points),
        last_trick=last,
        trick_number=self.trick_number,
        finished=self.finished,
        rules=self.rules,
        seats_in=self.seats_in,
        known_points=known,
        stakes=self.stakes,
        outcome=self.outcome if self.finished else None,
    )


def restore(
    self: Deal,
    view: PlayerView,
    hands: Sequence[Sequence[Card]],
    stock: Sequence[Card],
    table: Sequence[Play],
) -> None:
    """Fill the blank deal ``self`` with the position ``view`` shows and its hidden parts
    as given: every seat's ``hands``, the ``stock`` top first and the ``table`` with
    face-down cards (B1) filled in. Trick piles are not rebuilt: points are the view's
    (B1 closed: the points it could see)."""
    if view.turn is None:
        raise GameOverError("the deal is over")
    self.players, self.rules, self.dealer = view.players, view.rules, view.dealer
    self.deck = DECK  # unknown to a seat; only records use it
    self.seats_in = view.seats_in or tuple(range(view.players))
    self.stakes = view.stakes
    self._hands = [list(h) for h in hands]
    self._stock = list(stock)
    self.trump_card, self.trump = view.trump_card, view.trump
    self._leader, self.turn = view.leader, view.turn
    self._plays = list(table)
    self._claimant = view.claimant if view.claimant is not None else view.leader
    claims = [p.cards for p in table if p.seat == self._claimant and p.declared_beat is not False]
    self._claim = claims[-1] if claims else ()
    self._seen = list(view.seen_cards)
    self._face_down = {
        c: p.seat
        for p, seen in zip(table, view.table, strict=True)
        if seen.face_down
        for c in p.cards
    }
    self._trump_drawn_by = view.trump_card_drawn_by
    points = view.points if view.points is not None else view.known_points
    self.points = list(points) if points else [0] * view.players
    self.won_cards = [[] for _ in range(view.players)]
    self.history = []
    self.last_trick = view.last_trick
    self.trick_number = view.trick_number
    self.outcome, self.shown_by = PLAYED, None


def _masked(play: Play, hidden: set[Card]) -> Play:
    """B1: a discard lying face down, as a seat that may not see it sees it."""
    if play.declared_beat is False and any(c in hidden for c in play.cards):
        return Play(play.seat, (), False, face_down=len(play.cards))
    return play


_SUIT_ORDER = {s: i for i, s in enumerate(Suit)}


def _display_key(trump: Suit) -> Callable[[Card], tuple[bool, int, int]]:
    def key(card: Card) -> tuple[bool, int, int]:
        return (card.suit is trump, _SUIT_ORDER[card.suit], card.rank)

    return key
