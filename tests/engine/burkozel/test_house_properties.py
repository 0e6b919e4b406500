"""Hypothesis properties over random switch combinations (Part B and C)."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, Card, IllegalMoveError
from engine.burkozel import Action, Deal, Rules, Series, from_record, replay, report, to_record
from tests.support.burkozel import all_legal, assert_views_private, cards_in_play, view_cards
from tests.support.strategies import lumpy_decks, table_rules


def assert_no_closed_leak(deal: Deal) -> None:
    """B1: nobody but its owner sees a face-down discard before the deal is over."""
    assert_views_private(deal)
    if deal.finished:
        return
    for seat in range(deal.players):
        hidden = {c for c, owner in deal._face_down.items() if owner != seat}
        assert not view_cards(deal.view(seat)) & hidden, f"seat {seat} sees a closed discard"


@settings(max_examples=150, deadline=None)
@given(
    table=table_rules(), decks=st.lists(lumpy_decks(), min_size=3, max_size=3), seed=st.integers()
)
def test_cards_conserved_and_views_private_under_any_switches(
    table: tuple[int, Rules], decks: list[tuple[Card, ...]], seed: int
) -> None:
    players, rules = table
    rng = random.Random(seed)
    series = Series(players, rules, first_dealer=rng.randrange(players))
    for deck in decks:
        if series.finished:
            break
        deal = series.start_deal(deck)
        while not deal.finished:
            assert sorted(cards_in_play(deal)) == list(DECK)
            assert_no_closed_leak(deal)
            in_hands = {len(deal.hand(s)) for s in deal.seats_in}
            if not deal.table:
                assert len(in_hands) == 1  # R10 (B3: among seats still in)
            assert all(not deal.hand(s) for s in range(players) if s not in deal.seats_in)
            legal = all_legal(deal)
            assert legal
            series.apply(rng.choice(legal))
        assert sorted(cards_in_play(deal)) == list(DECK)
        assert_no_closed_leak(deal)
        result = deal.result()
        if result.outcome == "played":
            assert sum(result.points) == 120
        if rules.teams == "pairs":
            assert result.penalties[0] == result.penalties[2]
            assert result.penalties[1] == result.penalties[3]
        assert all(result.penalties[s] == 0 for s in range(players) if s not in deal.seats_in)


def candidates(deal: Deal, rng: random.Random) -> list[Action]:
    """Random moves of every kind by any seat: many illegal, some legal."""
    found = []
    for seat in range(deal.players):
        hand = deal.hand(seat)
        found.append(Action(seat, (), show=rng.choice(["bura", "moscow"])))
        if not hand:
            continue
        cards = tuple(rng.sample(hand, rng.randint(1, len(hand))))
        found.append(Action(seat, cards, rng.choice([None, True, False])))
        found.append(Action(seat, cards, stop=True))
        found.append(Action(seat, tuple(hand), stop=True))
        found.append(Action(seat, tuple(hand)))
    return found


def key(move: Action) -> tuple[int, frozenset[Card], bool | None, str | None, bool]:
    return (move.seat, frozenset(move.cards), move.beat, move.show, move.stop)


@settings(max_examples=100, deadline=None)
@given(table=table_rules(), deck=lumpy_decks(), seed=st.integers())
def test_every_legal_move_accepted_every_illegal_refused(
    table: tuple[int, Rules], deck: tuple[Card, ...], seed: int
) -> None:
    players, rules = table
    rng = random.Random(seed)
    deal = Deal.start(players, deck, rng.randrange(players), rules)
    while not deal.finished:
        legal = all_legal(deal)
        keys = {key(m) for m in legal}
        for move in legal:
            deal.check(move)
        for move in candidates(deal, rng):
            if key(move) in keys:
                deal.check(move)
                continue
            before = (
                [deal.view(s) for s in range(players)],
                tuple(deal.history),
                deal.stock_size,
            )
            try:
                deal.apply(move)
            except IllegalMoveError as exc:
                assert str(exc)
            else:
                raise AssertionError(f"{move} was accepted but is not legal")
            assert before == (
                [deal.view(s) for s in range(players)],
                tuple(deal.history),
                deal.stock_size,
            )
        deal.push(rng.choice(sorted(legal, key=str)))


@settings(max_examples=80, deadline=None)
@given(table=table_rules(), seed=st.integers(), stop=st.one_of(st.none(), st.integers(0, 300)))
def test_replay_deterministic_under_any_switches(
    table: tuple[int, Rules], seed: int, stop: int | None
) -> None:
    players, rules = table
    rng = random.Random(seed)
    series = Series(players, rules, first_dealer=rng.randrange(players))
    moves = 0
    while not series.finished and (stop is None or moves < stop):
        deal = series.current or series.start_deal(tuple(rng.sample(DECK, 36)))
        series.apply(rng.choice(all_legal(deal)))
        moves += 1
    record = json.loads(json.dumps(to_record(series)))
    assert record["rules"] == rules.to_dict()
    assert replay(record) == report(series)
    again = from_record(record)
    assert to_record(again) == record
    assert again.result() == series.result()
    for old, new in zip(series.deals, again.deals, strict=True):
        assert [old.view(s) for s in range(players)] == [new.view(s) for s in range(players)]
