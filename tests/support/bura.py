"""Helpers shared by the Bura tests (this module holds no tests itself)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.bura.actions import Action, Answer, Declare, Lead
from engine.bura.deal import Deal
from engine.bura.rules import HAND_SIZE, Rules
from engine.bura.series import Series
from engine.bura.view import View
from engine.cards import DECK, Card, parse_cards
from engine.game import PUBLIC


def bura_deck(
    players: int,
    dealer: int,
    hands: Sequence[str],
    trump: str,
    stock: str = "",
) -> tuple[Card, ...]:
    """A deck order dealing ``hands[seat]`` (space-separated codes) as D1, turning up
    ``trump`` and putting ``stock`` (top down) on top of the stock; the other cards
    follow in DECK order."""
    dealt_hands = [parse_cards(h.split()) for h in hands]
    assert len(dealt_hands) == players and all(len(h) == HAND_SIZE for h in dealt_hands)
    dealt: list[Card] = []
    for rnd in range(HAND_SIZE):
        for k in range(players):
            dealt.append(dealt_hands[(dealer + 1 + k) % players][rnd])
    head = [*dealt, Card.parse(trump), *parse_cards(stock.split())]
    deck = (*head, *(c for c in DECK if c not in head))
    assert sorted(deck) == list(DECK), "bura_deck: repeated card"
    return deck


def lead(seat: int, codes: str, stop: bool = False) -> Lead:
    return Lead(seat, parse_cards(codes.split()), stop)


def answer(seat: int, codes: str, beat: bool) -> Answer:
    return Answer(seat, parse_cards(codes.split()), beat)


def declare(seat: int) -> Declare:
    return Declare(seat, True)


def all_actions(deal: Deal) -> list[Action]:
    return [a for s in deal.actors() for a in deal.legal_actions(s)]


def random_play(deal: Deal, rng: random.Random, declare_rate: float = 0.15) -> None:
    """Play the deal to its end with random legal actions of any seat that may act."""
    while not deal.finished:
        options = all_actions(deal)
        declares = [a for a in options if isinstance(a, Declare)]
        if declares and rng.random() > declare_rate:
            options = [a for a in options if not (isinstance(a, Declare) and a.declare)]
        deal.apply(rng.choice(options))


def random_series(
    players: int, seed: int, rules: Rules | None = None, max_deals: int = 200
) -> Series:
    rng = random.Random(seed)
    series = Series(players, rules or Rules(), rng.randrange(players))
    while not series.finished and len(series.deals) < max_deals:
        deck = list(DECK)
        rng.shuffle(deck)
        random_play(series.start_deal(deck), rng)
    return series


def cards_in_play(deal: Deal) -> list[Card]:
    """Hands + stock + table + trick piles: must always be the whole deck."""
    cards = [c for h in deal.hands for c in h]
    cards += deal.stock
    cards += deal.table_cards()
    cards += [pc.card for pile in deal.piles for pc in pile]
    return cards


def cards_in_view(view: View) -> set[Card]:
    """Every card a view shows anywhere."""
    shown = set(view.hand) | {view.trump_card}
    shown |= {c for p in view.table for c in (p.cards or ())}
    shown |= {c for p in view.last_trick for c in (p.cards or ())}
    shown |= {c for p in view.piles for c in p.open_cards}
    shown |= {c for p in view.piles for under in p.closed_under for c in under}
    shown |= {c for c, _owner in view.my_closed}
    return shown


def assert_view_private(deal: Deal, seat: int) -> None:
    """The view of ``seat`` shows no other hand, no other seat's closed discard, no
    stock card but the turned trump, and no running point total (D3). ``PUBLIC``: the
    public view (the group's, an onlooker's) shows no hand and no closed discard at all."""
    view = deal.public_view() if seat == PUBLIC else deal.view(seat)
    allowed = {deal.trump_card} | (set() if seat == PUBLIC else set(deal.hands[seat]))
    if seat == PUBLIC:
        assert view.hand == () and view.my_closed == () and not view.may_act
    allowed |= {c for p in deal.plays if not p.closed or p.seat == seat for c in p.cards}
    allowed |= {pc.card for pile in deal.piles for pc in pile if not pc.closed or pc.by == seat}
    leaked = cards_in_view(view) - allowed
    assert not leaked, f"seat {seat} sees {sorted(c.code() for c in leaked)}"
    for pile in view.piles:
        # What each face-down discard was laid under is open cards of the same pile, one
        # entry per discard: it adds no card and no count beyond what the pile shows.
        assert len(pile.closed_under) == len(pile.closed_plays)
        assert all(set(under) <= set(pile.open_cards) for under in pile.closed_under)
    assert not hasattr(view, "points")
    if not deal.finished:
        assert view.result is None


class Decks:
    """The service's rng: deals these decks first (then shuffles), dealer seat 0."""

    def __init__(self, decks: Sequence[Sequence[Card]], seed: int = 1) -> None:
        self.decks = [list(d) for d in decks]
        self.rng = random.Random(seed)

    def randrange(self, n: int) -> int:
        return 0

    def shuffle(self, cards: list[Any]) -> None:
        if self.decks:
            cards[:] = self.decks.pop(0)
        else:
            self.rng.shuffle(cards)
