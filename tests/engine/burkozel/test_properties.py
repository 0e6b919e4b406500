"""Property-based tests over random decks and random legal play (hypothesis)."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, Card, IllegalMoveError
from engine.burkozel import (
    Action,
    Deal,
    Series,
    from_record,
    penalties_for,
    replay,
    report,
    to_record,
)
from tests.support.burkozel import assert_views_private, cards_in_play

players_st = st.integers(min_value=2, max_value=4)
decks = st.permutations(DECK).map(tuple)


@settings(max_examples=300, deadline=None)
@given(players=players_st, deck=decks, dealer=st.integers(0, 3), data=st.data())
def test_invariants_at_every_step(
    players: int, deck: tuple[Card, ...], dealer: int, data: st.DataObject
) -> None:
    deal = Deal.start(players, deck, dealer % players)
    steps = 0
    while not deal.finished:
        # cards are conserved: hands + stock + table + tricks = the deck
        assert sorted(cards_in_play(deal)) == list(DECK)
        assert_views_private(deal)
        if not deal.table:  # R10: hands are equal at each lead
            assert len(set(deal.hand_sizes())) == 1
            assert deal.hand_sizes()[0] in (1, 2, 3, 4)
        legal = deal.legal_actions()
        assert legal and all(m.seat == deal.turn for m in legal)
        deal.apply(legal[data.draw(st.integers(0, len(legal) - 1))])
        steps += 1
    assert sorted(cards_in_play(deal)) == list(DECK)
    assert_views_private(deal)
    result = deal.result()
    assert sum(result.points) == 120  # R12
    assert result.penalties == penalties_for(result.points)
    assert 0 in result.penalties and steps == len(deal.history)


@settings(max_examples=300, deadline=None)
@given(players=players_st, deck=decks, seed=st.integers(0, 2**32), data=st.data())
def test_check_agrees_with_legal_moves(
    players: int, deck: tuple[Card, ...], seed: int, data: st.DataObject
) -> None:
    """Random card sets are accepted exactly when they are among the legal moves;
    a refused one changes nothing."""
    rng = random.Random(seed)
    deal = Deal.start(players, deck, 0)
    while not deal.finished:
        seat = deal.turn
        assert seat is not None
        legal = set(deal.legal_actions())
        hand = deal.hand(seat)
        size = data.draw(st.integers(1, min(4, len(hand))))
        cards = tuple(rng.sample(hand, size))
        beat = None if not deal.table else data.draw(st.booleans())
        candidate = Action(seat, cards, beat)
        if frozenset(cards) in {frozenset(m.cards) for m in legal if m.beat == beat}:
            deal.check(candidate)
        else:
            before = (deal.view(seat), deal.hand_sizes(), tuple(deal.history), deal.stock_size)
            try:
                deal.apply(candidate)
            except IllegalMoveError as exc:
                assert str(exc)
            else:
                raise AssertionError(f"{candidate} was accepted but is not legal")
            assert before == (
                deal.view(seat),
                deal.hand_sizes(),
                tuple(deal.history),
                deal.stock_size,
            )
        deal.push(rng.choice(sorted(legal, key=str)))


@settings(max_examples=200, deadline=None)
@given(players=players_st, deck=decks, dealer=st.integers(0, 3), seed=st.integers(0, 2**32))
def test_same_deck_same_moves_same_result(
    players: int, deck: tuple[Card, ...], dealer: int, seed: int
) -> None:
    rng = random.Random(seed)
    first = Deal.start(players, deck, dealer % players)
    while not first.finished:
        first.apply(rng.choice(first.legal_actions()))
    again = Deal.start(players, deck, dealer % players).replay(list(first.history))
    assert again.result() == first.result()
    assert again.won_cards == first.won_cards
    assert [again.view(s) for s in range(players)] == [first.view(s) for s in range(players)]


@settings(max_examples=100, deadline=None)
@given(
    players=players_st,
    dealer=st.integers(0, 3),
    seed=st.integers(0, 2**32),
    stop=st.one_of(st.none(), st.integers(0, 400)),
)
def test_record_replay_round_trips(players: int, dealer: int, seed: int, stop: int | None) -> None:
    """A whole (or cut-off) series written as a record and replayed gives the same result."""
    rng = random.Random(seed)
    series = Series(players, first_dealer=dealer % players)
    moves = 0
    while not series.finished and (stop is None or moves < stop):
        deal = series.current or series.start_deal(tuple(rng.sample(DECK, 36)))
        series.apply(rng.choice(deal.legal_actions()))
        moves += 1
    record = json.loads(json.dumps(to_record(series)))
    assert replay(record) == report(series)
    assert to_record(from_record(record)) == record
    rebuilt = from_record(record)
    assert rebuilt.result() == series.result()
    assert [d.deck for d in rebuilt.deals] == [d.deck for d in series.deals]
