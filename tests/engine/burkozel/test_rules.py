"""The rule set: Part B switches as data, base values, impossible mixes refused."""

from __future__ import annotations

import pytest

from engine import RuleSetError, shuffled_deck
from engine.burkozel import BASE_RULES, Deal, Rules, Series


def test_base_values() -> None:
    assert Rules() == BASE_RULES
    assert BASE_RULES.discards == "open"
    assert BASE_RULES.max_lead == 3
    assert BASE_RULES.series_end == "first_to_12"
    assert BASE_RULES.scoring == "penalty"
    assert BASE_RULES.teams == "none"
    assert BASE_RULES.combinations == "off"
    assert BASE_RULES.unsupported() == []


def test_base_to_dict_is_empty_and_round_trips() -> None:
    assert BASE_RULES.to_dict() == {}
    assert Rules.from_dict({}) == BASE_RULES
    rules = Rules(discards="closed", max_lead=4)
    assert rules.to_dict() == {"discards": "closed", "max_lead": 4}
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict({"discards": "open"}).to_dict() == {}


def test_unknown_switch_rejected() -> None:
    with pytest.raises(RuleSetError, match="unknown rule switch 'trumps'"):
        Rules.from_dict({"trumps": "on"})


@pytest.mark.parametrize(
    "data",
    [{"discards": "half"}, {"max_lead": 5}, {"max_lead": "3"}, {"max_lead": True}, {"teams": 2}],
)
def test_bad_value_rejected(data: dict[str, object]) -> None:
    name = next(iter(data))
    with pytest.raises(RuleSetError, match=f"rule '{name}' cannot be"):
        Rules.from_dict(data)


def test_rules_must_be_an_object() -> None:
    with pytest.raises(RuleSetError, match="object"):
        Rules.from_dict(["discards"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "switch, value",
    [
        ("discards", "closed"),
        ("max_lead", 4),
        ("series_end", "elimination"),
        ("scoring", "winner_takes"),
        ("teams", "pairs"),
        ("combinations", "on"),
    ],
)
def test_every_switch_value_is_played(switch: str, value: object) -> None:
    rules = Rules.from_dict({switch: value})
    assert rules.unsupported() == []
    deal = Deal.start(4, shuffled_deck(1), 0, rules)
    assert deal.rules == rules and Series(4, rules).rules == rules


@pytest.mark.parametrize(
    "data, message",
    [
        ({"series_end": "elimination", "teams": "pairs"}, "cannot be played with teams"),
        ({"series_end": "elimination", "scoring": "winner_takes"}, "needs scoring 'penalty'"),
    ],
)
def test_b3_needs_penalty_scoring_and_no_teams(data: dict[str, object], message: str) -> None:
    with pytest.raises(RuleSetError, match=message):
        Rules.from_dict(data)


@pytest.mark.parametrize("players", [2, 3])
def test_b5_pairs_need_four_players(players: int) -> None:
    rules = Rules(teams="pairs")
    with pytest.raises(RuleSetError, match="needs exactly 4 players"):
        Series(players, rules)
    with pytest.raises(RuleSetError, match="needs exactly 4 players"):
        Deal.start(players, shuffled_deck(1), 0, rules)


def test_threshold() -> None:
    assert Rules.threshold(2) == 31
    assert Rules.threshold(3) == 21
    assert Rules.threshold(4) == 21
