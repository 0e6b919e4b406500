"""Helpers for the computer players' tests: simulator states of real deals and of
written-down tables, playouts written down card by card, and twin deals a seat cannot
tell apart."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.burkozel.ai.sim import SUIT_INDEX, Sim, sample_world
from engine.burkozel.deal import Deal
from engine.cards import Card, Suit


class LoggedCards(list[int]):
    """A hand or the stock that writes down every card taken from it or added to it, in
    order: the moves and the draws of a playout, to compare one playout with another."""

    def __init__(self, cards: list[int], name: int, log: list[tuple[int, str, int]]) -> None:
        super().__init__(cards)
        self.name = name
        self.log = log

    def remove(self, card: int) -> None:
        self.log.append((self.name, "played", card))
        super().remove(card)

    def append(self, card: int) -> None:
        self.log.append((self.name, "drew", card))
        super().append(card)

    def pop(self, index: int = -1) -> int:
        card = super().pop(index)
        self.log.append((self.name, "popped", card))
        return card


def logged_playout(
    world: Sim, play: Callable[[Sim], None]
) -> tuple[list[tuple[int, str, int]], tuple[object, ...]]:
    """Every card ``play`` moves in a copy of ``world``, and the state it ends in."""
    sim = world.copy()
    log: list[tuple[int, str, int]] = []
    sim.hands = [LoggedCards(h, seat, log) for seat, h in enumerate(sim.hands)]
    sim.stock = LoggedCards(sim.stock, -1, log)
    play(sim)
    return log, tuple(getattr(sim, name) for name in Sim.__slots__)


def exact_sim(deal: Deal) -> Sim:
    """The Sim of a real deal, hidden cards included (tests only)."""
    seat = deal.turn
    assert seat is not None
    sim = sample_world(deal.view(seat), random.Random(0))
    sim.hands = [[c.index for c in deal.hand(s)] for s in range(deal.players)]
    sim.stock = [c.index for c in reversed(deal._stock)]
    return sim


def idx(codes: str) -> list[int]:
    return [Card.parse(code).index for code in codes.split()]


def table_sim(hands: list[str], trump: Suit, stock: str = "") -> Sim:
    sim = object.__new__(Sim)
    sim.n = len(hands)
    sim.hands = [idx(h) for h in hands]
    sim.stock = idx(stock)
    sim.trump = SUIT_INDEX[trump]
    sim.points = [0] * sim.n
    sim.leader = sim.turn = sim.claimant = sim.last_winner = 0
    sim.claim = ()
    sim.table_pts = sim.k = sim.left = 0
    return sim


def swapped_twin(deal: Deal, seat: int, rng: random.Random) -> Deal | None:
    """The same moves from a deck where two cards ``seat`` has never seen trade places.

    Neither card has been played and neither ever reached ``seat``'s hand, so every
    move stays legal and ``seat``'s view is unchanged, while another hand or the stock
    order differs.
    """
    view = deal.view(seat)
    dealt = deal.players * 4
    trump_pos = dealt  # R3: the turned card; moving it would change the trump
    visible = set(view.hand) | set(view.seen_cards)
    hidden = [i for i, c in enumerate(deal.deck) if i != trump_pos and c not in visible]
    if len(hidden) < 2:
        return None
    i, j = rng.sample(hidden, 2)
    deck = list(deal.deck)
    deck[i], deck[j] = deck[j], deck[i]
    twin = Deal.start(deal.players, deck, deal.dealer)
    twin.replay(deal.history)
    # The swapped cards must not have reached this seat's hand through a draw.
    if twin.view(seat) != view:
        return None
    return twin
