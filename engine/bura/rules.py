"""Bura's rule set: the Part D switches as data (RULES.md Part D, "Precisely")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from engine.errors import RuleSetError

# Every switch with its allowed values, the base value first (RULES.md Part D).
SWITCHES: dict[str, tuple[str, ...]] = {
    "same_rank_leads": ("off", "on"),  # D2
    "discards": ("closed", "open"),  # D3
    "target": ("31", "31_50"),  # D5
    "molodka": ("out_of_turn", "off"),  # D7
    "moscow": ("off", "on"),  # D8
    "series": ("penalty_12", "robber_11", "robber_21"),  # D10
    "dave": ("off", "on"),  # D11
}

# The RULES.md id of each switch.
RULE_IDS: dict[str, str] = {
    "same_rank_leads": "D2",
    "discards": "D3",
    "target": "D5",
    "molodka": "D7",
    "moscow": "D8",
    "series": "D10",
    "dave": "D11",
}

# Named choices of the switches, offered by /settings.
PRESETS: dict[str, dict[str, object]] = {
    # Part D at its base values: closed discards, молодка «Стоп!», penalties to 12.
    "classic_bura": {},
    # «Открытая бура» (D3 open), with Москва (D8) and same-rank leads (D2).
    "open_bura": {"discards": "open", "moscow": "on", "same_rank_leads": "on"},
}

# The switches in field order, for checking a rule set as it is made (a tuple made once:
# dataclasses.fields on every Rules would cost more than the rest of a short deal).
_SWITCH_ITEMS = tuple(SWITCHES.items())

HAND_SIZE = 3  # D1
MIN_PLAYERS, MAX_PLAYERS = 2, 4  # D1
DECLARE_TARGET = 31  # D5
BUST_LIMIT = 50  # D5, target 31_50: more than 50 is a false declaration
PENALTY_LIMIT = 12  # D10 penalty_12
ROBBER_TARGETS = {"robber_11": 11, "robber_21": 21}  # D10
ROBBER_MARGIN = 2  # D10


@dataclass(frozen=True, slots=True)
class Rules:
    """One choice of every Part D switch; the defaults are the base values."""

    same_rank_leads: str = "off"
    discards: str = "closed"
    target: str = "31"
    molodka: str = "out_of_turn"
    moscow: str = "off"
    series: str = "penalty_12"
    dave: str = "off"

    def __post_init__(self) -> None:
        for name, allowed in _SWITCH_ITEMS:
            value = getattr(self, name)
            if type(value) is not str or value not in allowed:
                choices = ", ".join(repr(v) for v in allowed)
                raise RuleSetError(f"rule {name!r} cannot be {value!r} (choose {choices})")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Build from a record's ``rules`` object (base values may be left out or written)."""
        if not isinstance(data, Mapping):
            raise RuleSetError("rules must be an object of switch names to values")
        unknown = sorted(set(data) - set(SWITCHES))
        if unknown:
            raise RuleSetError(f"unknown Bura rule switch {unknown[0]!r}")
        return cls(**data)

    def to_dict(self) -> dict[str, str]:
        """Only the switches that differ from the base values."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != SWITCHES[f.name][0]
        }

    def check_players(self, players: int) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RuleSetError(f"Bura is for {MIN_PLAYERS} to {MAX_PLAYERS} players")


BASE_RULES = Rules()

assert tuple(f.name for f in fields(Rules)) == tuple(SWITCHES), "a switch per field"
