"""A game against computers in the private chat: the greeting, the choice menu, whole
series of both games in both languages with a name holding ``<``, ``&`` and emoji, a
restart mid-game, one Telegram operation per change there, and forged or stale buttons.

The player taps the buttons of the game's one message (no text is read to play, so the
same driver plays in Russian and English); whose turn it is comes from storage."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
from PIL import Image

from engine.registry import replay_json
from storage import Storage
from tests.support.fake_telegram import FakeMessage, FakeTelegram, FakeUser
from tests.support.harness import free_port, new_fake, running_bot
from tests.support.solo import OPERATIONS, Player, choose, open_menu, play, play_moves
from tests.support.webapp import AppPlayer

NAME = "Al <&> 🂡 ice"


@contextlib.asynccontextmanager
async def bot(fake: FakeTelegram, db: Path, **settings: Any) -> AsyncIterator[None]:
    async with running_bot(
        fake, db, default_language="ru", computer_pause_seconds=0.02, **settings
    ):
        yield


async def whole_series(
    tmp_path: Path, language: str, rules_label: str, level: str, seed: int
) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        user = fake.add_user(NAME, language_code=language)
        player = Player(fake, user, db)
        rng = random.Random(seed)
        async with bot(fake, db):
            menu = await open_menu(fake, user)
            await choose(fake, user, menu, rules_label)
            await choose(fake, user, menu, level)
            operations = player.operations()
            await play(player, menu)
            await play_moves(player, rng, moves=3)
            # A restart mid-game: the game goes on from where it was, nothing lost.
            before = await player.record()
            version = (await player.game()).version
        async with bot(fake, db):
            after = await player.record()
            assert [d["moves"] for d in after["deals"]][: len(before["deals"])][:-1] == [
                d["moves"] for d in before["deals"]
            ][:-1]
            assert (
                after["deals"][len(before["deals"]) - 1]["moves"][
                    : len(before["deals"][-1]["moves"])
                ]
                == before["deals"][-1]["moves"]
            )
            assert (await player.game()).version >= version
            await play_moves(player, rng)
            game = await player.game()
            assert game.status == "finished"
            result = await fake.wait_for(
                lambda: next((m for m in user.dm.bot_messages() if m.photo), None),
                description="the result picture",
            )
            assert isinstance(result, FakeMessage)
            spent = player.operations() - operations
            record = await player.record()
            logged = sum(len(d["moves"]) for d in record["deals"])
            # Every change costs the chat one operation at most: each move (the
            # computers' too) one edit, each tap that is not a move (a card selected, a
            # refusal's redraw, ▶️ Play) one at most, and the series one picture.
            human = sum(1 for d in record["deals"] for m in d["moves"] if m.get("seat") == 0)
            # The restart mid-game may redraw the message once, and an edit in flight
            # when the bot stopped may go again after it (seen under load: one or two).
            restart = 2
            assert spent <= logged + (player.taps - human) + 1 + restart, (
                spent,
                logged,
                player.taps,
                [
                    (r.method, r.status, (r.params.get("text") or "")[:40])
                    for r in fake.requests
                    if r.method in OPERATIONS and str(r.params.get("chat_id")) == str(user.id)
                ][-40:],
            )
            assert Image.open(io.BytesIO(result.photo)).format == "PNG"
            assert NAME in result.text  # the caption, unescaped by Telegram
            report = replay_json(record)
            assert report["finished"] and report["winners"] == list(game.winners or ())
            final = await player.message()
            assert NAME in final.text and not final.buttons
            # Its reader's own face-down discards show on the last deal's record (B1, D3).
            assert f"{NAME}: discards 🂠" not in final.text
            assert f"{NAME}: сброс 🂠" not in final.text
            await check_commands(fake, user, language, result)
        assert fake.invalid_requests == [] and fake.unsupported_requests == []


async def check_commands(
    fake: FakeTelegram, user: FakeUser, language: str, result: FakeMessage
) -> None:
    """/score, /history, /export and /stats in the private chat after a series."""
    words = {
        "en": ("This chat's record", "The last 1 series", "against computers"),
        "ru": ("Итоги этого чата", "Последние серии: 1", "с компьютерами"),
    }[language]

    async def ask(command: str, needle: str) -> FakeMessage:
        count = len(user.dm.messages)
        await user.send_dm(command)
        found = await fake.wait_for(
            lambda: next(
                (m for m in user.dm.messages[count:] if m.is_from_bot and needle in (m.text or "")),
                None,
            ),
            description=f"the answer to {command}",
        )
        assert isinstance(found, FakeMessage)
        return found

    score = await ask("/score", words[0])
    assert NAME in score.text
    history = await ask("/history", words[1])
    assert NAME in history.text
    # Its button sends the record here, in the player's own chat.
    documents = len([m for m in user.dm.bot_messages() if m.document])
    answer = await (await user.tap(history, index=(0, 0))).wait()
    assert not answer.show_alert, answer.text
    await user.send_dm("/export")
    await fake.wait_for(
        lambda: len([m for m in user.dm.bot_messages() if m.document]) == documents + 2,
        description="two records",
    )
    stats = await ask("/stats", words[2])
    assert NAME in stats.text
    # «Again»: a new series starts at once, as a new message.
    again = result.buttons[0][0]
    count = len(user.dm.messages)
    answer = await (await user.tap(result, data=again.callback_data)).wait()
    assert not answer.show_alert, answer.text
    await fake.wait_for(
        lambda: any(m.buttons for m in user.dm.messages[count:] if m.is_from_bot),
        description="the next series' deal",
    )


async def test_a_whole_burkozel_series_against_three_computers_in_english(
    tmp_path: Path,
) -> None:
    await whole_series(tmp_path, "en", "Home Burkozel", "easy", seed=1)


async def test_a_whole_bura_series_against_three_computers_in_russian(tmp_path: Path) -> None:
    await whole_series(tmp_path, "ru", "Классическая бура", "лёгкий", seed=2)


async def test_forged_and_stale_buttons_and_a_second_game_get_clear_answers(
    tmp_path: Path,
) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        user = fake.add_user(NAME, language_code="en")
        bob = fake.add_user("Bob")
        group = fake.add_group("Friends", members=[user, bob])
        player = Player(fake, user, db)
        async with bot(fake, db):
            menu = await open_menu(fake, user)

            async def refused(who: FakeUser, message: FakeMessage, data: str) -> str:
                answer = await (await who.tap_raw(message, data)).wait()
                assert answer.show_alert, (data, answer.text)
                return answer.text or ""

            # Choices the menu never offers, and a menu button tapped outside its chat.
            forged = "This button is not valid."
            for data in (
                "so:no_such_rules:3:normal:go",
                "so:classic_bura:7:normal:set",
                "so:classic_bura:3:grandmaster:go",
                "so:classic_bura:3:normal:explode",
            ):
                assert await refused(user, menu, data) == forged
            assert await refused(user, menu, "so:pairs:1:easy:go") == (
                "Pairs (B5) play two against two: choose three computer players."
            )
            in_group = await user.send(group, "hello")  # answered in the group's language
            assert await refused(user, in_group, "so:classic_bura:3:normal:go") == (
                "Эта кнопка недействительна."
            )
            assert not await player_games(db)  # nothing was created

            await play(player, menu)
            first = (await player.game()).version
            old = next(b.callback_data for row in menu.buttons for b in row if b.callback_data)
            await play_moves(player, random.Random(3), moves=1)
            # A button of an older drawing of the game's message: out of date, and the
            # message already shows the current one.
            assert f":{first}:" in old
            assert await refused(user, menu, old) == (
                "This button is out of date; the keyboard you see now is the current one."
            )
            # Someone else's tap on this game's data (a forged button in their own chat).
            bobs = await bob.start_bot()
            assert await refused(bob, bobs, old) == "You are not playing in this game."
            # A second game in the same private chat: one at a time.
            count = len(user.dm.messages)
            await user.send_dm("/newgame")
            second = await fake.wait_for(
                lambda: next(
                    (m for m in user.dm.messages[count:] if m.is_from_bot and m.buttons), None
                ),
                description="a second menu",
            )
            assert isinstance(second, FakeMessage)
            text = await refused(user, second, second.buttons[-1][0].callback_data or "")
            assert "already" in text and "/cancel" in text
            # /cancel there ends it, after a question.
            count = len(user.dm.messages)
            await user.send_dm("/cancel")
            question = await fake.wait_for(
                lambda: next(
                    (m for m in user.dm.messages[count:] if "Yes, end the game" in m.button_texts),
                    None,
                ),
                description="the /cancel question",
            )
            assert isinstance(question, FakeMessage)
            await (await user.tap(question, "Yes, end the game")).wait()
            await fake.wait_for(
                lambda: not menu.buttons and "cancelled" in menu.text.lower(),
                description="the game's message showing the end",
            )
            assert (await player.game()).status == "cancelled"
        assert fake.invalid_requests == [] and fake.unsupported_requests == []


async def player_games(db: Path) -> list[Any]:
    storage = await Storage.open(db)
    try:
        return [g for g in [await storage.get_game(1)] if g is not None]
    finally:
        await storage.close()


async def test_the_mini_app_opens_from_the_private_game_and_then_moves_cost_the_chat_nothing(
    tmp_path: Path,
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        user = fake.add_user(NAME, language_code="en")
        player = Player(fake, user, db)
        async with (
            bot(fake, db, webapp_url=base, webapp_listen=f"127.0.0.1:{port}"),
            aiohttp.ClientSession() as http,
        ):
            menu = await open_menu(fake, user)
            await play(player, menu)
            opener = next(b.raw for row in menu.buttons for b in row if "web_app" in b.raw)
            assert opener["text"] == "🃏 Open table"
            assert opener["web_app"]["url"] == f"{base}/webapp/?game={player.game_id}"
            app = AppPlayer(http, base, fake, user)
            await app.open(player.game_id)
            await asyncio.sleep(0.3)  # what was queued before the app opened goes out
            since = len(fake.requests)
            rng = random.Random(4)
            moves = 0
            while moves < 6 and not app.latest["finished"]:
                state = app.latest
                if state["turn"] == state["me"] and state["actions"]:
                    answer = await app.act(rng.choice(state["actions"]))
                    assert answer["version"] > state["version"]
                    moves += 1
                await fake.wait_for(
                    lambda v=state["version"]: app.latest["version"] > v,
                    timeout=30,
                    description="the live state after the next move",
                )
            # The computers' moves and the player's: the app shows them, the chat is left
            # alone while the app is open.
            assert [
                r
                for r in fake.requests[since:]
                if r.method in OPERATIONS and str(r.params.get("chat_id")) == str(user.id)
            ] == []
            version = app.latest["version"]
            await app.close()
            # Back in the chat: its game message is brought up to date.
            await fake.wait_for(
                lambda: drawn_at(menu) >= version or not menu.buttons,
                timeout=30,
                description="the game's message brought up to date",
            )
        assert fake.invalid_requests == []


def drawn_at(message: FakeMessage) -> int:
    """The game version a game message's keyboard was drawn for (0: none)."""
    found = re.search(r'"t:\d+:(\d+):', json.dumps(message.reply_markup))
    return int(found.group(1)) if found else 0
