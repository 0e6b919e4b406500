"""The engines' fast paths agree with their full checks, on random positions of both
games under every rule switch (tests/engine/test_reference.py holds the legal lists and
the positions to the readable references):

- the legal set is exactly the set of moves the full check (``check``) accepts, built
  from scratch for every subset of the hand (R6/R7/B2/C3/C4, D2/D5-D8/D11);
- a move played through the fast path (one ``legal_actions`` handed out)
  leaves the very state the full check and ``push`` of an equal, freshly built move
  leave (views, history and its JSON, result);
- a refused move is refused with the same reason on both paths and changes nothing;
- Bura's quick «Стоп!» test says what the reasons say;
- ``policy.playout`` plays the moves ``policy.playout_steps`` plays, card for card, and
  the greedy answer's fast cases choose what the loop over every set of cards chooses.
"""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, Card, GameOverError, IllegalMoveError, Suit, bura, burkozel
from engine.bura.actions import (
    Action,
    Answer,
    Dave,
    DaveReply,
    Declare,
    Lead,
    Show,
)
from engine.bura.combinations import may_stop, stop_refusal
from engine.bura.deal import DECLARE
from engine.burkozel import Deal
from engine.burkozel.ai import policy
from engine.burkozel.ai.sim import sample_world
from tests.support.sim import logged_playout
from tests.support.strategies import bura_rules, lumpy_decks, table_rules


def _subsets(hand: tuple[Card, ...]) -> list[tuple[Card, ...]]:
    return [c for size in range(1, len(hand) + 1) for c in combinations(hand, size)]


def _key(move: burkozel.Action) -> tuple[object, ...]:
    return (move.seat, frozenset(move.cards), move.beat, move.show, move.stop)


def _burkozel_candidates(deal: Deal, seat: int) -> list[burkozel.Action]:
    """Every move ``seat`` could try, built fresh (never one the engine handed out)."""
    moves = [burkozel.Action(seat, (), show=kind) for kind in ("bura", "moscow")]
    for cards in _subsets(deal.hand(seat)):
        moves += [
            burkozel.Action(seat, cards),
            burkozel.Action(seat, cards, True),
            burkozel.Action(seat, cards, False),
            burkozel.Action(seat, cards, stop=True),
        ]
    return moves


def _refusal(check: object, move: object) -> str | None:
    try:
        check(move)  # type: ignore[operator]
    except (IllegalMoveError, GameOverError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def _burkozel_state(deal: Deal) -> object:
    views = [deal.view(s) for s in range(deal.players)]
    result = deal.result() if deal.finished else None
    return (views, deal.public_view(), [m.to_json() for m in deal.history], result)


@settings(max_examples=25, deadline=None)
@given(table=table_rules(), deck=lumpy_decks(), data=st.data())
def test_burkozel_fast_paths_agree_with_the_full_check(
    table: tuple[int, burkozel.Rules], deck: tuple[Card, ...], data: st.DataObject
) -> None:
    players, rules = table
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    deal = Deal.start(players, deck, rng.randrange(players), rules)
    while not deal.finished:
        offered: list[burkozel.Action] = []
        for seat in range(players):
            fast = deal.legal_actions(seat)
            assert len({_key(m) for m in fast}) == len(fast), "a legal move offered twice"
            accepted = {
                _key(m) for m in _burkozel_candidates(deal, seat) if _refusal(deal.check, m) is None
            }
            assert {_key(m) for m in fast} == accepted
            offered += fast
        # A refused move: the same reason on both paths, and nothing changes.
        before = _burkozel_state(deal)
        wrong = [
            m
            for m in _burkozel_candidates(deal, rng.randrange(players))
            if _key(m) not in {_key(o) for o in offered}
        ]
        if wrong:
            bad = rng.choice(wrong)
            reason = _refusal(deal.check, bad)
            assert reason is not None
            assert _refusal(deal.apply, bad) == reason
            assert _burkozel_state(deal) == before
        # The fast path (an offered move) and the full path (an equal fresh move).
        move = rng.choice(offered)
        slow = deal.copy()
        fresh = burkozel.Action.from_json(move.to_json())
        assert fresh == move and fresh is not move
        fast_trick = deal.apply(move)
        slow.check(fresh)
        slow_trick = slow.push(fresh)
        assert fast_trick == slow_trick
        assert _burkozel_state(deal) == _burkozel_state(slow)


def _bura_candidates(deal: bura.Deal, seat: int) -> list[Action]:
    actions: list[Action] = [
        Show(seat, "bura"),
        Show(seat, "moscow"),
        Dave(seat),
        DaveReply(seat, True),
        DaveReply(seat, False),
        Declare(seat, True),
        Declare(seat, False),
    ]
    for cards in _subsets(deal.hand(seat)):
        actions += [Lead(seat, cards), Lead(seat, cards, True)]
        actions += [Answer(seat, cards, True), Answer(seat, cards, False)]
    return actions


def _bura_key(action: Action) -> tuple[object, ...]:
    data = action.to_json()
    if "cards" in data:
        data["cards"] = sorted(data["cards"])
    return (type(action).__name__, sorted(data.items(), key=lambda kv: kv[0]).__repr__())


def _bura_state(deal: bura.Deal) -> object:
    views = [deal.view(s) for s in range(deal.players)]
    return (
        views,
        deal.phase,
        deal.turn,
        deal.points(),
        deal.final_result,
        [a.to_json() for a in deal.history],
    )


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 4), deck=lumpy_decks(), rules=bura_rules, data=st.data())
def test_bura_fast_paths_agree_with_the_full_check(
    players: int, deck: tuple[Card, ...], rules: bura.Rules, data: st.DataObject
) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    deal = bura.Deal.start(players, deck, rng.randrange(players), rules)
    while not deal.finished:
        offered: list[Action] = []
        for seat in range(players):
            fast = deal.legal_actions(seat)
            assert len({_bura_key(a) for a in fast}) == len(fast), "an action offered twice"
            candidates = _bura_candidates(deal, seat)
            if deal.phase == DECLARE:
                # Any other action right after a take means "no declaration, draw" (D5):
                # legal_actions offers the declaration alone; the rest is checked after.
                candidates = [a for a in candidates if isinstance(a, Declare)]
            accepted = {_bura_key(a) for a in candidates if _refusal(deal.check, a) is None}
            assert {_bura_key(a) for a in fast} == accepted
            offered += fast
        before = _bura_state(deal)
        seat = rng.randrange(players)
        wrong = [a for a in _bura_candidates(deal, seat) if _refusal(deal.check, a) is not None]
        if wrong:
            bad = rng.choice(wrong)
            reason = _refusal(deal.check, bad)
            assert _refusal(deal.apply, bad) == reason
            assert _bura_state(deal) == before
        options = [a for a in offered if not (isinstance(a, Declare) and a.declare)]
        action = rng.choice(options if options and rng.random() < 0.9 else offered)
        slow = deal.copy()
        fresh = type(action)(**{f: getattr(action, f) for f in action.__slots__})
        assert fresh == action and fresh is not action
        deal.apply(action)
        slow.check(fresh)
        slow.push(fresh)
        assert _bura_state(deal) == _bura_state(slow)


@settings(max_examples=300, deadline=None)
@given(
    players=st.integers(2, 4),
    deck=lumpy_decks(),
    sizes=st.lists(st.integers(0, 3), min_size=4, max_size=4),
    trump=st.sampled_from(list(Suit)),
    rules=bura_rules,
    leader=st.integers(0, 3),
)
def test_may_stop_is_stop_refusal_saying_yes(
    players: int,
    deck: tuple[Card, ...],
    sizes: list[int],
    trump: Suit,
    rules: bura.Rules,
    leader: int,
) -> None:
    """D7/D8 "Precisely": the quick «Стоп!» test agrees with the reasons, seat by seat."""
    hands, at = [], 0
    for size in sizes[:players]:
        hands.append(list(deck[at : at + size]))
        at += size
    leader %= players
    for seat in range(players):
        expected = stop_refusal(hands, seat, leader, trump, rules) is None
        assert may_stop(hands, seat, leader, trump, rules) == expected


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(2, 4),
    deck=st.permutations(DECK).map(tuple),
    moves=st.integers(0, 30),
    noise=st.sampled_from([0.0, 0.0, 0.2]),
    seed=st.integers(0, 2**32),
)
def test_greedy_playout_plays_the_steps_policy(
    players: int, deck: tuple[Card, ...], moves: int, noise: float, seed: int
) -> None:
    rng = random.Random(seed)
    deal = Deal.start(players, deck, rng.randrange(players))
    for _ in range(moves):
        if deal.finished:
            return
        deal.push(rng.choice(deal.legal_actions()))
    if deal.finished:
        return
    world = sample_world(deal.view(deal.turn or 0), rng)
    # Card for card and draw for draw, and the same end (see test_sim.logged_playout).
    fast = logged_playout(world, lambda s: policy.playout(s, random.Random(seed), noise))
    steps = logged_playout(world, lambda s: policy.playout_steps(s, random.Random(seed), noise))
    assert fast == steps


@settings(max_examples=300, deadline=None)
@given(
    cards=st.permutations(range(36)).map(lambda d: d[:9]),
    k=st.integers(1, 3),
    size=st.integers(3, 6),
    trump=st.integers(0, 3),
    table_pts=st.integers(0, 60),
    after=st.integers(0, 2),
    players=st.integers(2, 4),
)
def test_greedy_answers_are_the_readable_ones(
    cards: tuple[int, ...],
    k: int,
    size: int,
    trump: int,
    table_pts: int,
    after: int,
    players: int,
) -> None:
    """The greedy answer's fast cases (one, two, three cards) pick what the readable loop
    over combinations() with R7 covers() picks, equal values resolved alike."""
    claim, hand = cards[:k], list(cards[k : k + max(size, k)])
    args = (hand, trump, claim, table_pts, after, players)
    assert policy._answer_options(*args) == policy._combo_options(*args)
