"""Issue 27 item 7, end to end: every group command is answered within a few seconds.

An answer to a command goes before the game's pending table edits in its group (a later
table edit replaces an earlier one, so holding it back loses nothing); past the group's
share of answers (bot/chatter.py) the answer comes in the asker's private chat, buttons
and all, with a short pointer in the group.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from bot.delivery import Limits
from tests.e2e.harness import open_game, play_one_move, running_bot, new_fake
from tests.e2e.test_reliability import drained
from tests.fake_telegram import FakeChat, FakeMessage

TITLE = "Пики & Трефы <3 🃏"

# The group is paced at one message a second (Telegram's real pace is one in three), the
# private chats are not: a game's table edits keep the group's queue full.
SLOW_GROUP = Limits(
    group_capacity=1,
    group_rate=1,
    private_capacity=1000,
    private_rate=1000,
    global_capacity=1000,
    global_rate=1000,
)


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
