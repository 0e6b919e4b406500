"""The /settings menu, the lobby's rules line and /rules: texts and buttons (pure).

One menu serves the chat's defaults (``game`` 0 in its buttons) and a lobby's own rules
(the lobby's game id; table customs are the chat's, so they are shown only there)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.chat_settings import (
    HANDS_IN_GROUP,
    STAND_INS,
    TIMERS,
    ChatSettings,
    Rules,
    preset_of,
    presets,
    rule_id,
    rules_of_game,
    switch_values,
)
from bot.i18n import LANGUAGES, Html, Texts, texts
from bot.views.callbacks import SettingsCb
from bot.views.render import Keyboard, button, keyboard
from engine import EngineError
from engine.registry import GAMES


@dataclass(frozen=True)
class Customs:
    """What the chat's table customs fall back to (bot/config.py) and its other switches."""

    language: str
    pictures: bool
    default_timer: float
    default_stand_in: str
    away_after: int


def switch_value(t: Texts, game: str, name: str, value: object) -> Html:
    return t(f"rule.{game}.{name}.{value}")


def switch_line(t: Texts, game: str, name: str, value: object) -> Html:
    return t(
        "settings.switch_line",
        id=rule_id(game, name),
        name=t(f"rule.{game}.{name}"),
        value=switch_value(t, game, name, value),
        about=t(f"about.{game}.{name}.{value}"),
    )


def rules_lines(t: Texts, game: str, rules: Rules) -> list[Html]:
    """Every switch of a rule set with its value and what it means (the /rules body)."""
    return [switch_line(t, game, name, value) for name, value in switch_values(game, rules).items()]


def rules_summary(t: Texts, game: str, rules: Rules) -> Html:
    """The lobby's rules: the base game in one line, else each switch that differs from
    its base in words, what it does in a few (the id last, for RULES.md readers)."""
    changed = rules.to_dict()
    if not changed:
        return t("lobby.rules_line", rules=t("lobby.rules_base"))
    items = [
        t(
            "lobby.rule_item",
            name=t(f"rule.{game}.{name}"),
            value=switch_value(t, game, name, value),
            gist=t(f"gist.{game}.{name}.{value}"),
            id=rule_id(game, name),
        )
        for name, value in changed.items()
    ]
    return Html("\n".join([t("lobby.rules_heading"), *items]))


def lobby_rules_line(t: Texts, game_rules: Mapping[str, object]) -> Html | None:
    """``rules_summary`` of a game's recorded rules; None if they cannot be read (Start
    then refuses them with its own message)."""
    try:
        return rules_summary(t, *rules_of_game(game_rules))
    except EngineError:
        return None


def _timer_value(t: Texts, settings: ChatSettings, customs: Customs) -> Html:
    if settings.turn_timer is None:
        return t("settings.timer_default", seconds=round(customs.default_timer))
    if settings.turn_timer == 0:
        return t("settings.timer_off")
    return t("settings.timer_seconds", n=settings.turn_timer)


def _stand_in_value(t: Texts, settings: ChatSettings, customs: Customs) -> Html:
    if settings.stand_in is None:
        return t(
            "settings.standin_default", value=t(f"settings.standin_{customs.default_stand_in}")
        )
    return t(f"settings.standin_{settings.stand_in}")


def menu_text(
    t: Texts,
    settings: ChatSettings,
    *,
    title: str,
    lobby: bool,
    customs: Customs | None = None,
    broken: str | None = None,
) -> str:
    preset = preset_of(settings)
    lines = [
        t("settings.title_lobby" if lobby else "settings.title_chat", title=title),
        t("settings.game", game=t(f"game.{settings.game}")),
        t("settings.preset", preset=t(f"preset.{preset}") if preset else t("settings.own_preset")),
        "",
        *rules_lines(t, settings.game, settings.rules()),
    ]
    if customs is not None:
        timer_about = (
            "settings.timer_about_off" if settings.turn_timer == 0 else "settings.timer_about_on"
        )
        lines += [
            "",
            t("settings.customs"),
            t("settings.timer_line", value=_timer_value(t, settings, customs))
            + " — "
            + t(timer_about, after=customs.away_after),
            t("settings.standin_line", value=_stand_in_value(t, settings, customs)),
            t("settings.hands_line", value=t(f"settings.hands_{settings.group_hands}")),
            t("settings.language_line", value=texts(customs.language)("language.name")),
            t(
                "settings.pictures_line",
                value=t("settings.on") if customs.pictures else t("settings.off"),
            ),
        ]
    if broken:
        lines += ["", t("settings.broken_line", detail=broken)]
    lines += ["", t("settings.lobby_hint" if lobby else "settings.admins_hint")]
    return "\n".join(lines)


def _next(values: tuple[object, ...], current: object) -> object:
    return values[(values.index(current) + 1) % len(values)] if current in values else values[0]


def menu_keyboard(
    t: Texts, settings: ChatSettings, *, game_id: int, customs: Customs | None = None
) -> Keyboard:
    """A tap on a switch sets its next value (the value is in the button, so a stale
    menu sets what it shows, never a surprise)."""

    def tap(text: str, action: str, name: str = "", value: object = "") -> dict[str, str]:
        data = SettingsCb(game=game_id, action=action, name=name, value=str(value))
        return button(text, data.pack())

    game = settings.game
    rules = settings.rules()
    rows = [[tap(("• " if g == game else "") + t(f"game.{g}"), "game", value=g) for g in GAMES]]
    for name, current in switch_values(game, rules).items():
        values = GAMES[game].switches[name]
        label = t(
            "settings.switch_button",
            name=t(f"rule.{game}.{name}"),
            value=switch_value(t, game, name, current),
        )
        rows.append([tap(label, "set", name, _next(values, current))])
    chosen = preset_of(settings)
    preset_buttons = [
        tap(("• " if p == chosen else "") + t(f"preset.{p}"), "preset", p)
        for p, (g, _) in presets().items()
        if g == game
    ]
    rows += [preset_buttons[i : i + 2] for i in range(0, len(preset_buttons), 2)]
    if customs is not None:
        timers: tuple[object, ...] = (None, *TIMERS)
        timer = _next(timers, settings.turn_timer)
        stand_ins: tuple[object, ...] = (None, *STAND_INS)
        stand_in = _next(stand_ins, settings.stand_in)
        rows.append(
            [
                tap(
                    t("settings.timer_button", value=_timer_value(t, settings, customs)),
                    "timer",
                    value="default" if timer is None else timer,
                ),
                tap(
                    t("settings.standin_button", value=_stand_in_short(t, settings.stand_in)),
                    "standin",
                    value="default" if stand_in is None else stand_in,
                ),
            ]
        )
        rows.append(
            [
                tap(
                    t("settings.hands_button", value=t(f"settings.hands_{settings.group_hands}")),
                    "hands",
                    value=_next(HANDS_IN_GROUP, settings.group_hands),
                )
            ]
        )
        language = _next(LANGUAGES, customs.language)
        rows.append(
            [
                tap(
                    t("settings.language_button", value=texts(customs.language)("language.name")),
                    "lang",
                    value=language,
                ),
                tap(
                    t(
                        "settings.pictures_button",
                        value=t("settings.on") if customs.pictures else t("settings.off"),
                    ),
                    "pics",
                    value="off" if customs.pictures else "on",
                ),
            ]
        )
    rows.append([tap(t("settings.close"), "close")])
    return keyboard(rows)


def _stand_in_short(t: Texts, stand_in: str | None) -> Html:
    if stand_in is None:
        return t("settings.default")
    if stand_in == "off":
        return t("settings.standin_off")
    return t(f"computer.{stand_in}")
