"""The rule set: Part B house-rule switches as data (RULES.md Part B)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from engine.errors import RuleSetError

# Every switch with its allowed values, the base value first (RULES.md Part B).
SWITCHES: dict[str, tuple[object, ...]] = {
    "discards": ("open", "closed"),  # B1
    "max_lead": (3, 4),  # B2
    "series_end": ("first_to_12", "elimination"),  # B3
    "scoring": ("penalty", "winner_takes"),  # B4
    "teams": ("none", "pairs"),  # B5
    "combinations": ("off", "on"),  # B6
}

# Switch values the engine plays; any other allowed value would be refused loudly
# rather than silently played as the base rule (today: every value).
IMPLEMENTED: dict[str, tuple[object, ...]] = dict(SWITCHES)

# The RULES.md id of each switch.
RULE_IDS: dict[str, str] = {
    "discards": "B1",
    "max_lead": "B2",
    "series_end": "B3",
    "scoring": "B4",
    "teams": "B5",
    "combinations": "B6",
}

# Named choices of the switches, offered by /settings.
PRESETS: dict[str, dict[str, object]] = {
    # Part A as written: every switch at its base value.
    "classic_burkozel": {},
    # How it is often played at home: closed discards (B1), leads of four (B2) and the
    # combinations (B6, Part C).
    "home_burkozel": {"discards": "closed", "max_lead": 4, "combinations": "on"},
    # Two pairs of partners (B5) with the combinations.
    "pairs": {"teams": "pairs", "combinations": "on"},
}

HAND_SIZE = 4  # R3
SERIES_LIMIT = 12  # R14
MIN_PLAYERS, MAX_PLAYERS = 2, 4  # R2


@dataclass(frozen=True, slots=True)
class Rules:
    """One choice of every Part B switch; the defaults are the base game (Part A)."""

    discards: str = "open"
    max_lead: int = 3
    series_end: str = "first_to_12"
    scoring: str = "penalty"
    teams: str = "none"
    combinations: str = "off"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            allowed = SWITCHES[f.name]
            if value not in allowed or type(value) is not type(allowed[0]):
                choices = ", ".join(repr(v) for v in allowed)
                raise RuleSetError(f"rule {f.name!r} cannot be {value!r} (choose {choices})")
        # B3 Precisely: elimination needs penalty scoring and no teams.
        if self.series_end == "elimination" and self.scoring != "penalty":
            raise RuleSetError("series_end 'elimination' needs scoring 'penalty' (B3)")
        if self.series_end == "elimination" and self.teams != "none":
            raise RuleSetError("series_end 'elimination' cannot be played with teams 'pairs' (B3)")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Build from a record's ``rules`` object: switches that differ from the base."""
        if not isinstance(data, Mapping):
            raise RuleSetError("rules must be an object of switch names to values")
        unknown = sorted(set(data) - set(SWITCHES))
        if unknown:
            raise RuleSetError(f"unknown rule switch {unknown[0]!r}")
        return cls(**data)

    @classmethod
    def from_options(cls, options: Sequence[str]) -> Rules:
        """Build from command-line ``name=value`` options, e.g. ``combinations=on``."""
        data: dict[str, object] = {}
        for option in options:
            name, sep, value = option.partition("=")
            if not sep:
                raise RuleSetError(f"rule option {option!r} must be name=value")
            data[name] = int(value) if name == "max_lead" and value.isdigit() else value
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, object]:
        """Only the switches that differ from the base game (so the base game is ``{}``)."""
        base = Rules()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        }

    def unsupported(self) -> list[str]:
        """Descriptions of the switch values this engine does not play yet."""
        return [
            f"{name}={getattr(self, name)!r}"
            for name in SWITCHES
            if getattr(self, name) not in IMPLEMENTED[name]
        ]

    def require_supported(self) -> None:
        missing = self.unsupported()
        if missing:
            raise RuleSetError(f"rule {', '.join(missing)} is not implemented yet")

    def check_players(self, players: int) -> None:
        """Refuse a table size these rules cannot be played with (B5: exactly 4)."""
        if self.teams == "pairs" and players != 4:
            raise RuleSetError(f"teams 'pairs' needs exactly 4 players, not {players} (B5)")

    @staticmethod
    def threshold(players: int) -> int:
        """R13: the score below which a loser pays 4 instead of 2."""
        return 31 if players == 2 else 21


BASE_RULES = Rules()
