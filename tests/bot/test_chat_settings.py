"""Chat settings: validation by the engine's rule sets, storage form, presets."""

from __future__ import annotations

import pytest

from bot.chat_settings import (
    ChatSettings,
    SettingsError,
    apply_preset,
    fits_seats,
    load,
    preset_of,
    presets,
    rules_of_game,
)
from engine import bura, burkozel


def test_defaults_are_base_burkozel_and_store_as_nothing() -> None:
    settings = ChatSettings()
    assert settings.to_dict() == {}
    assert settings.game_rules() == {}
    assert ChatSettings.from_dict({}) == settings


def test_every_switch_value_round_trips_through_storage() -> None:
    settings = (
        ChatSettings()
        .with_game("bura")
        .with_switch("burkozel", "max_lead", "4")  # B2: a button carries text
        .with_switch("burkozel", "discards", "closed")  # B1
        .with_switch("bura", "series", "robber_21")  # D10
        .with_custom("turn_timer", "0")
        .with_custom("stand_in", "hard")
        .with_custom("hands_in_group", "turn")
    )
    assert settings.rules("burkozel") == burkozel.Rules(discards="closed", max_lead=4)
    assert settings.group_hands == "turn" and ChatSettings().group_hands == "ask"
    assert settings.rules("bura") == bura.Rules(series="robber_21")
    assert (settings.turn_timer, settings.stand_in) == (0, "hard")
    assert ChatSettings.from_dict(settings.to_dict()) == settings
    assert settings.game_rules() == {"game": "bura", "series": "robber_21"}
    assert settings.game_rules("burkozel") == {"discards": "closed", "max_lead": 4}


@pytest.mark.parametrize(
    ("game", "name", "value"),
    [
        ("burkozel", "max_lead", "5"),  # B2 is 3 or 4
        ("burkozel", "teams", "trios"),
        ("burkozel", "nonsense", "on"),
        ("bura", "target", "40"),
        ("chess", "discards", "open"),
    ],
)
def test_a_forged_switch_or_value_is_refused(game: str, name: str, value: str) -> None:
    with pytest.raises(SettingsError) as info:
        ChatSettings().with_switch(game, name, value)
    assert info.value.key == "error.forged"


def test_b3_elimination_refuses_credits_and_pairs_with_a_reason() -> None:
    credits = ChatSettings().with_switch("burkozel", "scoring", "winner_takes")
    with pytest.raises(SettingsError) as info:
        credits.with_switch("burkozel", "series_end", "elimination")
    assert info.value.key == "settings.conflict_b3" and "B3" in info.value.detail
    pairs = ChatSettings().with_switch("burkozel", "teams", "pairs")
    with pytest.raises(SettingsError):
        pairs.with_switch("burkozel", "series_end", "elimination")


@pytest.mark.parametrize(
    ("name", "value"),
    [("turn_timer", "45"), ("turn_timer", 7), ("stand_in", "god"), ("hands_in_group", "always")],
)
def test_a_forged_custom_is_refused(name: str, value: object) -> None:
    with pytest.raises(SettingsError):
        ChatSettings().with_custom(name, value)


@pytest.mark.parametrize(
    "stored",
    [
        [1, 2],
        {"game": "poker"},
        {"burkozel": {"max_lead": 9}},
        {"bura": {"dave": True}},
        {"turn_timer": 45},
        {"colour": "red"},
        {"burkozel": {"series_end": "elimination", "teams": "pairs"}},
    ],
)
def test_broken_stored_settings_say_why_and_load_as_defaults(stored: object) -> None:
    with pytest.raises(SettingsError) as info:
        ChatSettings.from_dict(stored)
    assert info.value.key == "settings.broken" and info.value.detail
    settings, error = load(stored)
    assert settings == ChatSettings() and error is not None


def test_a_games_own_rule_set_from_before_settings_is_read() -> None:
    assert ChatSettings.from_dict({"teams": "pairs"}).rules("burkozel") == burkozel.Rules(
        teams="pairs"
    )
    chosen = ChatSettings.from_dict({"game": "bura", "dave": "on"})
    assert chosen.game == "bura" and chosen.rules("bura") == bura.Rules(dave="on")


def test_presets_set_the_game_and_every_switch_and_are_recognised() -> None:
    mixed = ChatSettings().with_switch("burkozel", "scoring", "winner_takes")
    for name, (game, switches) in presets().items():
        settings = apply_preset(mixed.with_custom("turn_timer", "60"), name)
        assert settings.game == game and settings.turn_timer == 60  # customs are kept
        assert settings.rules().to_dict() == switches
        assert preset_of(settings) == name
    assert apply_preset(mixed, "pairs").rules("burkozel") == burkozel.Rules(
        teams="pairs", combinations="on"
    )
    assert preset_of(ChatSettings().with_switch("burkozel", "max_lead", "4")) is None
    with pytest.raises(SettingsError):
        apply_preset(mixed, "poker_night")


def test_b5_pairs_need_exactly_four_seats() -> None:
    pairs = burkozel.Rules(teams="pairs")
    fits_seats(pairs, 4)
    for players in (2, 3):
        with pytest.raises(SettingsError) as info:
            fits_seats(pairs, players)
        assert info.value.key == "lobby.pairs_need_four"


def test_a_games_recorded_rules_read_back() -> None:
    assert rules_of_game({"teams": "pairs"}) == ("burkozel", burkozel.Rules(teams="pairs"))
    assert rules_of_game({"game": "bura", "dave": "on"}) == ("bura", bura.Rules(dave="on"))
