"""Helpers shared by the engine tests (this module holds no tests itself)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine import DECK, Card, Suit, parse_cards
from engine.burkozel import Action, Deal, Rules, Series, View
from engine.burkozel.rules import HAND_SIZE


def build_deck(
    players: int,
    dealer: int,
    hands: Sequence[Sequence[str]],
    trump: str,
    stock: Sequence[str] = (),
) -> tuple[Card, ...]:
    """A deck order that deals ``hands[seat]`` to each seat (R3), turns up ``trump`` and
    puts ``stock`` (top down) on top of the stock; the other cards follow in DECK order."""
    assert len(hands) == players and all(len(h) == HAND_SIZE for h in hands)
    dealt: list[Card] = []
    for rnd in range(HAND_SIZE):
        for k in range(players):
            seat = (dealer + 1 + k) % players
            dealt.append(Card.parse(hands[seat][rnd]))
    head = [*dealt, Card.parse(trump), *parse_cards(stock)]
    rest = [c for c in DECK if c not in head]
    deck = (*head, *rest)
    assert sorted(deck) == list(DECK), "build_deck: repeated card"
    return deck


def move(seat: int, codes: str, beat: bool | None = None) -> Action:
    return Action(seat, parse_cards(codes.split()), beat)


def cards_in_play(deal: Deal) -> list[Card]:
    """Every card somewhere in the deal: hands, stock, table and trick piles."""
    cards = [c for s in range(deal.players) for c in deal.hand(s)]
    cards += deal._stock  # the stock's contents are hidden from views, so look inside
    cards += [c for p in deal.table for c in p.cards]
    cards += [c for pile in deal.won_cards for c in pile]
    return cards


def view_cards(view: View) -> set[Card]:
    """Every card a view shows anywhere, except the (public) turned-up trump card."""
    shown = set(view.hand) | set(view.seen_cards)
    shown |= {c for p in view.table for c in p.cards}
    if view.last_trick is not None:
        shown |= {c for p in view.last_trick.plays for c in p.cards}
    return shown


def assert_views_private(deal: Deal) -> None:
    for seat in range(deal.players):
        view = deal.view(seat)
        assert sorted(view.hand) == sorted(deal.hand(seat))
        others = {c for s in range(deal.players) if s != seat for c in deal.hand(s)}
        assert not view_cards(view) & others, f"seat {seat} sees another hand"
        # Nothing else in the view may carry a card either (only the public trump card).
        for name in View.__slots__:
            value = getattr(view, name)
            if isinstance(value, Card):
                assert name == "trump_card" and value is deal.trump_card


def random_deal(deal: Deal, rng: random.Random) -> Deal:
    while not deal.finished:
        deal.apply(rng.choice(deal.legal_actions()))
    return deal


def all_legal(deal: Deal) -> list[Action]:
    """Every legal move of every seat that may act now (B6: out-of-turn leads too)."""
    return [m for seat in deal.actors() for m in deal.legal_actions(seat)]


def random_series(
    players: int, seed: int, deals: int | None = None, rules: Rules | None = None
) -> Series:
    """A series played with random legal moves until it ends (or ``deals`` deals)."""
    rng = random.Random(seed)
    if rules is None:
        series = Series(players, first_dealer=rng.randrange(players))
    else:
        series = Series(players, rules, first_dealer=rng.randrange(players))
    while not series.finished and (deals is None or len(series.deals) < deals):
        deal = series.start_deal(tuple(rng.sample(DECK, len(DECK))))
        while not deal.finished:
            series.apply(rng.choice(all_legal(deal) if rules else deal.legal_actions()))
    return series


def after_first_trick(
    hands: Sequence[Sequence[str]], trump: str, rules: Rules, *, stakes: int = 1
) -> Deal:
    """A deal at the lead of its second trick in which seat ``s`` holds ``hands[s]``.

    Seat 0 leads the first trick (the last seat deals) with a worthless card, every
    other seat discards one, seat 0 takes the trick and each seat then draws its
    fourth card (seat 0 first, R10)."""
    players = len(hands)
    wanted = {Card.parse(c) for h in hands for c in h} | {Card.parse(trump)}
    spare = [c for c in DECK if c not in wanted and c.points == 0 and c.suit is not Suit.CLUBS]
    spare += [c for c in DECK if c not in wanted and c not in spare]
    dealt = [[*h[:3], spare[s].code()] for s, h in enumerate(hands)]
    deck = build_deck(players, players - 1, dealt, trump, [h[3] for h in hands])
    deal = Deal.start(players, deck, players - 1, rules, stakes=stakes)
    deal.apply(Action(0, (spare[0],)))
    for seat in range(1, players):
        deal.apply(Action(seat, (spare[seat],), False))
    assert deal.trick_number == 1 and deal.turn == 0
    assert [sorted(deal.hand(s)) for s in range(players)] == [sorted(parse_cards(h)) for h in hands]
    return deal


def shown_series(hands: list[list[str]]) -> Series:
    """Seat 0 leads 7♠ at the second trick and seat 1 shows its бура instead of answering."""
    on = Rules(combinations="on")
    first = after_first_trick(hands, "6C", on)
    series = Series(len(hands), on, first_dealer=len(hands) - 1)
    series.start_deal(first.deck, len(hands) - 1)
    for played in first.history:
        series.apply(played)
    series.apply(Action(0, parse_cards(["7S"])))
    series.apply(Action(1, (), show="bura"))
    return series
