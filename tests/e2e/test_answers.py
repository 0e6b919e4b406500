"""End to end: every group command is answered within a few seconds.

An answer to a command goes before the game's pending table edits in its group (a later
table edit replaces an earlier one, so holding it back loses nothing); past the group's
share of answers (bot/delivery/chatter.py) the answer comes in the asker's private chat, buttons
and all, with a short pointer in the group.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

from bot.delivery.chatter import ChatterLimit
from bot.delivery.worker import Limits
from storage import Seat, Storage
from tests.support.fake_telegram import FakeChat, FakeMessage
from tests.support.harness import (
    SLOW_GROUP,
    drained,
    menu_of,
    new_fake,
    open_game,
    play_one_move,
    running_bot,
)
from tests.support.stats import engine_deals, play_series

TITLE = "Пики & Трефы <3 🃏"


def table_edits_between(group: FakeChat, start: float, end: float) -> int:
    """How many times the bot changed one of its group messages in (start, end)."""
    return sum(
        start < version.time < end
        for message in group.bot_messages()
        for version in message.history[1:]
    )


async def test_a_command_during_play_is_answered_before_the_next_table_edits(
    tmp_path: Path,
) -> None:
    """Bug: the game's messages went first, so while a game kept its table busy an answer
    waited until play paused (/resetstats was answered after 42-45 s)."""
    rng = random.Random(27)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <b>&")
        group = fake.add_group(TITLE, members=[alice])
        group.admins.add(alice.id)
        async with running_bot(fake, tmp_path / "bot.sqlite3", limits=SLOW_GROUP) as app:
            lobby = await open_game(fake, group, [alice], start=False)
            await (await alice.tap(lobby, "🤖 + easy")).wait()
            await (await alice.tap(lobby, "🤖 + easy")).wait()
            await fake.wait_for(lambda: "Computer 2" in lobby.text)
            await (await alice.tap(lobby, "▶️ Start")).wait()
            await fake.wait_for(lambda: drained(app), timeout=20)
            asked = time.monotonic()
            await alice.send(group, "/resetstats")

            def answer() -> FakeMessage | None:
                found = group.bot_messages_containing("Reset this chat's ratings")
                return found[0] if found else None

            # Alice and the computers keep playing: the table always has an edit to send.
            while answer() is None and table_edits_between(group, asked, time.monotonic()) < 3:
                await play_one_move(fake, alice, rng, group)
            question = answer()
            assert question is not None, "the answer waited behind three table edits"
            assert table_edits_between(group, asked, question.history[0].time) <= 1
            assert question.has_button("🗑 Yes, reset")
        assert fake.invalid_requests == []


async def test_past_the_groups_share_answers_come_privately_with_working_buttons(
    tmp_path: Path,
) -> None:
    """Bug: past the group's share an answer with buttons (/history, /resetstats) was sent
    nowhere. Now it comes in the asker's private chat, its buttons act on the group there
    (only for its members; a reset only for its admins), and the group gets a pointer."""
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        alice = fake.add_user("Alice <b>&")
        bob, carol = fake.add_user("Bob 😀"), fake.add_user("Carol")
        dave = fake.add_user("Dave")  # not in the group
        group = fake.add_group(TITLE, members=[alice, bob, carol])
        group.admins.add(alice.id)
        storage = await Storage.open(db)
        try:
            seats = (Seat(0, alice.id, None, alice.first_name), Seat(1, bob.id, None, "Bob 😀"))
            game_id = await play_series(storage, seats, engine_deals(2, 27), chat=group.id)
            await storage.upsert_chat(group.id, TITLE)
        finally:
            await storage.close()
        # Telegram's pace and limits (the fake enforces them).
        async with running_bot(fake, db, limits=Limits()) as app:
            assert app.service is not None
            now = [0.0]
            # The group's share, once spent, stays spent through this test; the pointers'
            # pace is the real one, on this clock.
            app.service.chatter = ChatterLimit(refill=3600.0, clock=lambda: now[0])
            for user in (alice, bob, dave):
                await user.start_bot()
            for command in ("/help", "/rules", "/top"):  # the group's share
                await bob.send(group, command)
            await fake.wait_for(lambda: len(group.bot_messages()) == 3)

            asked = await bob.send(group, "/history")
            listed = await fake.wait_for(
                lambda: next(iter(bob.dm.bot_messages_containing("The last 1 series")), None)
            )
            assert listed.text.startswith(f"📬 Answer to /history in «{TITLE}»:\n\n")
            pointer = await fake.wait_for(
                lambda: len(group.bot_messages()) == 4 and group.bot_messages()[-1]
            )
            assert pointer.text == "📬 The group is busy, so I answered you in our private chat."
            assert pointer.reply_to is asked
            # The record comes where the button was tapped.
            answer = await (await bob.tap(listed, "📄 1")).wait()
            assert not answer.show_alert, answer.text
            record = await fake.wait_for(
                lambda: next((m for m in bob.dm.bot_messages() if m.document), None)
            )
            assert json.loads(record.document[1])["deals"]
            # Someone not in the group cannot fetch its records by forging the button.
            answer = await (await dave.tap_raw(dave.dm.bot_messages()[-1], f"h:{game_id}")).wait()
            assert answer.text == "This button is not valid."
            assert not any(m.document for m in dave.dm.bot_messages())

            # An admin's /resetstats: the question comes privately (one pointer a while is
            # enough for the group); there only that group's admins may answer it.
            await alice.send(group, "/resetstats")
            question = await fake.wait_for(
                lambda: next(iter(alice.dm.bot_messages_containing("Reset this chat's")), None)
            )
            assert question.text.startswith(f"📬 Answer to /resetstats in «{TITLE}»:\n\n")
            yes = question.find_button("🗑 Yes, reset")
            assert yes is not None and yes.callback_data is not None
            answer = await (await bob.tap_raw(listed, yes.callback_data)).wait()
            assert answer.show_alert and answer.text == "Only chat administrators can do that."
            assert await app.service.storage.ratings(group.id) != []
            answer = await (await alice.tap(question, "🗑 Yes, reset")).wait()
            assert "start again" in answer.text
            await fake.wait_for(lambda: alice.dm.bot_messages_containing("start again"))
            assert await app.service.storage.ratings(group.id) == []
            assert question.deleted
            assert len(group.bot_messages()) == 4

            # The settings menu works there too, for the group's admins, edited in place.
            await alice.send(group, "/settings")
            menu = await menu_of(fake, alice.dm, "Chat settings")
            assert menu.text.startswith(f"📬 Answer to /settings in «{TITLE}»:\n\n")
            pairs = menu.find_button("2×2 pairs")
            assert pairs is not None and pairs.callback_data is not None
            answer = await (await bob.tap_raw(listed, pairs.callback_data)).wait()
            assert answer.text == "Only chat administrators can do that."
            await (await alice.tap(menu, "2×2 pairs")).wait()
            await fake.wait_for(lambda: "Preset: 2×2 pairs" in menu.text)
            assert f"«{TITLE}»" in menu.text
            assert (await app.service.storage.get_chat(group.id)).rules["burkozel"] == {
                "teams": "pairs",
                "combinations": "on",
            }
            # And /language, for anyone in the group.
            await bob.send(group, "/language")
            languages = await menu_of(fake, bob.dm, "Choose the bot's language")
            answer = await (
                await dave.tap_raw(
                    dave.dm.bot_messages()[-1], languages.buttons[0][1].callback_data or ""
                )
            ).wait()
            assert answer.text == "This button is not valid."
            answer = await (await bob.tap(languages, "Русский")).wait()
            assert answer.text == "Язык: русский."
            assert await app.service.language_of(group.id) == "ru"
            assert len(group.bot_messages()) == 4  # one pointer a while

            # Someone with no private chat with the bot gets a link to open one.
            now[0] += 60
            await carol.send(group, "/top")
            pointer = await fake.wait_for(
                lambda: len(group.bot_messages()) == 5 and group.bot_messages()[-1]
            )
            assert pointer.text == (
                "📬 Группа занята, поэтому я отвечаю в личке. Откройте чат со мной и спросите"
                f" снова: https://t.me/{fake.bot_username}?start=hi"
            )
            assert carol.dm.bot_messages() == []
        assert fake.invalid_requests == []
        assert fake.flood_violations == []


async def test_a_refusal_too_late_to_answer_fails_nothing_and_the_bot_answers_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A refused tap whose answer comes after Telegram's deadline (a tap that waited out a
    restart): the failed answer is logged as a warning, not as a failed update, and the
    next tap is answered as usual."""
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice <b>&"), fake.add_user("Bob 🃏")
        group = fake.add_group(TITLE, members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            lobby = await open_game(fake, group, [alice], start=False)
            fake.callback_answer_timeout = -1.0  # every answer is too late
            await bob.start_bot()
            late = await bob.tap(lobby, "▶️ Start")  # refused: Bob is not seated
            await fake.wait_for(
                lambda: any("could not answer" in r.message for r in caplog.records)
            )
            assert not late.answered
            fake.callback_answer_timeout = 15.0
            answer = await (await bob.tap(lobby, "▶️ Start")).wait()
            assert answer.show_alert and answer.text
        assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text
