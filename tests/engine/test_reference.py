"""Every registered game plays as its rule book reads: the fast deal of each game (the
Duel of the test tree included) offers exactly the actions of its readable reference
(``Game.reference``: engine/burkozel/reference.py, engine/bura/reference.py), in the same
order, and every action leaves the position the reference says (the trick, the points,
the draw R10/D4). And each table in engine/fast.py is the readable rule it encodes."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.bura.combinations import (
    BURA_HELD,
    MOLODKA_HELD,
    MOSCOW_HELD,
    NOTHING_HELD,
    SMALL_MOSCOW_HELD,
    hand_kind,
    is_bura,
    is_molodka,
    is_moscow,
    is_small_moscow,
)
from engine.bura.rules import Rules
from engine.cards import DECK, Card, Suit
from engine.errors import RuleSetError
from engine.fast import (
    BEATEN_BY,
    POINTS_OF,
    RANK_OF,
    SUIT_NO,
    SUIT_OF,
    beats,
    covers_cards,
    covers_indices,
    draw_from_end,
    group_leads_of,
    lead_picks,
    suit_no,
)
from engine.registry import GAMES, game_named, register, unregister
from engine.tricks import covers, draw_up, group_leads
from tests.support.duel.game import DUEL
from tests.support.strategies import lumpy_decks

NAMES = sorted([*GAMES, DUEL.name])


@pytest.fixture(autouse=True)
def duel_registered() -> Iterator[None]:
    register(DUEL)
    yield
    unregister(DUEL.name)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_deal_plays_as_the_reference_reads(name: str, data: st.DataObject) -> None:
    game = game_named(name)
    reference = game.reference
    players = data.draw(st.integers(game.min_players, game.max_players))
    switches = {k: data.draw(st.sampled_from(values)) for k, values in game.switches.items()}
    try:
        series = game.new_series(players, switches, data.draw(st.integers(0, players - 1)))
    except RuleSetError:
        assume(False)
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    for _ in range(2):
        if series.finished:
            break
        deal = series.start_deal(data.draw(lumpy_decks()))
        while not deal.finished:
            assert deal.actors() == reference.actors(deal)
            offered = []
            for seat in range(players):
                fast = deal.legal_actions(seat)
                assert fast == reference.legal_actions(deal, seat)
                offered += fast
            action = rng.choice(offered)
            expected = reference.after(deal, action)
            deal.apply(action)
            assert reference.position(deal) == expected
        assert reference.actors(deal) == ()


def test_r5_tables_are_card_beats() -> None:
    for trump in Suit:
        for a in DECK:
            for c in DECK:
                assert beats(a.index, c.index, SUIT_NO[trump]) == a.beats(c, trump)
                assert (BEATEN_BY[SUIT_NO[trump]][c.index] >> a.index & 1 == 1) == a.beats(c, trump)
    assert [SUIT_OF[c.index] for c in DECK] == [list(Suit).index(c.suit) for c in DECK]
    assert [suit_no(c.index) for c in DECK] == [SUIT_NO[c.suit] for c in DECK]
    assert list(RANK_OF) == [c.rank for c in DECK]
    assert list(POINTS_OF) == [c.points for c in DECK]


@settings(max_examples=400, deadline=None)
@given(
    cards=st.permutations(DECK).map(lambda d: d[:8]),
    k=st.integers(1, 4),
    trump=st.sampled_from(list(Suit)),
)
def test_r7_on_indices_is_covers(cards: tuple[Card, ...], k: int, trump: Suit) -> None:
    answer, claim = cards[:k], cards[4 : 4 + k]
    expected = covers(answer, claim, trump)
    assert covers_cards(answer, claim, SUIT_NO[trump]) == expected
    assert covers_indices([a.index for a in answer], [c.index for c in claim], SUIT_NO[trump]) == (
        expected
    )
    assert not covers_cards(answer[:-1], claim, SUIT_NO[trump])


@settings(max_examples=400, deadline=None)
@given(
    hand=st.permutations(DECK).flatmap(lambda d: st.integers(0, 6).map(lambda n: d[:n])),
    limit=st.integers(0, 4),
    same_rank=st.booleans(),
)
def test_lead_picks_are_group_leads(hand: tuple[Card, ...], limit: int, same_rank: bool) -> None:
    groups = [tuple(hand[i] for i in pick) for pick in lead_picks(hand, limit, same_rank)]
    assert groups == group_leads(hand, limit, same_rank)


@settings(max_examples=300, deadline=None)
@given(
    hand=st.permutations(DECK).flatmap(lambda d: st.integers(0, 6).map(lambda n: d[:n])),
    limit=st.integers(0, 4),
)
def test_group_leads_on_indices_are_group_leads(hand: tuple[Card, ...], limit: int) -> None:
    """R6/D2 for the computer players' card indices: the groups ``group_leads`` gives."""
    groups = group_leads_of([c.index for c in hand], limit)
    assert [tuple(DECK[c] for c in group) for group in groups] == group_leads(hand, limit)


@settings(max_examples=300, deadline=None)
@given(
    deck=st.permutations(DECK),
    sizes=st.lists(st.integers(0, 4), min_size=2, max_size=4),
    first=st.integers(0, 3),
    stock_size=st.integers(0, 12),
)
def test_the_draw_on_indices_is_draw_up(
    deck: list[Card], sizes: list[int], first: int, stock_size: int
) -> None:
    """R10: the simulator's draw (stock top at the end) is ``draw_up``'s."""
    first %= len(sizes)
    hands, at = [], 0
    for size in sizes:
        hands.append(list(deck[at : at + size]))
        at += size
    stock = list(deck[at : at + stock_size])
    order = [(first + i) % len(sizes) for i in range(len(sizes))]
    draw_up(stock, hands_by_card := [list(h) for h in hands], order, 4, DECK[0])
    indices = [[c.index for c in h] for h in hands]
    rest = [c.index for c in reversed(deck[at : at + stock_size])]
    draw_from_end(rest, indices, first, 4)
    assert indices == [[c.index for c in h] for h in hands_by_card]
    assert rest == [c.index for c in reversed(stock)]


@pytest.mark.parametrize("moscow", [False, True])
@pytest.mark.parametrize("molodka", [False, True])
def test_hand_kind_is_the_d6_d8_tests(moscow: bool, molodka: bool) -> None:
    """D6-D8: the engine's one-pass test of a hand says what the readable tests say."""
    rules = Rules(moscow="on" if moscow else "off", molodka="out_of_turn" if molodka else "off")
    for trump in Suit:
        for hand in [*combinations(DECK, 3), *combinations(DECK[::5], 2)]:
            expected = NOTHING_HELD
            if is_bura(hand, trump):
                expected = BURA_HELD
            elif is_moscow(hand, rules):
                expected = MOSCOW_HELD
            elif is_small_moscow(hand, trump, rules):
                expected = SMALL_MOSCOW_HELD
            elif is_molodka(hand, trump, rules):
                expected = MOLODKA_HELD
            assert hand_kind(hand, trump, moscow, molodka) == expected
