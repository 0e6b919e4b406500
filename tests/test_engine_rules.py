"""The rule set: Part B switches as data, base values, unimplemented values refused."""

from __future__ import annotations

import pytest

from engine import BASE_RULES, Deal, RuleSet, RuleSetError, Series, shuffled_deck


def test_base_values() -> None:
    assert RuleSet() == BASE_RULES
    assert BASE_RULES.discards == "open"
    assert BASE_RULES.max_lead == 3
    assert BASE_RULES.series_end == "first_to_12"
    assert BASE_RULES.scoring == "penalty"
    assert BASE_RULES.teams == "none"
    assert BASE_RULES.combinations == "off"
    assert BASE_RULES.unsupported() == []


def test_base_to_dict_is_empty_and_round_trips() -> None:
    assert BASE_RULES.to_dict() == {}
    assert RuleSet.from_dict({}) == BASE_RULES
    rules = RuleSet(discards="closed", max_lead=4)
    assert rules.to_dict() == {"discards": "closed", "max_lead": 4}
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert RuleSet.from_dict({"discards": "open"}).to_dict() == {}


def test_unknown_switch_rejected() -> None:
    with pytest.raises(RuleSetError, match="unknown rule switch 'trumps'"):
        RuleSet.from_dict({"trumps": "on"})


@pytest.mark.parametrize(
    "data",
    [{"discards": "half"}, {"max_lead": 5}, {"max_lead": "3"}, {"max_lead": True}, {"teams": 2}],
)
def test_bad_value_rejected(data: dict[str, object]) -> None:
    name = next(iter(data))
    with pytest.raises(RuleSetError, match=f"rule '{name}' cannot be"):
        RuleSet.from_dict(data)


def test_rules_must_be_an_object() -> None:
    with pytest.raises(RuleSetError, match="object"):
        RuleSet.from_dict(["discards"])  # type: ignore[arg-type]


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
def test_unimplemented_value_is_refused_when_playing(switch: str, value: object) -> None:
    rules = RuleSet.from_dict({switch: value})  # a valid choice of a switch...
    assert rules.unsupported() == [f"{switch}={value!r}"]
    message = f"{switch}={value!r} is not implemented yet"
    with pytest.raises(RuleSetError, match=message):
        Deal.start(4, shuffled_deck(1), 0, rules)  # ...but never silently the base rule
    with pytest.raises(RuleSetError, match=message):
        Series(4, rules)


def test_threshold() -> None:
    assert RuleSet.threshold(2) == 31
    assert RuleSet.threshold(3) == 21
    assert RuleSet.threshold(4) == 21
