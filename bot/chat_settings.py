"""A chat's settings: the game, its rule switches (RULES.md Parts B and D) and the table
customs (turn timer, computer stand-in). Pure values, validated by the engine's rule sets.

Stored in ``Chat.rules`` as ``to_dict()`` (only what differs from the defaults); a game
records ``game_rules()`` when it is created, so later changes never touch it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from engine.bura import BASE_BURA_RULES, BuraRules
from engine.bura.rules import SWITCHES as BURA_SWITCHES
from engine.burkozel import BASE_RULES, RuleSet
from engine.burkozel.rules import SWITCHES as BURKOZEL_SWITCHES
from engine.errors import RuleSetError

GAMES = ("burkozel", "bura")
SWITCHES: dict[str, dict[str, tuple[object, ...]]] = {
    "burkozel": dict(BURKOZEL_SWITCHES),
    "bura": dict(BURA_SWITCHES),
}
# Rule ids (RULES.md) of each switch, shown next to it and in /rules.
RULE_IDS = {
    "burkozel": {
        "discards": "B1",
        "max_lead": "B2",
        "series_end": "B3",
        "scoring": "B4",
        "teams": "B5",
        "combinations": "B6",
    },
    "bura": {
        "same_rank_leads": "D2",
        "discards": "D3",
        "target": "D5",
        "molodka": "D7",
        "moscow": "D8",
        "series": "D10",
        "dave": "D11",
    },
}
# Turn timer in seconds; 0 is "no timer" (no auto-play, only a reminder now and then).
TIMERS = (30, 60, 90, 180, 600, 0)
STAND_INS = ("off", "easy", "normal", "hard")
NO_TIMER_REMINDER = 3600.0  # seconds between gentle reminders when there is no timer


class SettingsError(ValueError):
    """A setting that cannot be: ``key`` names the polite answer, ``detail`` says why."""

    def __init__(self, key: str, detail: str = "") -> None:
        super().__init__(detail or key)
        self.key = key
        self.detail = detail


Rules = RuleSet | BuraRules


@dataclass(frozen=True, slots=True)
class ChatSettings:
    game: str = "burkozel"
    burkozel: RuleSet = BASE_RULES
    bura: BuraRules = BASE_BURA_RULES
    turn_timer: int | None = None  # None: the bot's configured default
    stand_in: str | None = None  # None: the bot's configured default

    def rules(self, game: str | None = None) -> Rules:
        return self.bura if (game or self.game) == "bura" else self.burkozel

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.game != "burkozel":
            data["game"] = self.game
        if self.burkozel.to_dict():
            data["burkozel"] = self.burkozel.to_dict()
        if self.bura.to_dict():
            data["bura"] = self.bura.to_dict()
        if self.turn_timer is not None:
            data["turn_timer"] = self.turn_timer
        if self.stand_in is not None:
            data["stand_in"] = self.stand_in
        return data

    @classmethod
    def from_dict(cls, data: object) -> ChatSettings:
        """Read stored settings; SettingsError("settings.broken", why) if they cannot be.

        A flat Burkozel rule set (what ``Chat.rules`` held before there were settings)
        is read as the Burkozel switches."""
        if not isinstance(data, Mapping):
            raise SettingsError("settings.broken", "settings must be an object")
        known = {f.name for f in fields(cls)}
        flat = data.get("game", "burkozel")
        switches = set(data) - {"game"}
        if flat in GAMES and switches and switches <= set(SWITCHES[flat]):
            # A game's own rule set (``Game.rules`` form: what Chat.rules held before there
            # were settings): the switches of that game.
            data = {"game": flat, flat: {k: data[k] for k in switches}}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError("settings.broken", f"unknown setting {unknown[0]!r}")
        try:
            game = data.get("game", "burkozel")
            if game not in GAMES:
                raise SettingsError("settings.broken", f"unknown game {game!r}")
            settings = cls(
                game=game,
                burkozel=RuleSet.from_dict(data.get("burkozel", {})),
                bura=BuraRules.from_dict(data.get("bura", {})),
            )
            return settings.with_custom("turn_timer", data.get("turn_timer")).with_custom(
                "stand_in", data.get("stand_in")
            )
        except SettingsError as exc:
            raise SettingsError("settings.broken", exc.detail) from None
        except (RuleSetError, TypeError) as exc:
            raise SettingsError("settings.broken", str(exc)) from None

    def with_game(self, game: str) -> ChatSettings:
        if game not in GAMES:
            raise SettingsError("error.forged", f"unknown game {game!r}")
        return replace(self, game=game)

    def with_switch(self, game: str, name: str, value: str) -> ChatSettings:
        """One switch changed; ``value`` as a button carries it (text). Refused when the
        switch or value does not exist, or the rules would not fit together (B3)."""
        if game not in GAMES or name not in SWITCHES[game]:
            raise SettingsError("error.forged", f"unknown switch {name!r}")
        allowed = {str(v): v for v in SWITCHES[game][name]}
        if value not in allowed:
            raise SettingsError("error.forged", f"{name} cannot be {value!r}")
        try:
            changed: dict[str, Any] = {name: allowed[value]}
            if game == "bura":
                return replace(self, bura=replace(self.bura, **changed))
            return replace(self, burkozel=replace(self.burkozel, **changed))
        except RuleSetError as exc:
            raise SettingsError("settings.conflict_b3", str(exc)) from None

    def with_custom(self, name: str, value: object) -> ChatSettings:
        """A table custom: ``turn_timer`` (one of TIMERS) or ``stand_in`` (STAND_INS);
        None (or "default") means the bot's default."""
        if value is None or value == "default":
            if name not in ("turn_timer", "stand_in"):
                raise SettingsError("error.forged", f"unknown custom {name!r}")
            return (
                replace(self, turn_timer=None)
                if name == "turn_timer"
                else replace(self, stand_in=None)
            )
        if name == "turn_timer":
            number = int(value) if isinstance(value, str) and value.isdigit() else value
            if type(number) is not int or number not in TIMERS:
                raise SettingsError("error.forged", f"turn timer cannot be {value!r}")
            return replace(self, turn_timer=number)
        if name == "stand_in":
            if value not in STAND_INS:
                raise SettingsError("error.forged", f"stand-in cannot be {value!r}")
            return replace(self, stand_in=str(value))
        raise SettingsError("error.forged", f"unknown custom {name!r}")

    def game_rules(self, game: str | None = None) -> dict[str, Any]:
        """What a new game records as ``Game.rules``: Burkozel's switches as a record
        writes them, Bura's with ``"game": "bura"`` (stats.summary.game_of)."""
        if (game or self.game) == "bura":
            return {"game": "bura", **self.bura.to_dict()}
        return self.burkozel.to_dict()


def load(data: object) -> tuple[ChatSettings, SettingsError | None]:
    """Stored settings, or the defaults and why the stored ones could not be read (a
    broken row must never stop /newgame)."""
    try:
        return ChatSettings.from_dict(data), None
    except SettingsError as exc:
        return ChatSettings(), exc


def rules_of_game(rules: Mapping[str, Any]) -> tuple[str, Rules]:
    """A game's recorded ``Game.rules`` read back: its game name and rule set."""
    if rules.get("game") == "bura":
        return "bura", BuraRules.from_dict({k: v for k, v in rules.items() if k != "game"})
    return "burkozel", RuleSet.from_dict({k: v for k, v in rules.items() if k != "game"})


def differences(rules: Rules) -> dict[str, object]:
    """The switches that differ from the game's base, in rule-book order."""
    return dict(rules.to_dict())


def game_name(rules: Rules) -> str:
    return "bura" if isinstance(rules, BuraRules) else "burkozel"


def fits_seats(rules: Rules, players: int) -> None:
    """Refuse a table these rules cannot be played at (B5 pairs: exactly 4)."""
    try:
        rules.check_players(players)
    except RuleSetError as exc:
        raise SettingsError("lobby.pairs_need_four", str(exc)) from None


# --- presets (RULES.md values; each sets the game and all its switches) -------------

PRESETS: dict[str, tuple[str, dict[str, object]]] = {
    # Part A as written: every switch at its base value.
    "classic_burkozel": ("burkozel", {}),
    # How it is often played at home: closed discards (B1), leads of four (B2) and the
    # combinations (B6, Part C).
    "home_burkozel": ("burkozel", {"discards": "closed", "max_lead": 4, "combinations": "on"}),
    # Two pairs of partners (B5) with the combinations.
    "pairs": ("burkozel", {"teams": "pairs", "combinations": "on"}),
    # Part D at its base values: closed discards, молодка «Стоп!», penalties to 12.
    "classic_bura": ("bura", {}),
    # «Открытая бура» (D3 open), with Москва (D8) and same-rank leads (D2).
    "open_bura": ("bura", {"discards": "open", "moscow": "on", "same_rank_leads": "on"}),
}


def apply_preset(settings: ChatSettings, name: str) -> ChatSettings:
    if name not in PRESETS:
        raise SettingsError("error.forged", f"unknown preset {name!r}")
    game, switches = PRESETS[name]
    if game == "bura":
        return replace(settings, game=game, bura=BuraRules.from_dict(switches))
    return replace(settings, game=game, burkozel=RuleSet.from_dict(switches))


def preset_of(settings: ChatSettings) -> str | None:
    """The preset these settings match, if any."""
    for name in PRESETS:
        if apply_preset(settings, name) == settings:
            return name
    return None
