"""A chat's settings: the game, its rule switches (RULES.md Parts B and D) and the table
customs (turn timer, computer stand-in). Pure values, validated by the engine's rule sets.

Stored in ``Chat.rules`` as ``to_dict()`` (only what differs from the defaults); a game
records ``game_rules()`` when it is created, so later changes never touch it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from engine.errors import RuleSetError
from engine.game import RulesLike
from engine.registry import DEFAULT_GAME, GAMES, game_named, game_of_rules, stored_rules

# Turn timer in seconds; 0 is "no timer" (no auto-play, only a reminder now and then).
TIMERS = (30, 60, 90, 180, 600, 0)
STAND_INS = ("off", "easy", "normal", "hard")
# The hand inside the group (an ephemeral message only its player sees): never, when the
# player taps «🂠 My cards» (the default: it costs nothing until someone wants it, any
# bot may send it, and the private hand stays as it was), or also brought by itself at
# the player's turn once they have used it (an administrator bot only: Telegram lets
# other bots send one only within 15 s of the player's tap).
HANDS_IN_GROUP = ("ask", "turn", "off")
NO_TIMER_REMINDER = 3600.0  # seconds between gentle reminders when there is no timer


class SettingsError(ValueError):
    """A setting that cannot be: ``key`` names the polite answer, ``detail`` says why."""

    def __init__(self, key: str, detail: str = "") -> None:
        super().__init__(detail or key)
        self.key = key
        self.detail = detail


Rules = RulesLike


@dataclass(frozen=True, slots=True)
class ChatSettings:
    game: str = DEFAULT_GAME
    # Each game's switches where they differ from its base, by game name (sorted).
    changed: tuple[tuple[str, Rules], ...] = ()
    turn_timer: int | None = None  # None: the bot's configured default
    stand_in: str | None = None  # None: the bot's configured default
    hands_in_group: str | None = None  # None: HANDS_IN_GROUP[0]

    @property
    def group_hands(self) -> str:
        """Where a player's hand may be shown in the group (``HANDS_IN_GROUP``)."""
        return self.hands_in_group or HANDS_IN_GROUP[0]

    def rules(self, game: str | None = None) -> Rules:
        name = game or self.game
        return dict(self.changed).get(name) or game_named(name).rules_from_dict({})

    def with_rules(self, game: str, rules: Rules) -> ChatSettings:
        changed = {name: r for name, r in self.changed if name != game}
        if rules.to_dict():
            changed[game] = rules
        return replace(self, changed=tuple(sorted(changed.items(), key=lambda item: item[0])))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.game != DEFAULT_GAME:
            data["game"] = self.game
        for name, rules in self.changed:
            data[name] = dict(rules.to_dict())
        if self.turn_timer is not None:
            data["turn_timer"] = self.turn_timer
        if self.stand_in is not None:
            data["stand_in"] = self.stand_in
        if self.hands_in_group is not None:
            data["hands_in_group"] = self.hands_in_group
        return data

    @classmethod
    def from_dict(cls, data: object) -> ChatSettings:
        """Read stored settings; SettingsError("settings.broken", why) if they cannot be.

        A flat Burkozel rule set (what ``Chat.rules`` held before there were settings)
        is read as the Burkozel switches."""
        if not isinstance(data, Mapping):
            raise SettingsError("settings.broken", "settings must be an object")
        flat = data.get("game", DEFAULT_GAME)
        switches = set(data) - {"game"}
        if flat in GAMES and switches and switches <= set(GAMES[flat].switches):
            # A game's own rule set (``Game.rules`` form: what Chat.rules held before there
            # were settings): the switches of that game.
            data = {"game": flat, flat: {k: data[k] for k in switches}}
        known = {f.name for f in fields(cls)} - {"changed"} | set(GAMES)
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError("settings.broken", f"unknown setting {unknown[0]!r}")
        try:
            game = data.get("game", DEFAULT_GAME)
            if game not in GAMES:
                raise SettingsError("settings.broken", f"unknown game {game!r}")
            settings = cls(game=game)
            for name in GAMES:
                if name in data:
                    switches_of = data[name]
                    if not isinstance(switches_of, Mapping):
                        raise TypeError(f"{name} settings must be an object")
                    settings = settings.with_rules(name, GAMES[name].rules_from_dict(switches_of))
            return (
                settings.with_custom("turn_timer", data.get("turn_timer"))
                .with_custom("stand_in", data.get("stand_in"))
                .with_custom("hands_in_group", data.get("hands_in_group"))
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
        if game not in GAMES or name not in GAMES[game].switches:
            raise SettingsError("error.forged", f"unknown switch {name!r}")
        allowed = {str(v): v for v in GAMES[game].switches[name]}
        if value not in allowed:
            raise SettingsError("error.forged", f"{name} cannot be {value!r}")
        try:
            switches = {**self.rules(game).to_dict(), name: allowed[value]}
            return self.with_rules(game, GAMES[game].rules_from_dict(switches))
        except RuleSetError as exc:
            raise SettingsError("settings.conflict_b3", str(exc)) from None

    def with_custom(self, name: str, value: object) -> ChatSettings:
        """A table custom: ``turn_timer`` (one of TIMERS), ``stand_in`` (STAND_INS) or
        ``hands_in_group`` (HANDS_IN_GROUP); None (or "default") means the default."""
        if value is None or value == "default":
            if name not in ("turn_timer", "stand_in", "hands_in_group"):
                raise SettingsError("error.forged", f"unknown custom {name!r}")
            if name == "turn_timer":
                return replace(self, turn_timer=None)
            if name == "stand_in":
                return replace(self, stand_in=None)
            return replace(self, hands_in_group=None)
        if name == "turn_timer":
            number = int(value) if isinstance(value, str) and value.isdigit() else value
            if type(number) is not int or number not in TIMERS:
                raise SettingsError("error.forged", f"turn timer cannot be {value!r}")
            return replace(self, turn_timer=number)
        if name == "stand_in":
            if value not in STAND_INS:
                raise SettingsError("error.forged", f"stand-in cannot be {value!r}")
            return replace(self, stand_in=str(value))
        if name == "hands_in_group":
            if value not in HANDS_IN_GROUP:
                raise SettingsError("error.forged", f"hands in the group cannot be {value!r}")
            return replace(self, hands_in_group=str(value))
        raise SettingsError("error.forged", f"unknown custom {name!r}")

    def game_rules(self, game: str | None = None) -> dict[str, Any]:
        """What a new game records as ``Game.rules``: its switches as a record writes
        them, naming the game (``engine.registry.stored_rules``)."""
        name = game or self.game
        return stored_rules(name, self.rules(name).to_dict())


def load(data: object) -> tuple[ChatSettings, SettingsError | None]:
    """Stored settings, or the defaults and why the stored ones could not be read (a
    broken row must never stop /newgame)."""
    try:
        return ChatSettings.from_dict(data), None
    except SettingsError as exc:
        return ChatSettings(), exc


def rules_of_game(rules: Mapping[str, Any]) -> tuple[str, Rules]:
    """A game's recorded ``Game.rules`` read back: its game name and rule set."""
    name = game_of_rules(rules)
    if name not in GAMES:
        raise RuleSetError(f"unknown game {name!r}")
    switches = {k: v for k, v in rules.items() if k != "game"}
    return name, game_named(name).rules_from_dict(switches)


def switch_values(game: str, rules: Rules) -> dict[str, object]:
    """Every switch of ``game`` with its value in ``rules``, in rule-book order."""
    changed = rules.to_dict()
    return {name: changed.get(name, values[0]) for name, values in GAMES[game].switches.items()}


def rule_id(game: str, switch: str) -> str:
    return GAMES[game].rule_ids[switch]


def fits_seats(rules: Rules, players: int) -> None:
    """Refuse a table these rules cannot be played at (B5 pairs: exactly 4)."""
    try:
        rules.check_players(players)
    except RuleSetError as exc:
        raise SettingsError("lobby.pairs_need_four", str(exc)) from None


# --- presets (each sets the game and all its switches; the games name them) -------


def presets() -> dict[str, tuple[str, Mapping[str, object]]]:
    """Every registered game's presets, by name: the game and its switches."""
    return {p: (g.name, switches) for g in GAMES.values() for p, switches in g.presets.items()}


def apply_preset(settings: ChatSettings, name: str) -> ChatSettings:
    found = presets().get(name)
    if found is None:
        raise SettingsError("error.forged", f"unknown preset {name!r}")
    game, switches = found
    return replace(settings, game=game).with_rules(game, GAMES[game].rules_from_dict(switches))


def preset_of(settings: ChatSettings) -> str | None:
    """The preset these settings match, if any."""
    for name in presets():
        if apply_preset(settings, name) == settings:
            return name
    return None
