"""Every registered game through the one interface (``engine.game``, registry
``engine.registry``): what the bot, storage and AI rely on, over random decks and random
legal play. Burkozel, Bura and Duel (a game of the test tree, tests/support/duel) alike."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DECK, Card, shuffled_deck
from engine.errors import IllegalMoveError
from engine.registry import GAMES, game_for_record, game_named, register, unregister
from tests.support.duel.game import DUEL

decks = st.permutations(DECK).map(tuple)
NAMES = sorted([*GAMES, DUEL.name])


@pytest.fixture(autouse=True)
def duel_registered() -> Iterator[None]:
    register(DUEL)
    yield
    unregister(DUEL.name)


def cards_in(value: object) -> set[Card]:
    """Every card a value holds, however deep (dataclasses, tuples, lists, dicts)."""
    if isinstance(value, Card):
        return {value}
    if is_dataclass(value) and not isinstance(value, type):
        return set().union(*(cards_in(getattr(value, f.name)) for f in fields(value)))
    if isinstance(value, dict):
        return cards_in(list(value.items()))
    if isinstance(value, list | tuple | set | frozenset):
        return set().union(*(cards_in(v) for v in value))
    return set()


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_random_play_through_the_interface(name: str, data: st.DataObject) -> None:
    game = game_named(name)
    players = data.draw(st.integers(game.min_players, game.max_players))
    series = game.new_series(players, {}, data.draw(st.integers(0, players - 1)))
    for _ in range(data.draw(st.integers(1, 3))):
        if series.finished:
            break
        deal = series.start_deal(data.draw(decks))
        public: set[Card] = set()  # shown to every seat while in no hand (a turned trump)
        while not deal.finished:
            actors = deal.actors()
            assert actors
            hands = [set(deal.hand(seat)) for seat in range(players)]
            seen = [cards_in(deal.view(seat)) for seat in range(players)]
            public |= set.intersection(*seen) - set().union(*hands)
            for seat in range(players):
                assert hands[seat] <= seen[seat]  # a seat sees its own hand
                for other in range(players):
                    if other != seat:  # never another hand's card that was not public
                        assert not (hands[other] & seen[seat]) - public
            seat = data.draw(st.sampled_from(actors))
            action = data.draw(st.sampled_from(deal.legal_actions(seat)))
            assert game.action_from_json(game.action_to_json(action)) == action
            deal.apply(action)
        assert deal.actors() == ()
        deal.result()
        assert series.current_deal() is None
    record: dict[str, Any] = json.loads(json.dumps(game.to_record(series)))
    assert game_for_record(record) is game
    assert game.to_record(game.from_record(record)) == record
    assert game.replay_json(record) == game.replay_json(record)
    assert game.replay_json(record)["totals"] == list(series.totals)


@pytest.mark.parametrize("name", NAMES)
def test_a_refused_action_raises_and_the_deal_goes_on(name: str) -> None:
    game = game_named(name)
    series = game.new_series(2, {}, 0)
    seed = 0
    deal = series.start_deal(shuffled_deck(seed))
    while deal.finished:  # a Bura deck can be void from the deal (D9)
        seed += 1
        deal = series.start_deal(shuffled_deck(seed))
    seat = deal.actors()[0]
    other = 1 - seat
    legal = deal.legal_actions(seat)
    with pytest.raises(IllegalMoveError):
        wrong = game.action_from_json({**game.action_to_json(legal[0]), "seat": other})
        deal.apply(wrong)
    assert deal.legal_actions(seat) == legal
    views = [deal.view(s) for s in range(2)]
    held = [deal.hand(s) for s in range(2)]
    with pytest.raises(IllegalMoveError):  # out of turn: nothing changes either
        deal.apply(deal.legal_actions(seat)[0].__class__(**{**_fields(legal[0]), "seat": other}))
    assert [deal.view(s) for s in range(2)] == views and [deal.hand(s) for s in range(2)] == held
    deal.apply(legal[0])


def _fields(action: object) -> dict[str, object]:
    assert is_dataclass(action)
    return {f.name: getattr(action, f.name) for f in fields(action)}


def test_c3_burkozel_stopper_is_an_actor_through_the_interface() -> None:
    """B6/C3: the interface offers the out-of-turn lead to the молодка holder beside the
    rightful leader, as the Burkozel deal itself does."""
    from engine import parse_cards
    from engine.burkozel import Action, Rules
    from engine.burkozel.game import BurkozelDealState
    from tests.support.burkozel import after_first_trick

    deal = after_first_trick(
        [["7S", "8D", "9D", "9H"], ["6H", "7H", "10H", "AH"]], "6C", Rules(combinations="on")
    )
    state = BurkozelDealState(deal)
    assert state.actors() == (0, 1)
    stop = Action(1, parse_cards(["6H", "7H", "10H", "AH"]), stop=True)
    assert state.legal_actions(1) == [stop]
    state.apply(stop)
    assert state.actors() == (0,) and deal.leader == 1
