"""The fast paths of the engines agree with the readable rules (issue 30).

The engines hand out interned moves, remember what they handed out, and ``apply`` plays
such a move without checking it again; R7 is matched on bit masks; the greedy playout
runs inlined on tables. Here every one of those is held against the readable version
on random positions of both games under every rule switch:

- the legal set is exactly the set of moves the full check (``check``) accepts, built
  from scratch for every subset of the hand (R6/R7/B2/C3/C4, D2/D5–D8/D11);
- a move played through the fast path leaves the very state the full check and
  ``push`` of an equal, freshly built move leave (views, history and its JSON, result);
- a refused move is refused with the same reason on both paths and changes nothing;
- ``covers`` is the R7 one-to-one pairing tried by permutations;
- Burkozel's tables (one-card answer rows, lead picks by suit pattern, R7 pairing
  tables) give the readable list of legal moves in its order;
- Bura's tables (legal actions written out for a hand of three, R5 beat masks, one-
  and two-card plays, pile cards per trick, the draw, the glance ``apply`` takes at a
  common move) give what the readable rules give, in the same order;
- ``policy.playout`` plays the moves ``policy.playout_steps`` plays, card for card, and
  the greedy answer's fast cases choose what the loop over every set of cards chooses.
"""

from __future__ import annotations

import random
from itertools import combinations, permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import DECK, Card, GameOverError, IllegalMoveError, Suit
from engine.bura.actions import (
    Action,
    Answer,
    Dave,
    DaveReply,
    Declare,
    Lead,
    PileCard,
    Show,
    TablePlay,
)
from engine.bura.combinations import is_small_moscow, may_stop, show_kind, stop_refusal
from engine.bura.deal import ANSWER, DAVE, DECLARE, LEAD, OVER, BuraDeal
from engine.bura.rules import SWITCHES, BuraRules
from engine.burkozel import Deal, Move, RuleSet, TrickResult
from engine.burkozel.ai import policy
from engine.burkozel.ai.sim import sample_world
from engine.burkozel.combinations import is_lead_combination
from engine.burkozel.combinations import show_kind as burkozel_show_kind
from engine.tricks import covers, draw_up
from tests.engine.burkozel.ai.test_sim import logged_playout
from tests.engine.burkozel.test_house_properties import lumpy_decks, table_rules


def readable_covers(answer: tuple[Card, ...], claim: tuple[Card, ...], trump: Suit) -> bool:
    """R7 as the rule reads: some ordering of the answer beats the claim card for card."""
    return len(answer) == len(claim) and any(
        all(a.beats(c, trump) for a, c in zip(order, claim, strict=True))
        for order in permutations(answer)
    )


@settings(max_examples=300, deadline=None)
@given(
    cards=st.permutations(DECK).map(lambda d: d[:8]),
    k=st.integers(1, 4),
    trump=st.sampled_from(list(Suit)),
)
def test_covers_is_the_r7_pairing(cards: tuple[Card, ...], k: int, trump: Suit) -> None:
    answer, claim = cards[:k], cards[4 : 4 + k]
    assert covers(answer, claim, trump) == readable_covers(answer, claim, trump)
    assert not covers(answer[:-1], claim, trump)


def _subsets(hand: tuple[Card, ...]) -> list[tuple[Card, ...]]:
    return [c for size in range(1, len(hand) + 1) for c in combinations(hand, size)]


def _key(move: Move) -> tuple[object, ...]:
    return (move.seat, frozenset(move.cards), move.beat, move.show, move.stop)


def _burkozel_candidates(deal: Deal, seat: int) -> list[Move]:
    """Every move ``seat`` could try, built fresh (never one the engine handed out)."""
    moves = [Move(seat, (), show=kind) for kind in ("bura", "moscow")]
    for cards in _subsets(deal.hand(seat)):
        moves += [
            Move(seat, cards),
            Move(seat, cards, True),
            Move(seat, cards, False),
            Move(seat, cards, stop=True),
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
    table: tuple[int, RuleSet], deck: tuple[Card, ...], data: st.DataObject
) -> None:
    players, rules = table
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    deal = Deal.start(players, deck, rng.randrange(players), rules)
    while not deal.finished:
        offered: list[Move] = []
        for seat in range(players):
            fast = deal.legal_moves(seat)
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
        fresh = Move.from_json(move.to_json())
        assert fresh == move and fresh is not move
        fast_trick = deal.apply(move)
        slow.check(fresh)
        slow_trick = slow.push(fresh)
        assert fast_trick == slow_trick
        assert _burkozel_state(deal) == _burkozel_state(slow)


def _bura_candidates(deal: BuraDeal, seat: int) -> list[Action]:
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


def _bura_state(deal: BuraDeal) -> object:
    views = [deal.view(s) for s in range(deal.players)]
    return (
        views,
        deal.phase,
        deal.turn,
        deal.points(),
        deal.result_,
        [a.to_json() for a in deal.history],
    )


bura_rules = st.builds(
    BuraRules, **{name: st.sampled_from(values) for name, values in SWITCHES.items()}
)


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 4), deck=lumpy_decks(), rules=bura_rules, data=st.data())
def test_bura_fast_paths_agree_with_the_full_check(
    players: int, deck: tuple[Card, ...], rules: BuraRules, data: st.DataObject
) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    deal = BuraDeal.start(players, deck, rng.randrange(players), rules)
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


def _readable_bura_actions(deal: BuraDeal, seat: int) -> list[Action]:
    """``legal_actions`` as the rules read (D2, D5-D8, D11, R7), in the order it has
    always had: shows, даве, one-card leads in hand order, then group leads by size in
    ``combinations`` order, then малая Москва; answers as discard, then beat."""
    phase, hands, rules, trump = deal.phase, deal.hands, deal.rules, deal.trump
    if phase == OVER or not 0 <= seat < deal.players:
        return []
    hand = list(hands[seat])
    if phase == DECLARE:
        return [Declare(seat, True), Declare(seat, False)] if seat == deal.turn else []
    if phase == DAVE:
        return [DaveReply(seat, True), DaveReply(seat, False)] if seat == deal.turn else []
    kind = show_kind(hand, trump, rules) if len(hand) == 3 else None
    actions: list[Action] = [Show(seat, kind)] if kind else []
    if phase == ANSWER:
        if seat != deal.turn:
            return []
        for combo in combinations(hand, len(deal.claim)):
            actions.append(Answer(seat, combo, False))
            if readable_covers(combo, deal.claim, trump):
                actions.append(Answer(seat, combo, True))
        return actions
    assert phase == LEAD
    if seat != deal.leader:
        if stop_refusal(hands, seat, deal.leader, trump, rules) is None:
            return [Lead(seat, tuple(hand), True)]
        return []
    if rules.dave == "on" and deal.players == 2 and deal.last_dave_by != seat:
        actions.append(Dave(seat))
    limit = min([3] + [len(h) for s, h in enumerate(hands) if s != seat])
    actions += [Lead(seat, (card,)) for card in hand]
    for size in range(2, min(limit, len(hand)) + 1):
        for combo in combinations(hand, size):
            one_suit = len({c.suit for c in combo}) == 1
            one_rank = rules.same_rank_leads == "on" and len({c.rank for c in combo}) == 1
            if one_suit or one_rank:
                actions.append(Lead(seat, combo))
    whole = Lead(seat, tuple(hand))  # (three sixes under same_rank_leads: offered once)
    small_moscow = rules.moscow == "on" and is_small_moscow(hand, trump, rules)
    if limit >= 3 and small_moscow and whole not in actions:
        actions.append(whole)
    return actions


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
    rules: BuraRules,
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


def _readable_actors(deal: BuraDeal) -> tuple[int, ...]:
    if deal.phase == OVER:
        return ()
    if deal.phase != LEAD:
        assert deal.turn is not None
        return (deal.turn,)
    hands, leader = deal.hands, deal.leader
    stoppers = [
        s
        for s in range(deal.players)
        if s != leader and stop_refusal(hands, s, leader, deal.trump, deal.rules) is None
    ]
    return (leader, *stoppers)


def _readable_push(deal: BuraDeal, action: Action) -> object:
    """What a move does to the table, the piles, the hands and the stock as the rules
    read (R9, R10, D3, D4), to hold ``push`` against: the state it must leave."""
    players, rules = deal.players, deal.rules
    hands = [list(h) for h in deal.hands]
    stock = list(deal.stock)
    plays = list(deal.plays)
    piles = [list(p) for p in deal.piles]
    drawn_by = deal.trump_drawn_by
    leader, trick = deal.leader, deal.trick_number
    if deal.phase == DECLARE and not (isinstance(action, Declare) and action.declare):
        order = [(leader + i) % players for i in range(players)]
        drawn = draw_up(stock, hands, order, 3, deal.trump_card)
        drawn_by = drawn if drawn is not None else drawn_by
    if isinstance(action, Lead | Answer):
        beat = action.beat if isinstance(action, Answer) else None
        stop = isinstance(action, Lead) and action.stop
        closed = beat is False and rules.discards == "closed"
        plays.append(TablePlay(action.seat, action.cards, beat, stop, closed))
        hands[action.seat] = [c for c in hands[action.seat] if c not in action.cards]
        if isinstance(action, Answer) and (action.seat + 1) % players == plays[0].seat:
            claimant = max((p for p in plays if p.beat is not False), key=plays.index).seat
            piles[claimant] += [
                PileCard(c, p.seat, p.closed, trick) for p in plays for c in p.cards
            ]
            plays = []
    return hands, stock, plays, piles, drawn_by


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 4), deck=lumpy_decks(), rules=bura_rules, data=st.data())
def test_bura_tables_agree_with_the_readable_rules(
    players: int, deck: tuple[Card, ...], rules: BuraRules, data: st.DataObject
) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    deal = BuraDeal.start(players, deck, rng.randrange(players), rules)
    while not deal.finished:
        assert deal.actors() == _readable_actors(deal)
        offered: list[Action] = []
        for seat in range(-1, players + 1):
            fast = deal.legal_actions(seat)
            assert fast == _readable_bura_actions(deal, seat)
            offered += fast
            if 0 <= seat < players:
                for action in [*fast, *_bura_candidates(deal, seat)]:
                    # apply's glance never lets through what check refuses.
                    if deal._plainly_legal(action):
                        assert _refusal(deal.check, action) is None, action
        options = [a for a in offered if not (isinstance(a, Declare) and a.declare)]
        action = rng.choice(options if options and rng.random() < 0.9 else offered)
        expected = _readable_push(deal, action)
        deal.apply(action)
        if deal.finished:
            break
        actual = (
            [list(h) for h in deal.hands],
            list(deal.stock),
            list(deal.plays),
            [list(p) for p in deal.piles],
            deal.trump_drawn_by,
        )
        assert actual == expected


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
        deal.push(rng.choice(deal.legal_moves()))
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


def readable_legal_moves(deal: Deal, seat: int) -> list[Move]:
    """Burkozel's legal moves as the rules read, in the order the engine hands them out
    (the computer players break ties by it): a show (C1/C2); then a lead's single cards
    in hand order, its one-suit groups (R6, B2) in ``combinations`` order and a whole
    molodka or четыре лба (C3/C4); or every answer (R7) in ``combinations`` order, each
    a discard and then a beat if it covers; an out-of-turn lead for the stopper (C3)."""
    if deal.turn is None:
        return []
    hand = deal.hand(seat)
    if seat != deal.turn:
        return [Move(seat, hand, stop=True)] if seat == deal.stopper() else []
    moves = []
    if deal.combinations_count():
        kind = burkozel_show_kind(hand, deal.trump)
        if kind is not None:
            moves.append(Move(seat, (), show=kind))
    if not deal.table:
        cap = 4 if deal.rules.max_lead == 4 and deal.trick_number >= 1 else 3
        others = [len(deal.hand(s)) for s in deal.seats_in if s != seat]
        limit = min([cap, *others])
        moves += [Move(seat, (c,)) for c in hand]
        for size in range(2, limit + 1):
            moves += [
                Move(seat, combo)
                for combo in combinations(hand, size)
                if len({c.suit for c in combo}) == 1
            ]
        if (
            deal.combinations_count()
            and is_lead_combination(hand, deal.trump)
            and (limit < 4 or len({c.suit for c in hand}) > 1)
        ):
            moves.append(Move(seat, hand))
        return moves
    claimant = deal.claimant
    claim = [p.cards for p in deal.table if p.seat == claimant and p.declared_beat is not False]
    for combo in combinations(hand, len(claim[-1])):
        moves.append(Move(seat, combo, False))
        if readable_covers(combo, claim[-1], deal.trump):
            moves.append(Move(seat, combo, True))
    return moves


@settings(max_examples=40, deadline=None)
@given(table=table_rules(), deck=lumpy_decks(), data=st.data())
def test_burkozel_legal_moves_in_the_readable_order(
    table: tuple[int, RuleSet], deck: tuple[Card, ...], data: st.DataObject
) -> None:
    """The tables behind legal_moves (one-card answer rows, lead picks by suit pattern,
    R7 pairing tables) give the readable list in its order; a trick's result is the
    value its constructor builds; hands keep their order (dealt, then drawn)."""
    players, rules = table
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    seats_in = None
    if players > 2 and rules.teams == "none" and rng.random() < 0.3:
        seats_in = sorted(rng.sample(range(players), rng.randint(2, players)))
    dealer = rng.choice(seats_in or range(players))
    deal = Deal.start(players, deck, dealer, rules, seats_in=seats_in)
    # R3: dealt one at a time from the seat after the dealer, among the seats in.
    active = seats_in or list(range(players))
    first = active.index(dealer) + 1
    for j, s in enumerate(active[first:] + active[:first]):
        assert deal.hand(s) == deck[j : len(active) * 4 : len(active)]
    while not deal.finished:
        offered = []
        for seat in range(players):
            fast = deal.legal_moves(seat)
            assert fast == readable_legal_moves(deal, seat)
            offered += fast
        move = rng.choice(offered)
        hand = deal.hand(move.seat)
        stock = deal.stock_size
        trick = deal.apply(move)
        kept = tuple(c for c in hand if c not in move.cards)
        assert deal.hand(move.seat)[: len(kept)] == kept
        if trick is None:
            assert len(deal.hand(move.seat)) == len(kept)
        if trick is not None:
            assert type(trick) is TrickResult
            assert trick == TrickResult(trick.winner, trick.plays, trick.points)
            assert trick.points == sum(c.points for p in trick.plays for c in p.cards)
            assert deal.stock_size <= stock
