"""Bura properties over random decks and random legal play (hypothesis)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bura.actions import Lead
from engine.bura.deal import Deal
from engine.bura.record import from_record, replay, to_record
from engine.bura.rules import SWITCHES, Rules
from engine.bura.series import Series
from engine.cards import DECK, Card, parse_cards
from engine.errors import IllegalMoveError
from engine.game import PUBLIC
from tests.support.bura import all_actions, assert_view_private, cards_in_play

decks = st.permutations(DECK).map(tuple)
rule_sets = st.builds(
    Rules,
    **{name: st.sampled_from(values) for name, values in SWITCHES.items() if name != "dave"},
)


def _state(deal: Deal) -> object:
    return (
        deal.phase,
        deal.turn,
        [list(h) for h in deal.hands],
        list(deal.stock),
        list(deal.plays),
        [list(p) for p in deal.piles],
        deal.stakes,
        len(deal.history),
    )


@settings(max_examples=150, deadline=None)
@given(players=st.integers(2, 4), deck=decks, rules=rule_sets, data=st.data())
def test_cards_conserved_views_private_refusals_change_nothing(
    players: int, deck: tuple[Card, ...], rules: Rules, data: st.DataObject
) -> None:
    if players == 2:
        rules = Rules(**{**rules.to_dict(), "dave": data.draw(st.sampled_from(["off", "on"]))})
    deal = Deal.start(players, deck, data.draw(st.integers(0, players - 1)), rules)
    while True:
        assert sorted(cards_in_play(deal)) == list(DECK)
        for seat in [*range(players), PUBLIC]:
            assert_view_private(deal, seat)
        if deal.finished:
            break
        actors = deal.actors()
        assert actors and all(deal.legal_actions(s) for s in actors)
        assert all(not deal.legal_actions(s) for s in range(players) if s not in actors)
        # an action of a seat that may not act now is refused and changes nothing
        idle = [s for s in range(players) if s not in actors]
        if idle and deal.hands[idle[0]]:
            before = _state(deal)
            try:
                deal.apply(Lead(idle[0], (deal.hands[idle[0]][0],)))
            except IllegalMoveError:
                pass
            else:  # pragma: no cover - would be a bug
                raise AssertionError("an idle seat's lead was accepted")
            assert _state(deal) == before
        deal.apply(data.draw(st.sampled_from(all_actions(deal))))
    result = deal.result()
    assert sum(result.points) + sum(c.points for c in deal.table_cards()) <= 120
    if result.run_out:
        assert sum(result.points) == 120


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 4), rules=rule_sets, seed=st.integers(0, 10**6), data=st.data())
def test_replay_is_deterministic_and_a_record_round_trips(
    players: int, rules: Rules, seed: int, data: st.DataObject
) -> None:
    series = Series(players, rules, seed % players)
    for _ in range(data.draw(st.integers(1, 4))):
        if series.finished:
            break
        deal = series.start_deal(data.draw(decks))
        steps = data.draw(st.integers(0, 60))
        while not deal.finished and steps:
            deal.apply(data.draw(st.sampled_from(all_actions(deal))))
            steps -= 1
        if not deal.finished:
            break
    record = json.loads(json.dumps(to_record(series)))
    assert to_record(from_record(record)) == record
    first, second = replay(record), replay(record)
    assert first == second
    assert first.totals == series.totals


def test_a_view_never_shows_another_seats_closed_discard_by_example() -> None:
    deal = Deal.start(3, parse_cards(c.code() for c in DECK), 0, Rules(molodka="off"))
    while not deal.finished:
        for seat in (0, 1, 2, PUBLIC):
            assert_view_private(deal, seat)
        deal.apply(all_actions(deal)[-1])
