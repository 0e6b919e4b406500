"""The Mini App's parts on their own: its settings, session tokens, launch
checks, the presence hub, and the state JSON's action lists matching what the text hand
parses."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings
from bot.games import bot_game
from bot.games.bura.app import bura_actions
from bot.games.burkozel.app import burkozel_actions
from bot.i18n import catalog_keys, texts
from bot.views.render import app_link
from bot.webapp.auth import (
    AuthError,
    check_init_data,
    check_token,
    game_of_start,
    issue_token,
    session_key,
    start_key,
    table_start,
)
from bot.webapp.live import Hub
from engine import Card
from engine.cards import DECK
from tests.support.harness import TOKEN
from tests.support.webapp import sign_init_data


def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> Path:
    for key in ("BOT_TOKEN", "WEBAPP_URL", "WEBAPP_LISTEN", "WEBAPP_MAX_AGE", "WEBAPP_LINK"):
        monkeypatch.delenv(key, raising=False)
    env = tmp_path / ".env"
    env.write_text("BOT_TOKEN=42:secret-token\n" + text)
    return env


def test_the_webapp_settings_are_read_and_a_bad_one_is_named_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings(_env(tmp_path, monkeypatch, ""))
    assert settings.webapp_url is None and settings.webapp_max_age == 86400
    env = _env(
        tmp_path,
        monkeypatch,
        "WEBAPP_URL=https://cards.example.org/\nWEBAPP_LISTEN=127.0.0.1:9000\nWEBAPP_MAX_AGE=600\n",
    )
    settings = load_settings(env)
    assert settings.webapp_url == "https://cards.example.org"  # no trailing slash
    assert (settings.webapp_listen, settings.webapp_max_age) == ("127.0.0.1:9000", 600)
    for line, key in (
        ("WEBAPP_URL=http://cards.example.org", "WEBAPP_URL"),  # Telegram opens https only
        ("WEBAPP_URL=cards", "WEBAPP_URL"),
        ("WEBAPP_LISTEN=nowhere", "WEBAPP_LISTEN"),
        ("WEBAPP_MAX_AGE=5", "WEBAPP_MAX_AGE"),
    ):
        with pytest.raises(ConfigError) as refused:
            load_settings(_env(tmp_path, monkeypatch, line + "\n"))
        message = str(refused.value)
        assert message.startswith(f"{key} is invalid") and "\n" not in message


def test_a_session_token_is_bound_to_its_user_game_and_expiry() -> None:
    key = session_key(TOKEN)
    assert TOKEN.encode() not in key
    token = issue_token(key, 10, 7, 1000.0)
    session = check_token(key, token, now=999.0)
    assert (session.user_id, session.game_id, session.expires_at) == (10, 7, 1000)
    with pytest.raises(AuthError, match="expired_token"):
        check_token(key, token, now=1000.0)
    with pytest.raises(AuthError, match="bad_token"):
        check_token(session_key("1:other"), token, now=0)
    body, _, mac = token.partition(".")
    forged_body = issue_token(key, 11, 7, 1000.0).partition(".")[0]  # another user's body
    for forged in (forged_body + "." + mac, body + ".", "", "a.b.c", body + "." + mac[:-2]):
        with pytest.raises(AuthError, match="bad_token"):
            check_token(key, forged, now=0)


def test_a_launch_proves_its_user_and_is_refused_once_too_old() -> None:
    init = sign_init_data(TOKEN, 42, auth_date=5000)
    launch = check_init_data(TOKEN, init, max_age=100, now=5050)
    assert (launch.user_id, launch.language) == (42, "en")
    with pytest.raises(AuthError, match="expired_init_data"):
        check_init_data(TOKEN, init, max_age=100, now=5101)
    with pytest.raises(AuthError, match="expired_init_data"):  # from the future
        check_init_data(TOKEN, init, max_age=100, now=4000)
    with pytest.raises(AuthError, match="bad_init_data"):
        check_init_data("1:other-token", init, max_age=100, now=5050)
    with pytest.raises(AuthError, match="bad_init_data"):
        check_init_data(TOKEN, init + "&extra=1", max_age=100, now=5050)


async def test_the_hub_keeps_a_player_in_the_app_for_a_grace_after_leaving() -> None:
    now = [0.0]
    hub = Hub(grace=5, clock=lambda: now[0])
    left: list[tuple[int, int, int | None]] = []
    told: list[tuple[int, int, bool]] = []

    async def on_leave(game: int, user: int, since: int | None) -> None:
        left.append((game, user, since))

    async def announce(game: int, user: int, present: bool) -> None:
        told.append((game, user, present))

    hub.on_leave, hub.announce = on_leave, announce
    hub.grace = 0.01  # the task's own sleep; ``clock`` judges ``in_app``
    with hub.connection(1, 10, 3) as event:
        assert hub.in_app(1, 10) and not hub.in_app(1, 11) and not hub.in_app(2, 10)
        hub.changed(2)
        assert not event.is_set()
        hub.changed(1)
        assert event.is_set()
    assert hub.connections == 0
    assert hub.in_app(1, 10)  # within the grace
    now[0] = 1.0
    assert not hub.in_app(1, 10)
    await asyncio.sleep(0.1)
    # The hand is brought up to date once (if the game moved on since version 3), and
    # the other instances are told she came and went.
    assert left == [(1, 10, 3)]
    assert told == [(1, 10, True), (1, 10, False)]


def test_a_player_in_the_app_through_another_instance_counts_until_told_or_timed_out() -> None:
    now = [0.0]
    hub = Hub(grace=5, clock=lambda: now[0])
    hub.heard(1, 10, True)
    assert hub.in_app(1, 10)
    now[0] = 44.0
    assert hub.in_app(1, 10)
    now[0] = 46.0  # not told again: that instance may have died
    assert not hub.in_app(1, 10)
    hub.heard(1, 10, True)
    hub.heard(1, 10, False)  # left: the same grace as a connection here
    assert hub.in_app(1, 10)
    now[0] = 52.0
    assert not hub.in_app(1, 10)


def _norm(action_json: dict[str, object]) -> str:
    data = dict(action_json)
    if isinstance(data.get("cards"), list):
        data["cards"] = sorted(data["cards"])  # type: ignore[type-var]
    return json.dumps(data, sort_keys=True)


@pytest.mark.parametrize("name", ["burkozel", "bura"])
def test_every_listed_action_parses_back_as_the_text_buttons_do(name: str) -> None:
    """The kinds and cards the state lists go through ``GameSide.parse_action`` (the text
    buttons' parser) as exactly the seat's legal actions, in both games (B6 shows and
    leads out of turn; Bura's «Стоп!», declarations, shows, даве)."""
    t = texts("en")
    rules: dict[str, object] = (
        {"combinations": "on", "max_lead": 4}
        if name == "burkozel"
        else {"game": "bura", "dave": "on", "moscow": "on", "same_rank_leads": "on"}
    )
    ui = bot_game(rules)
    listing = burkozel_actions if name == "burkozel" else bura_actions
    kinds: set[str] = set()
    for seed in range(40):
        rng = random.Random(seed)
        series = ui.new_series(2 + seed % 3, rules, seed % 2)
        deck = list(DECK)
        rng.shuffle(deck)
        series.start_deal(deck)
        deal = series.deals[-1]
        for _ in range(80):
            if deal.finished:
                break
            choices = []
            for seat in deal.actors():
                listed = listing(t, deal, seat)
                legal = deal.legal_actions(seat)
                parsed = [
                    ui.parse_action(
                        deal, seat, a["kind"], tuple(Card.parse(c) for c in a["cards"] or [])
                    )
                    for a in listed
                ]
                assert sorted(_norm(p.to_json()) for p in parsed) == sorted(
                    _norm(a.to_json()) for a in legal
                )
                kinds |= {a["kind"] for a in listed}
                choices += parsed
            series.apply(rng.choice(choices))
    assert len(kinds) >= 3, kinds


def test_the_page_texts_are_in_both_catalogues() -> None:
    for language in ("ru", "en"):
        keys = {k for k in catalog_keys(language) if k.startswith("webapp.")}
        assert "webapp.open_table" in keys and "webapp.error.expired_token" in keys


def test_a_start_parameter_names_its_game_and_any_change_is_refused() -> None:
    """The group's link carries ``g<game>_<mac>`` (Telegram: at most 64 characters of
    A-Z a-z 0-9 _ -); a parameter altered anywhere, made for another game, cut short or
    signed with another bot's key names no game."""
    key = start_key(TOKEN)
    assert key != session_key(TOKEN) and TOKEN.encode() not in key
    for game_id in (1, 7, 2**63 - 1):
        param = table_start(key, game_id)
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", param), param
        assert game_of_start(key, param) == game_id
    param = table_start(key, 7)
    forged = [
        table_start(key, 8).replace("g8_", "g7_"),  # another game's mac
        "g8" + param[2:],  # another game, this mac
        param[:-1],
        param + "A",
        table_start(start_key("1:other-token"), 7),
        "g07" + param[2:],
        "g-7" + param[2:],
        "",
        "x" * 65,
        "g7_" + "A" * 24,
    ]
    for i in range(3, len(param)):  # each character of the mac changed
        swapped = "B" if param[i] == "A" else "A"
        forged.append(param[:i] + swapped + param[i + 1 :])
    for bad in forged:
        with pytest.raises(AuthError, match="bad_start"):
            game_of_start(key, bad)


def test_an_onlookers_token_is_not_a_players_and_cannot_be_made_one() -> None:
    key = session_key(TOKEN)
    watching = check_token(key, issue_token(key, 10, 7, 1000.0, watching=True), now=0)
    assert watching.watching and (watching.user_id, watching.game_id) == (10, 7)
    assert not check_token(key, issue_token(key, 10, 7, 1000.0), now=0).watching
    mac = issue_token(key, 10, 7, 1000.0, watching=True).partition(".")[2]
    for forged_body in (b"10.7.1000", b"10.7.1000.x", b"10.7.1000.w.w"):
        forged = base64.urlsafe_b64encode(forged_body).rstrip(b"=").decode() + "." + mac
        with pytest.raises(AuthError, match="bad_token"):
            check_token(key, forged, now=0)


def test_a_launch_by_the_groups_link_carries_its_start_parameter() -> None:
    init = sign_init_data(TOKEN, 42, auth_date=5000, start_param="g7_abc")
    assert check_init_data(TOKEN, init, max_age=100, now=5050).start_param == "g7_abc"
    plain_launch = sign_init_data(TOKEN, 42, auth_date=5000)
    assert check_init_data(TOKEN, plain_launch, max_age=100, now=5050).start_param is None
    # (signed by Telegram: a start parameter added afterwards breaks the signature)
    with pytest.raises(AuthError, match="bad_init_data"):
        check_init_data(TOKEN, plain_launch + "&start_param=g8_x", max_age=100, now=5050)


def test_the_table_link_setting_is_main_or_a_short_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WEBAPP_LINK", raising=False)
    assert load_settings(_env(tmp_path, monkeypatch, "")).webapp_link is None
    for value, read in (("main", "main"), (" cards_table ", "cards_table"), ("", None)):
        settings = load_settings(_env(tmp_path, monkeypatch, f"WEBAPP_LINK={value}\n"))
        assert settings.webapp_link == read
    for bad in ("https://t.me/bot/app", "a", "table app", "x" * 31, "таблица"):
        with pytest.raises(ConfigError) as refused:
            load_settings(_env(tmp_path, monkeypatch, f"WEBAPP_LINK={bad}\n"))
        message = str(refused.value)
        assert message.startswith("WEBAPP_LINK is invalid") and "\n" not in message
    assert app_link("cards_bot", "main", "g7_x") == "https://t.me/cards_bot?startapp=g7_x"
    assert app_link("cards_bot", "table", "g7_x") == "https://t.me/cards_bot/table?startapp=g7_x"


async def test_an_onlooker_connection_only_listens() -> None:
    """An onlooker's live connection is woken by moves like a player's, but makes nobody
    "in the app" (which spares a seated player's hand edits and pings)."""
    hub = Hub(grace=0.01)
    with hub.connection(5, 10, 3, present=False) as changed:
        assert hub.connections == 1 and not hub.in_app(5, 10)
        hub.changed(5)
        assert changed.is_set()
    assert hub.connections == 0
    await asyncio.sleep(0.05)
    assert not hub.in_app(5, 10)
