"""Bot pieces that need no Telegram: settings, callback data, the text catalogue."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.chat_settings import load as load_chat_settings
from bot.config import ConfigError, load_settings
from bot.handlers.stats import ResetCb
from bot.i18n import LANGUAGES, catalog_keys, texts
from bot.views.callbacks import CancelCb, CardCb, LangCb, LobbyCb, PlayCb, SettingsCb
from bot.views.settings import Customs, menu_keyboard
from engine.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
MAX_GAME = 2**53  # far beyond any SQLite rowid a bot will reach


def test_every_callback_fits_in_64_bytes_at_its_largest() -> None:
    largest = [
        LobbyCb(game=MAX_GAME, action="bot-normal"),
        CardCb(game=MAX_GAME, v=10**9, card="10H"),
        PlayCb(game=MAX_GAME, v=10**9, kind="b", cards="10H.10D.10S"),
        CancelCb(game=MAX_GAME, confirm=True),
        LangCb(code="ru", chat=-MAX_GAME),
        ResetCb(chat=-MAX_GAME, confirm=True),
        SettingsCb(game=-MAX_GAME, action="preset", name="classic_burkozel"),
    ]
    for data in largest:
        packed = data.pack()
        assert len(packed.encode()) <= 64, packed


def test_every_button_of_a_groups_settings_menu_fits_in_64_bytes() -> None:
    """The menu's buttons name their group (the menu may be answered in the
    asker's private chat)."""
    customs = Customs(
        language="ru", pictures=True, default_timer=90, default_stand_in="normal", away_after=2
    )
    for game in GAMES:
        settings = load_chat_settings({})[0].with_game(game)
        markup = menu_keyboard(texts("ru"), settings, game_id=-MAX_GAME, customs=customs)
        for row in markup["inline_keyboard"]:
            for button in row:
                assert len(button["callback_data"].encode()) <= 64, button


@pytest.mark.parametrize(
    "data",
    [
        f"{prefix}:{game}:{rest}"
        for prefix, rest in (
            ("l", "again"),
            ("l", "join"),
            ("t", "1:AS"),
            ("p", "1:l:AS"),
            ("x", "1"),
        )
        for game in ("9223372036854775808", "0", "-1", "-9223372036854775809", "1e3", "x", "")
    ]
    + [
        f"{prefix}:1:{v}:{rest}"
        for prefix, rest in (("t", "AS"), ("p", "l:AS"))
        for v in ("9223372036854775808", "-1", "v", "")
    ],
)
def test_forged_ids_out_of_range_are_refused_at_the_edge(data: str) -> None:
    """Ids beyond SQLite's 64 bits, negative or not numbers never unpack,
    so no handler but "this button is not valid" sees them."""
    factory = {"l": LobbyCb, "t": CardCb, "p": PlayCb, "x": CancelCb}[data[0]]
    with pytest.raises(ValueError):
        factory.unpack(data)


def test_callback_data_round_trips() -> None:
    data = PlayCb(game=12, v=34, kind="b", cards="AH.6C")
    assert PlayCb.unpack(data.pack()) == data


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "BOT_TOKEN is not set"),
        ({"BOT_TOKEN": "nonsense"}, "BOT_TOKEN is invalid"),
        ({"BOT_TOKEN": "1:abcdefgh", "TURN_TIMEOUT_SECONDS": "soon"}, "TURN_TIMEOUT_SECONDS"),
        ({"BOT_TOKEN": "1:abcdefgh", "DEFAULT_LANGUAGE": "de"}, "DEFAULT_LANGUAGE"),
        ({"BOT_TOKEN": "1:abcdefgh", "TELEGRAM_API_URL": "ftp:/x"}, "TELEGRAM_API_URL"),
        ({"BOT_TOKEN": "1:abcdefgh", "DATABASE_URL": "mysql://x/y"}, "DATABASE_URL is invalid"),
        (
            {"BOT_TOKEN": "1:abcdefgh", "WEBHOOK_URL": "https://bot.example.org/hook"},
            "WEBHOOK_SECRET is not set",
        ),
        ({"BOT_TOKEN": "1:abcdefgh", "WEBHOOK_LISTEN": "8080"}, "WEBHOOK_LISTEN is invalid"),
        ({"BOT_TOKEN": "1:abcdefgh", "METRICS_LISTEN": "x:y"}, "METRICS_LISTEN is invalid"),
        # Nothing listens on port 1: the database is unreachable. The password is not shown.
        (
            {"BOT_TOKEN": "1:abcdefgh", "DATABASE_URL": "postgresql://u:nonsense@127.0.0.1:1/db"},
            "database error (DATABASE_URL): cannot connect to postgresql://u:***@127.0.0.1:1/db",
        ),
    ],
)
def test_a_broken_setting_stops_the_bot_with_one_line_naming_the_key(
    env: dict[str, str], message: str, tmp_path: Path
) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "TELEGRAM_"))}
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,  # no .env here
        env={**clean, **env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard only: four test workers on two busy cores start slowly
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr
    assert "nonsense" not in result.stderr  # a bad token is never echoed


def test_settings_read_the_env_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("BOT_TOKEN", "TURN_TIMEOUT_SECONDS"):
        monkeypatch.delenv(key, raising=False)
    env = tmp_path / ".env"
    env.write_text("BOT_TOKEN=42:secret-token\nTURN_TIMEOUT_SECONDS=30\n")
    settings = load_settings(env)
    assert settings.turn_timeout_seconds == 30
    assert "secret-token" not in repr(settings)
    env.write_text("BOT_TOKEN=42:secret-token\nLOG_LEVEL=LOUD\n")
    with pytest.raises(ConfigError, match="LOG_LEVEL"):
        load_settings(env)


def test_both_catalogues_hold_the_same_keys_with_the_same_placeholders() -> None:
    keys = {lang: catalog_keys(lang) for lang in LANGUAGES}
    assert keys["ru"] == keys["en"]
    for key in keys["en"]:
        fields = {lang: set(re.findall(r"{(\w+)}", texts(lang)(key))) for lang in LANGUAGES}
        assert fields["ru"] == fields["en"], key


def test_every_text_key_used_in_the_code_is_in_the_catalogue() -> None:
    known = catalog_keys("en")
    used: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        source = path.read_text()
        used |= set(re.findall(r"""\b(?:t|t\.alert|UserError)\(\s*"([a-z_]+\.[a-z_]+)""", source))
    assert used, "the scan found no keys"
    assert used <= known, sorted(used - known)


def test_the_default_language_is_russian_and_cards_render_with_suit_symbols() -> None:
    from bot.views.render import card_text
    from engine import Card, Suit

    assert texts(None)("lobby.join") == texts("ru")("lobby.join") != texts("en")("lobby.join")
    assert card_text(Card.parse("10H")) == "10♥"
    assert card_text(Card.parse("AS"), trump=Suit.SPADES) == "A♠★"


def test_fast_callback_data_packs_exactly_as_the_factories() -> None:
    from bot.views.callbacks import card_data, play_data

    assert card_data(12, 34, "10H") == CardCb(game=12, v=34, card="10H").pack()
    assert play_data(12, 34, "b", "AH.6C") == PlayCb(game=12, v=34, kind="b", cards="AH.6C").pack()
    assert CardCb.unpack(card_data(MAX_GAME, 0, "AS")) == CardCb(game=MAX_GAME, v=0, card="AS")
