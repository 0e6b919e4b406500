"""Both games through the one interface (``engine.game``, registry ``engine.registry``):
what the bot, storage and AI rely on, over random decks and random legal play."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DECK, shuffled_deck
from engine.errors import IllegalMoveError
from engine.registry import GAMES, game_for_record, game_named

decks = st.permutations(DECK).map(tuple)


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 4), data=st.data())
def test_random_play_through_the_interface(name: str, players: int, data: st.DataObject) -> None:
    game = game_named(name)
    series = game.new_series(players, {}, data.draw(st.integers(0, players - 1)))
    for _ in range(data.draw(st.integers(1, 3))):
        if series.finished:
            break
        deal = series.start_deal(data.draw(decks))
        while not deal.finished:
            actors = deal.actors()
            assert actors
            for seat in range(players):
                deal.view(seat)
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


@pytest.mark.parametrize("name", sorted(GAMES))
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
    deal.apply(legal[0])


def test_c3_burkozel_stopper_is_an_actor_through_the_interface() -> None:
    """B6/C3: the interface offers the out-of-turn lead to the молодка holder beside the
    rightful leader, as the Burkozel deal itself does."""
    from engine import parse_cards
    from engine.burkozel import Move, RuleSet
    from engine.burkozel.game import BurkozelDealState
    from tests.support.burkozel import after_first_trick

    deal = after_first_trick(
        [["7S", "8D", "9D", "9H"], ["6H", "7H", "10H", "AH"]], "6C", RuleSet(combinations="on")
    )
    state = BurkozelDealState(deal)
    assert state.actors() == (0, 1)
    stop = Move(1, parse_cards(["6H", "7H", "10H", "AH"]), stop=True)
    assert state.legal_actions(1) == [stop]
    state.apply(stop)
    assert state.actors() == (0,) and deal.leader == 1
