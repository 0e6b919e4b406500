"""The Mini App in a real browser: Debian's Chromium driven by Playwright, one
browser context per player (separate phones), against the real bot and the fake Bot API.
Each page is opened as Telegram opens it: the URL of the «🃏 Open table» button under the
player's hand message, with launch data signed by the fake bot token in the URL hash
(tests/support/webapp_page.py). A skip here fails the run in CI (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.app import App
from bot.i18n import plain, texts
from engine import Card
from engine.burkozel import Action
from engine.game import PUBLIC
from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from tests.support.harness import (
    TOKEN,
    hand_cards,
    new_fake,
    play_one_move,
    running_bot,
)
from tests.support.webapp import hidden_cards
from tests.support.webapp_page import (
    AppPlayer,
    chromium,
    free_port,
    launch_hash,
    open_app,
    sign_init_data,
    tg_user,
    web_app_url,
    webapp_settings,
)

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs"
# The lobby's Join, «add an easy computer» and Start buttons.
LOBBY = {"en": ("✋ Join", "🤖 + easy", "▶️ Start"), "ru": ("✋ Играю", "🤖 + лёгкий", "▶️ Начать")}


@dataclass
class Table:
    fake: FakeTelegram
    app: App
    group: FakeChat
    users: list[FakeUser]
    game_id: int = 0
    played: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    async def moves(self) -> list[Any]:
        assert self.app.service is not None
        return list(await self.app.service.storage.moves(self.game_id))

    async def version(self) -> int:
        assert self.app.service is not None
        version = await self.app.service.storage.game_version(self.game_id)
        assert version is not None
        return version


async def start_game(
    fake: FakeTelegram,
    app: App,
    group: FakeChat,
    users: list[FakeUser],
    *,
    game: str = "burkozel",
    computers: int = 0,
    rules: dict[str, Any] | None = None,
    language: str = "en",
) -> Table:
    """Everyone presses Start in their DM; the first opens a game, the rest join, the
    computers sit down; Start."""
    assert app.service is not None
    if rules:
        await app.service.storage.set_chat_rules(group.id, rules)
    for user in users:
        if not user.started:
            await user.start_bot()
    await users[0].send(group, "/newgame" + (" bura" if game == "bura" else ""))
    lobby = await fake.wait_for(
        lambda: next(
            (m for m in group.bot_messages() if LOBBY[language][0] in m.button_texts), None
        ),
        description="the lobby",
    )
    join, computer, start = LOBBY[language]
    for user in users[1:]:
        answer = await (await user.tap(lobby, join)).wait()
        assert not answer.show_alert, answer.text
    for n in range(1, computers + 1):
        await (await users[0].tap(lobby, computer)).wait()
        await fake.wait_for(lambda n=n: lobby.text.count("🤖") >= n)
    await fake.wait_for(lambda: all(u.first_name in lobby.text for u in users))
    await (await users[0].tap(lobby, start)).wait()
    await fake.wait_for(lambda: all(app_message(u, group) for u in users))
    found = await app.service.storage.open_game(group.id, None)
    assert found is not None
    return Table(fake, app, group, users, found.id)


@contextlib.asynccontextmanager
async def a_table(
    tmp_path: Path,
    names: list[str],
    *,
    game: str = "burkozel",
    computers: int = 0,
    rules: dict[str, Any] | None = None,
    language: str = "en",
    **settings: Any,
) -> AsyncIterator[Table]:
    """A running bot with its Mini App on, a group and its players at a started game."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    async with new_fake() as fake:
        fake.enforce_limits = False
        users = [fake.add_user(n, language_code=language) for n in names]
        group = fake.add_group("Friends", members=users)
        web = webapp_settings(free_port())
        fake.main_mini_app = web["webapp_url"] + "/webapp/"  # (the owner's step in @BotFather)
        settings.setdefault("webapp_link", "main")
        async with running_bot(
            fake,
            tmp_path / "bot.sqlite3",
            default_language=language,
            **web,
            **settings,
        ) as app:
            # Seeded decks: with a random one a first Bura deal void from the deal (D9, a
            # combination in a hand: ~1 in 8 with three players) was dealt again before
            # the pages opened, and a test of "deal 1" had nothing to play.
            assert app.service is not None
            app.service.settings.rng = random.Random(f"{game}:{len(names)}:{computers}")
            yield await start_game(
                fake,
                app,
                group,
                users,
                game=game,
                computers=computers,
                rules=rules,
                language=language,
            )
        assert fake.invalid_requests == []


def app_message(user: FakeUser, group: FakeChat) -> FakeMessage | None:
    """The user's hand message of the game in ``group``: the one with «🃏 Open table»."""
    for message in reversed(user.dm.messages):
        if message.is_from_bot and web_app_url(message) and f"«{group.title}»" in message.text:
            return message
    return None


async def launch(browser: Any, user: FakeUser, group: FakeChat, theme: str = "light") -> AppPlayer:
    """``user`` taps «🃏 Open table» under their hand message, on a phone of their own."""
    message = app_message(user, group)
    assert message is not None, f"no «Open table» button in {user.first_name}'s chat"
    url = web_app_url(message)
    assert url is not None
    init = sign_init_data(TOKEN, tg_user(user.id, user.first_name, user.language_code or "en"))
    page = await open_app(browser, url + "#" + launch_hash(init, theme), theme)
    player = AppPlayer(page, user.first_name)
    await player.wait_version(0)
    return player


def table_message(group: FakeChat, label: str) -> FakeMessage | None:
    """The group's table message with its «🃏 Table» button (the deal being played)."""
    return next((m for m in reversed(group.bot_messages()) if label in m.button_texts), None)


async def launch_from_group(
    browser: Any, user: FakeUser, group: FakeChat, theme: str = "light", label: str = "🃏 Table"
) -> AppPlayer:
    """``user`` taps «🃏 Table» under the group's table: the Mini App opens in the group."""
    message = await user.fake.wait_for(
        lambda: table_message(group, label), description=f"{label} under the group's table"
    )
    opened = user.open_app_button(message, label)
    page = await open_app(browser, opened.url + "#" + launch_hash(opened.init_data, theme), theme)
    player = AppPlayer(page, user.first_name)
    await player.wait_version(0)
    return player


async def in_step(players: list[AppPlayer], version: int) -> None:
    """Every page shows ``version`` (or later): live, without reloading."""
    for player in players:
        await player.wait_version(version)


async def play_through_pages(
    table: Table,
    players: list[AppPlayer],
    rng: random.Random,
    done: Any,
    *,
    main_button_every: int = 3,
    max_moves: int = 400,
) -> int:
    """Whoever's page offers actions plays one at random by tapping, until ``done(state)``;
    after each move every page follows. Returns the moves made."""
    moves = 0
    while True:
        latest = await table.version()
        await in_step(players, latest)
        states = [await p.state() for p in players]
        if done(states[0]):
            return moves
        movers = [(p, s) for p, s in zip(players, states, strict=True) if s["actions"]]
        if not movers:  # a computer's turn, or the draw that comes by itself (D5)
            await asyncio.sleep(0.05)
            continue
        # The seat whose turn it is first (others may have calls out of turn).
        player, state = next(((p, s) for p, s in movers if s["turn"] == s["me"]), movers[0])
        played = await player.play(rng, main_button=moves % main_button_every == 0)
        table.played.append((state["me"], played["played"]))
        moves += 1
        assert moves < max_moves, "the deal does not end"


def next_deal(state: dict[str, Any]) -> bool:
    return state["deal"] > 1 or state["finished"]


def group_lines(group: FakeChat) -> list[str]:
    return [line for text in group.all_texts(False) for line in text.splitlines()]


def shown_in_group(group: FakeChat, name: str, cards: list[str]) -> bool:
    """The group's table showed ``name`` playing ``cards`` (a line «Name: leads A♠ 10♥»)."""
    pretty = [Card.parse(c).pretty() for c in cards]
    line = re.compile(
        rf"^\s*{re.escape(name)}: (leads|beats|discards) "
        + r"\s*".join(re.escape(c) + "★?" for c in pretty)
    )
    return any(line.match(ln) for ln in group_lines(group))


async def test_two_players_play_a_whole_burkozel_deal_in_the_app(tmp_path: Path) -> None:
    """Both players play a whole deal only by tapping cards and actions in their pages
    (and Telegram's MainButton now and then); the move log holds exactly the plays the
    pages made, the group's table showed each of them, and the deal's result on the pages
    is the group's."""
    rng = random.Random(29)
    names = ["Anna", "Boris <b>&amp;</b>"]
    async with chromium() as browser, a_table(tmp_path, names) as table:
        players = [await launch(browser, u, table.group) for u in table.users]
        for player, user in zip(players, table.users, strict=True):
            state = await player.state()
            assert state["game"] == table.game_id and state["kind"] == "burkozel"
            assert sorted(await player.hand()) == sorted(state["hand"])
            # A name is text, never markup.
            name = await player.page.text_content(
                f'#me .name, .seat[data-seat="{state["me"]}"] .name'
            )
            assert name == user.first_name
        assert await players[0].page.locator(".seat b.name, .seat .name b").count() == 0
        other = await players[0].page.text_content(".opponents .seat .name")
        assert other == names[1]

        moves = await play_through_pages(table, players, rng, next_deal)

        logged = [m for m in await table.moves() if m.deal_index == 0]
        assert [
            (
                Action.from_json(m.move).seat,
                sorted(c.code() for c in Action.from_json(m.move).cards),
            )
            for m in logged
        ] == [(seat, sorted(a["cards"] or [])) for seat, a in table.played]
        assert len(logged) == moves
        by_seat = dict(enumerate(names))
        for seat, action in table.played:
            assert shown_in_group(table.group, by_seat[seat], action["cards"]), action
        # The deal's result: the same lines on both pages and in the group.
        group_text = "\n".join(table.group.all_texts(False))
        for player in players:
            state = await player.state()
            assert state["notes"], "the page does not show the deal's result"
            for line in state["notes"][0].splitlines()[1:]:
                assert line in group_text, line
            shown = await player.page.inner_text("#notes")
            assert state["notes"][0].splitlines()[1] in shown
            record = await player.tg()
            assert record["ready"] == 1 and record["expanded"] == 1
            assert any(h.startswith("selection") for h in record["haptics"])
            assert "impact:medium" in record["haptics"]
            assert await player.page.get_attribute("#app", "data-live") == "on"
            assert player.errors == []


async def test_bura_a_whole_deal_in_the_app(tmp_path: Path) -> None:
    """Three players play a whole Bura deal by tapping in their pages: every call Bura
    offers (declare, draw now, shows) is a button there when it is legal (D2-D8)."""
    rng = random.Random(7)
    async with (
        chromium() as browser,
        a_table(tmp_path, ["Anna", "Boris", "Vera"], game="bura") as table,
    ):
        players = [await launch(browser, u, table.group) for u in table.users]
        state = await players[0].state()
        assert state["kind"] == "bura"
        assert await players[0].page.get_attribute("#app", "data-kind") == "bura"
        moves = await play_through_pages(table, players, rng, next_deal)
        assert moves >= 3
        assert len([m for m in await table.moves() if m.deal_index == 0]) >= moves
        for player in players:
            state = await player.state()
            assert state["notes"], "the page does not show the deal's result"
            assert state["notes"][0].splitlines()[0] in "\n".join(table.group.all_texts(False))
            assert player.errors == []


async def test_a_player_mixes_the_app_and_text_buttons_and_every_page_follows(
    tmp_path: Path,
) -> None:
    """Boris switches between the text buttons and the app from move to move (closing the
    app to tap in the chat, reopening it from the button); Anna and Vera play only in the
    app. Each move made in the chat shows on every open page without a reload, and the
    reopened page shows his hand as the chat does."""
    rng = random.Random(5)
    async with (
        chromium() as browser,
        a_table(tmp_path, ["Anna", "Boris", "Vera"]) as table,
    ):
        _, boris, _ = table.users
        players = [await launch(browser, u, table.group) for u in table.users]
        by_text = by_app = 0
        while by_text < 3 or by_app < 3:
            await in_step(players, await table.version())
            states = [await p.state() for p in players]
            if next_deal(states[0]):
                break
            movers = [(p, s) for p, s in zip(players, states, strict=True) if s["actions"]]
            player, state = next(((p, s) for p, s in movers if s["turn"] == s["me"]), movers[0])
            if player.name != "Boris" or by_text > by_app:
                await player.play(rng)
                by_app += player.name == "Boris"
                continue
            # Boris leaves the app for the chat: his hand message is brought up to date.
            await player.page.context.close()
            players.remove(player)
            before = len(await table.moves())
            current = await table.version()
            # (a few seconds after he left: the bot gives a phone switching apps a moment)
            await table.fake.wait_for(
                lambda: drawn_for(app_message(boris, table.group)) == current,
                timeout=20,
                description="Boris's hand message brought up to date",
            )
            await play_one_move(table.fake, boris, rng, table.group)
            by_text += 1
            moves = await table.moves()
            assert len(moves) == before + 1
            move = Action.from_json(moves[-1].move)
            assert move.seat == state["me"]
            version = await table.version()
            for page in players:
                await page.wait_version(version)
                # The cards he played are on the table (or in the trick he closed).
                assert {c.code() for c in move.cards} <= set(await page.table_cards())
            # Back to the app: it shows what the chat shows.
            reopened = await launch(browser, boris, table.group)
            await reopened.wait_version(version)
            assert sorted(await reopened.hand()) == sorted(hand_codes(boris, table.group))
            players.insert(1, reopened)
        assert by_text >= 3 and by_app >= 3
        for player in players:
            assert player.errors == []


def drawn_for(message: FakeMessage | None) -> int | None:
    """The game version a hand message's buttons were drawn for (``t:<game>:<version>:…``)."""
    for row in message.buttons if message else []:
        for button in row:
            if button.callback_data and button.callback_data.startswith(("t:", "p:")):
                return int(button.callback_data.split(":")[2])
    return None


def hand_codes(user: FakeUser, group: FakeChat) -> list[str]:
    """The cards the user's hand message shows, as card codes."""
    suits = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
    return [c[:-1] + suits[c[-1]] for c in hand_cards(user, group)]


async def test_the_pages_follow_moves_the_timer_makes(tmp_path: Path) -> None:
    """Nobody taps: the turn timer runs out and the bot plays for whoever's turn it is
    (AFK); both pages show each of those moves, and whose turn and its countdown."""
    async with (
        chromium() as browser,
        a_table(tmp_path, ["Anna", "Boris"], turn_timeout_seconds=2) as table,
    ):
        players = [await launch(browser, u, table.group) for u in table.users]
        state = await players[0].state()
        assert state["deadline"] is not None
        turn = players[0].page.locator("#turn")
        # One read: the 2-second timer may pass the turn between two reads.
        shown = await turn.inner_text()
        assert "Your turn" in shown or "Turn: " in shown
        assert re.search(r"\d:\d\d", shown)

        async def played_for_them() -> bool:
            return len(await table.moves()) >= 3

        await table.fake.wait_for(played_for_them, timeout=60, description="timer moves")
        moves = await table.moves()
        assert len(moves) >= 3, "the timer played nothing"
        version = await table.version()
        await in_step(players, version)
        last = Action.from_json(moves[-1].move)
        for player in players:
            shown = set(await player.table_cards())
            assert {c.code() for c in last.cards} <= shown or (await player.version()) > version
            assert player.errors == []


async def test_a_refused_action_says_why_and_changes_nothing(tmp_path: Path) -> None:
    """An action the bot refuses (a stale version; a card not held) shows the bot's reason
    in the player's language with an error haptic, and nothing changes: not the page, not
    the move log, not the group."""
    async with chromium() as browser, a_table(tmp_path, ["Anna", "Boris"]) as table:
        players = [await launch(browser, u, table.group) for u in table.users]
        states = [await p.state() for p in players]
        player, state = next((p, s) for p, s in zip(players, states, strict=True) if s["actions"])
        action = state["actions"][0]
        group_before = table.group.all_texts(False)
        moves_before = len(await table.moves())

        def tamper(change: dict[str, Any]) -> Any:
            async def handler(route: Any) -> None:
                body = route.request.post_data_json
                await route.continue_(post_data=json.dumps({**body, **change}))

            return handler

        refusals = [
            ({"version": state["version"] - 1}, "The table changed while you chose"),
            ({"cards": ["6S", "7S", "8S", "9S"]}, None),
        ]
        for change, message in refusals:
            handler = tamper(change)
            await player.page.route("**/webapp/api/action", handler)
            await player.act(action)
            toast = player.page.locator("#toast")
            await toast.wait_for(state="visible")
            text = await toast.inner_text()
            if message is not None:
                assert message in text
            assert text and "error" not in text.lower()[:6]
            await player.page.unroute("**/webapp/api/action", handler)
            record = await player.tg()
            assert "notification:error" in record["haptics"]
            assert await player.version() == state["version"]
            assert await table.version() == state["version"]
            assert len(await table.moves()) == moves_before
            assert table.group.all_texts(False) == group_before
            # The cards stay chosen: the player may simply try again.
            assert sorted(await player.page.evaluate("window.burkozelTable.selection()")) == sorted(
                action["cards"] or []
            )
            await player.page.evaluate("document.getElementById('toast').hidden = true")
        await player.act(action)
        await player.wait_version(state["version"] + 1)
        assert len(await table.moves()) == moves_before + 1
        for p in players:
            assert p.errors == []


async def test_the_pages_reconnect_by_themselves_after_the_bot_restarts(tmp_path: Path) -> None:
    """The bot stops (a deploy, a crash) and starts again on the same address: the open
    pages say the connection is lost, reconnect by themselves, show moves made after the
    restart, and play on."""
    rng = random.Random(3)
    port = free_port()
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake, chromium() as browser:
        fake.enforce_limits = False
        users = [fake.add_user(n, language_code="en") for n in ("Anna", "Boris")]
        group = fake.add_group("Friends", members=users)
        async with running_bot(fake, db, **webapp_settings(port)) as app:
            table = await start_game(fake, app, group, users)
            players = [await launch(browser, u, group) for u in users]
            # (up to Anna's turn: her move after the restart is what Boris's chat then shows)
            await play_through_pages(
                table, players, rng, lambda s: len(table.played) >= 2 and s["turn"] == s["me"]
            )
        for player in players:
            await player.page.wait_for_function(
                "document.getElementById('app').dataset.live !== 'on'"
            )
        async with running_bot(fake, db, **webapp_settings(port)) as app:
            table.app = app
            for player in players:
                await player.page.wait_for_function(
                    "document.getElementById('app').dataset.live === 'on'", timeout=30_000
                )
            # The pages play on through the restarted bot...
            anna, boris_app = players
            state = await anna.state()
            assert state["turn"] == state["me"]
            while state["turn"] == state["me"]:  # (she may take the trick and lead again)
                state = await anna.play(rng)
                await in_step(players, await table.version())
                state = await anna.state()
            # ... and follow a move Boris makes in the chat (he leaves the app for it, and
            # a few seconds later his chat shows the game as it is).
            await boris_app.page.context.close()
            before = await table.version()
            await fake.wait_for(
                lambda: drawn_for(app_message(users[1], group)) == before,
                timeout=20,
                description="Boris's hand message brought up to date",
            )
            await play_one_move(fake, users[1], rng, group)
            assert await table.version() > before
            await anna.wait_version(await table.version())
            assert anna.errors == [] and boris_app.errors == []
        assert fake.invalid_requests == []


async def _screenshot(player: AppPlayer, name: str, tmp_path: Path) -> None:
    """Into docs/ when WEBAPP_SCREENSHOTS=docs (then committed), else a scratch copy."""
    import os

    where = DOCS if os.environ.get("WEBAPP_SCREENSHOTS") == "docs" else tmp_path
    await player.page.evaluate("document.getElementById('toast').hidden = true")
    await player.page.wait_for_function("document.getElementById('app').dataset.live === 'on'")
    await player.page.screenshot(path=str(where / f"webapp-{name}.png"))


async def _mid_trick(
    table: Table, players: list[AppPlayer], rng: random.Random, plays: int
) -> None:
    """Play through the pages until Anna is to answer a trick of ``plays`` plays or more
    on the table, a few tricks into the deal."""

    def ready(state: dict[str, Any]) -> bool:
        return (
            len(table.played) >= 4
            and state["turn"] == state["me"]
            and len(state["table"]) >= plays
            and not state["finished"]
        ) or next_deal(state)

    await play_through_pages(table, players, rng, ready)


async def test_screenshots_of_a_two_and_a_four_player_table(tmp_path: Path) -> None:
    """360×740, light and dark: a 2-player table (English) and a 4-player table of two
    pairs with face-down discards, two of the seats computers (Russian); a card chosen."""
    async with chromium() as browser:
        async with a_table(tmp_path / "two", ["Anna", "Boris"]) as table:
            players = [await launch(browser, u, table.group) for u in table.users]
            await _mid_trick(table, players, random.Random(11), 1)
            state = await players[0].state()
            assert state["table"], "no trick to show"
            cards = next(a["cards"] for a in state["actions"] if a["cards"])
            for theme in ("light", "dark"):
                page = await launch(browser, table.users[0], table.group, theme)
                await page.select(cards)
                await _screenshot(page, f"2p-{theme}", tmp_path)
                assert page.errors == []

        rules = {"burkozel": {"teams": "pairs", "discards": "closed"}}
        async with a_table(
            tmp_path / "four", ["Анна", "Борис"], computers=2, rules=rules, language="ru"
        ) as table:
            players = [await launch(browser, u, table.group) for u in table.users]
            await _mid_trick(table, players, random.Random(4), 2)
            state = await players[0].state()
            assert len(state["seats"]) == 4 and state["seats"][2]["partner"]
            for theme in ("light", "dark"):
                page = await launch(browser, table.users[0], table.group, theme)
                await page.wait_version(state["version"])
                chosen = [a["cards"] for a in state["actions"] if a["cards"]]
                if chosen:
                    await page.select(chosen[-1])
                await _screenshot(page, f"4p-{theme}", tmp_path)
                assert await page.page.locator(".opponents .seat.partner").count() == 1
                assert page.errors == []
            # The narrowest phone in portrait, and a desktop window: no sideways scrolling,
            # every card and action on screen.
            for size in ({"width": 320, "height": 568}, {"width": 1280, "height": 800}):
                await page.page.set_viewport_size(size)
                width = await page.page.evaluate("document.documentElement.scrollWidth")
                assert width <= size["width"], (size, width)
                for box in [
                    await e.bounding_box()
                    for e in await page.page.query_selector_all("#hand .card, #actions button")
                ]:
                    assert box is not None
                    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (size, box)


async def test_a_forged_or_expired_launch_shows_why_and_no_table(tmp_path: Path) -> None:
    """Launch data signed with another token, or older than WEBAPP_MAX_AGE: the page shows
    the bot's reason and nothing of the game."""
    async with chromium() as browser, a_table(tmp_path, ["Anna", "Boris"]) as table:
        anna = table.users[0]
        message = app_message(anna, table.group)
        assert message is not None
        url = web_app_url(message)
        user = tg_user(anna.id, anna.first_name)
        launches = {
            "forged": sign_init_data(TOKEN, user, forge=True),
            "expired": sign_init_data(TOKEN, user, auth_date=int(time.time()) - 3 * 86400),
        }
        for why, init in launches.items():
            page = await open_app(browser, f"{url}#{launch_hash(init)}")
            shown = page.locator("#message")
            await shown.wait_for(state="visible")
            await page.wait_for_function(
                "!document.getElementById('message').textContent.startsWith('Conn')"
            )
            text = await shown.inner_text()
            key = "webapp.error." + ("bad_init_data" if why == "forged" else "expired_init_data")
            # (in the user's language once the signature holds; Russian, the default, before)
            assert text in {plain(texts(language)(key)) for language in ("en", "ru")}, text
            assert await page.get_attribute("#app", "data-version") is None
            assert await page.locator("[data-card]").count() == 0
            await page.context.close()


async def test_a_page_opened_without_launch_data_says_how_to_open_it(tmp_path: Path) -> None:
    """Before any session the page has the bot's own words (the module /webapp/texts.js,
    no copy of them in the page): opened outside Telegram, it says where the table opens."""
    async with chromium() as browser, a_table(tmp_path, ["Anna", "Boris"]) as table:
        message = app_message(table.users[0], table.group)
        assert message is not None
        url = web_app_url(message)
        assert url is not None
        page = await open_app(browser, url.split("?")[0])
        shown = page.locator("#message")
        await shown.wait_for(state="visible")
        text = await shown.inner_text()
        assert text in {plain(texts(language)("webapp.no_launch")) for language in ("en", "ru")}
        assert await page.locator("[data-card]").count() == 0
        await page.context.close()


# --- the table opened from the group ----------------------------------------------------


async def test_an_onlooker_follows_a_whole_deal_from_the_group_and_sees_only_what_the_group_sees(
    tmp_path: Path,
) -> None:
    """Zoë, in the group but not playing, taps «🃏 Table» under the group's table: the page
    shows every seat across the top (names as text), no hand and no action, «You are
    watching», and follows a whole deal with closed discards (B1) live as Anna and Boris
    play it in their pages. No card hidden from the group is ever in her page, and her
    chat gets nothing. Boris opens the same button and gets his own seat."""
    rng = random.Random(36)
    names = ["Anna", "Boris <b>&amp;</b>"]
    rules = {"burkozel": {"discards": "closed"}}
    async with chromium() as browser, a_table(tmp_path, names, rules=rules) as table:
        zoe = table.fake.add_user("Zoë <i>&</i> 🎲", language_code="en")
        table.group.members.append(zoe)
        onlooker = await launch_from_group(browser, zoe, table.group)
        state = await onlooker.state()
        assert state["watching"] and state["me"] is None and state["hand"] == []
        assert await onlooker.page.get_attribute("#app", "data-watching") == "1"
        assert await onlooker.page.inner_text("#watching") == "You are watching"
        shown = await onlooker.page.eval_on_selector_all(
            ".opponents .seat .name", "els => els.map(e => e.textContent)"
        )
        assert shown == names
        assert await onlooker.page.locator("#hand [data-card], #actions button").count() == 0
        assert not (await onlooker.tg())["main"]["visible"]

        boris = await launch_from_group(browser, table.users[1], table.group)
        mine = await boris.state()
        assert (mine["me"], mine["watching"]) == (1, False) and len(mine["hand"]) == 4
        assert sorted(await boris.hand()) == sorted(hand_codes(table.users[1], table.group))
        await boris.page.context.close()

        players = [await launch(browser, u, table.group) for u in table.users]
        checked = 0
        face_down = 0
        assert table.app.service is not None

        def deal_over(state: dict[str, Any]) -> bool:
            return next_deal(state)

        moves = 0
        while True:
            version = await table.version()
            await in_step([*players, onlooker], version)
            watched = await onlooker.state()
            if deal_over(watched):
                break
            # Every card on her page is one the group sees (nothing else moves meanwhile).
            on_page = await onlooker.page.eval_on_selector_all(
                "[data-card]", "els => els.map(e => e.dataset.card)"
            )
            hidden = hidden_cards(table.app.service, table.game_id, PUBLIC)
            assert not set(on_page) & hidden, (set(on_page) & hidden, watched)
            face_down += await onlooker.page.locator("#plays [data-back]").count()
            checked += 1
            assert await onlooker.page.locator("#hand [data-card], #actions button").count() == 0
            states = [await p.state() for p in players]
            movers = [(p, s) for p, s in zip(players, states, strict=True) if s["actions"]]
            player, s = next(((p, s) for p, s in movers if s["turn"] == s["me"]), movers[0])
            discards = [a for a in s["actions"] if a["kind"] == "d"]
            action = rng.choice(discards if discards and rng.random() < 0.6 else s["actions"])
            await player.act(action)
            await player.wait_version(s["version"] + 1)
            moves += 1
            assert moves < 300
        assert checked == moves and face_down > 0
        watched = await onlooker.state()
        assert watched["notes"], "her page does not show the deal's result"
        assert watched["notes"][0].splitlines()[1] in await onlooker.page.inner_text("#notes")
        assert [r for r in table.fake.requests if str(r.params.get("chat_id")) == str(zoe.id)] == []
        for page in [*players, onlooker]:
            assert page.errors == []


async def test_an_altered_start_parameter_shows_why_and_no_table(tmp_path: Path) -> None:
    """Someone edits the «🃏 Table» link's start parameter (another game's number, one
    character changed): the page says the link is not valid and shows nothing of a game."""
    async with chromium() as browser, a_table(tmp_path, ["Anna", "Boris"]) as table:
        zoe = table.fake.add_user("Zoë", language_code="en")
        table.group.members.append(zoe)
        message = await table.fake.wait_for(lambda: table_message(table.group, "🃏 Table"))
        link = message.find_button(text="🃏 Table").url
        assert link is not None
        start = link.split("startapp=")[1]
        for altered in (start[:-1] + ("A" if start[-1] != "A" else "B"), "g2" + start[2:]):
            opened = zoe.open_mini_app(link.replace(start, altered), table.group)
            page = await open_app(browser, opened.url + "#" + launch_hash(opened.init_data))
            shown = page.locator("#message")
            await page.wait_for_function(
                "document.getElementById('message').textContent.startsWith('This link')"
            )
            assert await shown.inner_text() == plain(texts("en")("webapp.error.bad_start"))
            assert await page.get_attribute("#app", "data-version") is None
            assert await page.locator("[data-card]").count() == 0
            assert page.js_errors == []
            await page.context.close()


async def test_the_page_asks_telegram_for_what_a_card_table_needs(tmp_path: Path) -> None:
    """On a client that has them: no vertical swipes (dragging over cards must not pull the
    app down), the BackButton, full screen on request inside the safe areas, closing
    confirmation and a haptic while it is your turn; minimised, the live stream closes,
    and on return the page catches up with the moves made meanwhile. An old client (6.0)
    is asked for none of the newer ones, and the page works there too."""
    async with chromium() as browser, a_table(tmp_path, ["Anna", "Boris"]) as table:
        players = [await launch(browser, u, table.group) for u in table.users]
        states = [await p.state() for p in players]
        mover = next(i for i, s in enumerate(states) if s["turn"] == s["me"])
        me, other = players[mover], players[1 - mover]
        record = await me.tg()
        assert record["verticalSwipes"] is False
        assert record["backButton"]["visible"]
        assert record["closingConfirmation"] is True  # her turn: Telegram asks before closing
        assert "notification:warning" in record["haptics"]  # «your turn»
        assert (await other.tg())["closingConfirmation"] is False
        assert "notification:warning" not in (await other.tg())["haptics"]

        # Full screen on request: the table moves below the status bar and Telegram's buttons.
        before = await me.page.evaluate(
            "getComputedStyle(document.getElementById('app')).paddingTop"
        )
        await me.page.click("#full")
        assert (await me.tg())["fullscreen"] is True
        padding = await me.page.evaluate(
            "getComputedStyle(document.getElementById('app')).paddingTop"
        )
        assert (before, padding) == ("6px", f"{6 + 24 + 46}px")
        assert await me.page.get_attribute("#app", "data-full") == "1"
        # BackButton: out of full screen first, then out of the app.
        assert await me.page.evaluate("window.__tg.tapBack()")
        assert (await me.tg())["fullscreen"] is False
        assert (
            await me.page.evaluate("getComputedStyle(document.getElementById('app')).paddingTop")
            == "6px"
        )

        # She plays: no longer her turn, the confirmation is off; his turn: on for him.
        state = await me.state()
        await me.play(random.Random(1))
        await other.wait_version(state["version"] + 1)
        if (await other.state())["turn"] == (await other.state())["me"]:
            assert (await other.tg())["closingConfirmation"] is True
            assert (await me.tg())["closingConfirmation"] is False

        # Minimised: the stream closes; a move meanwhile; back: caught up, stream open again.
        await other.page.evaluate("window.__tg.fire('deactivated')")
        assert await other.page.evaluate("window.burkozelTable.live()") == -1
        assert await other.page.get_attribute("#app", "data-live") == "paused"
        paused_at = await other.version()
        moved = await table.version()
        while await table.version() == moved:  # whoever may move, moves (by the page)
            mover_page = me if (await me.state())["actions"] else None
            if mover_page is None:
                await play_one_move(
                    table.fake, table.users[1 - mover], random.Random(2), table.group
                )
            else:
                await me.play(random.Random(2))
        await asyncio.sleep(0.5)
        assert await other.version() == paused_at  # nothing reached the minimised page
        await other.page.evaluate("window.__tg.fire('activated')")
        await other.wait_version(await table.version())
        await other.page.wait_for_function("document.getElementById('app').dataset.live === 'on'")

        assert await me.page.evaluate("window.__tg.tapBack()")
        assert (await me.tg())["closed"] is True
        for page in players:
            assert page.errors == []

        # An old client: none of the newer methods asked for (they would throw), no ⛶.
        old = table.users[0]
        message = app_message(old, table.group)
        assert message is not None
        url = web_app_url(message)
        init = sign_init_data(TOKEN, tg_user(old.id, old.first_name))
        page = await open_app(browser, f"{url}#{launch_hash(init, version='6.0')}")
        legacy = AppPlayer(page, "old")
        await legacy.wait_version(0)
        assert await page.locator("#full").is_hidden()
        assert (await legacy.tg())["verticalSwipes"] is True
        assert legacy.errors == []


async def test_screenshots_of_an_onlooker_and_of_the_full_screen_table(tmp_path: Path) -> None:
    """360×740, light and dark, in Russian: a 3-player Burkozel with closed discards (B1)
    mid-trick as Зоя, an onlooker, sees it from the group (every seat across the top, a
    face-down discard as a card back, no hand); and Анна's own seat in full screen, kept
    below the phone's status bar and Telegram's buttons (the safe-area insets)."""
    names = ["Анна", "Борис <b>&amp;</b>", "Вера 🎲"]
    rules = {"burkozel": {"discards": "closed"}}
    async with (
        chromium() as browser,
        a_table(tmp_path, names, rules=rules, language="ru") as table,
    ):
        players = [await launch(browser, u, table.group) for u in table.users]
        await _mid_trick(table, players, random.Random(8), 2)
        state = await players[0].state()
        assert len(state["table"]) >= 2, "no trick to show"
        zoe = table.fake.add_user("Зоя & 🎲", language_code="ru")
        table.group.members.append(zoe)
        for theme in ("light", "dark"):
            page = await launch_from_group(browser, zoe, table.group, theme, "🃏 Стол")
            await page.wait_version(state["version"])
            assert await page.page.inner_text("#watching") == "Вы смотрите"
            assert await page.page.locator(".opponents .seat").count() == 3
            await _screenshot(page, f"watch-{theme}", tmp_path)
            assert page.errors == []
        chosen = [a["cards"] for a in state["actions"] if a["cards"]]
        for theme in ("light", "dark"):
            page = await launch(browser, table.users[0], table.group, theme)
            await page.wait_version(state["version"])
            await page.page.click("#full")
            assert (await page.tg())["fullscreen"] is True
            if chosen:
                await page.select(chosen[0])
            top = await page.page.evaluate(
                "document.querySelector('.bar').getBoundingClientRect().top"
            )
            assert top >= 24 + 46, top  # below the status bar and Telegram's buttons
            await _screenshot(page, f"fullscreen-{theme}", tmp_path)
            assert page.errors == []
