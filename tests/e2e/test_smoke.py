from __future__ import annotations

import asyncio
import logging
import random
import warnings
from pathlib import Path

import pytest

from bot import metrics
from tests.support.harness import hand_message, new_fake, play_one_move, running_bot, whose_turn


async def test_two_players_can_open_join_start_and_play(tmp_path: Path) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice", language_code="en")
        bob = fake.add_user("Bob", language_code="en")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            await alice.start_bot()
            await bob.start_bot()
            await alice.send(group, "/newgame")
            lobby = await fake.wait_for(lambda: group.last_bot_message(), description="lobby")
            await (await bob.tap(lobby, "✋ Join")).wait()
            await fake.wait_for(lambda: "Bob" in lobby.text)
            await (await alice.tap(lobby, "▶️ Start")).wait()
            await fake.wait_for(lambda: hand_message(alice) and hand_message(bob))
            rng = random.Random(1)
            for _ in range(6):
                mover = await fake.wait_for(lambda: whose_turn([alice, bob]))
                await play_one_move(fake, mover, rng)
            # Commands are registered for groups and private chats, in both languages.
            group_en = {c["command"] for c in fake.get_commands("all_group_chats", "en")}
            assert {"newgame", "join", "score", "cancel", "language"} <= group_en
            ru = fake.get_commands("default", "ru")
            assert any("правила" in c["description"] for c in ru)
        assert fake.invalid_requests == []


async def test_language_switches_the_chat_to_english_and_back(tmp_path: Path) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice", language_code="ru")
        group = fake.add_group("Друзья", members=[alice])
        async with running_bot(fake, tmp_path / "bot.sqlite3", default_language="ru"):
            await alice.send(group, "/language")
            menu = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if "English" in m.button_texts), None)
            )
            assert menu.button_texts == ["Русский", "English"]
            await (await alice.tap(menu, "English")).wait()
            await alice.send(group, "/help")
            await fake.wait_for(
                lambda: any("Commands" in (m.text or "") for m in group.bot_messages())
            )
            await (await alice.tap(menu, "Русский")).wait()
            await alice.send(group, "/help")
            await fake.wait_for(
                lambda: any("Команды" in (m.text or "") for m in group.bot_messages())
            )
        assert fake.invalid_requests == []


async def test_a_chats_updates_are_answered_in_the_order_they_were_sent(tmp_path: Path) -> None:
    """Commands sent in a burst (Start, then at once /help and /rules) get their answers in
    that order, in a private chat as in a group; polling hands each update to a task of
    its own, and /start writes to the database before it answers."""
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <b>&", language_code="en")
        bob = fake.add_user("Bob", language_code="en")
        group = fake.add_group("Friends & <co>", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            # Two commands: within a group's share of answers (bot/delivery/chatter.py).
            await bob.send(group, "/rules")
            await bob.send(group, "/help")
            for _ in range(3):
                await alice.start_bot()
                await alice.send(alice.dm, "/help")
                await alice.send(alice.dm, "/rules")
            await fake.wait_for(lambda: len(alice.dm.bot_messages()) == 9)
            await fake.wait_for(lambda: len(group.bot_messages()) == 2)
            private = [m.text or "" for m in alice.dm.bot_messages()]
            public = [m.text or "" for m in group.bot_messages()]
            help_text, rules_text = private[1], private[2]
            assert "/newgame" in help_text and "Burkozel" in rules_text
            assert all(t not in (help_text, rules_text) for t in private[::3])  # greetings
            assert private[1::3] == [help_text] * 3 and private[2::3] == [rules_text] * 3
            assert "Burkozel" in public[0] and "/newgame" in public[1]
        assert fake.invalid_requests == []


async def test_a_private_message_the_bot_does_not_take_gets_a_pointer_not_silence(
    tmp_path: Path,
) -> None:
    """Text or an unknown command in the private chat is answered with what the bot does
    answer (in the user's language); the commands still work there, and a group's own
    chatter gets no answer."""
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <b>&", language_code="en")
        boris = fake.add_user("Борис 😀", language_code="ru")
        group = fake.add_group("Друзья & <co>", members=[alice, boris])
        async with running_bot(fake, tmp_path / "bot.sqlite3", default_language="ru"):
            await alice.start_bot()
            await boris.start_bot()
            await alice.send(alice.dm, "hi! how do I play?")
            await alice.send(alice.dm, "/frobnicate")
            await boris.send(boris.dm, "привет")
            await alice.send(alice.dm, "/stats")
            await alice.send(group, "good game, everyone")
            await alice.send(group, "/frobnicate")
            await boris.send(group, "/help")  # a command the group does answer
            await fake.wait_for(lambda: len(group.bot_messages()) == 1)
            await fake.wait_for(lambda: len(alice.dm.bot_messages()) == 4)
            await fake.wait_for(lambda: len(boris.dm.bot_messages()) == 2)
            said = [m.text or "" for m in alice.dm.bot_messages()[1:]]
            assert said[0] == said[1]
            assert (
                said[0].startswith("I don’t understand that: I answer my buttons and commands")
                and "/newgame" in said[0]
            )
            assert "Alice <b>&" in said[2]  # /stats still answered, not the pointer
            assert (boris.dm.bot_messages()[1].text or "").startswith(
                "Этого я не понимаю: я отвечаю на свои кнопки"
            )
            assert "/newgame" in (group.bot_messages()[0].text or "")
            await asyncio.sleep(0.5)  # nothing more comes to the group
            assert len(group.bot_messages()) == 1
        assert fake.invalid_requests == []


async def test_an_update_of_a_kind_the_bot_does_not_know_is_counted_and_passed_over(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram adds update kinds over time: one that aiogram cannot name is counted as
    "other" and passed over quietly (no traceback, no warning quoting the update), and the
    next update is served as usual."""
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice", language_code="en")
        others_before = metrics.UPDATES.labels("other")._value.get()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            async with running_bot(fake, tmp_path / "bot.sqlite3"):
                await alice.start_bot()
                fake.future_update("hologram_call", {"text": "<b>hello</b>", "chat": {"id": 7}})
                await alice.send(alice.dm, "/help")
                await fake.wait_for(
                    lambda: any("Commands" in (m.text or "") for m in alice.dm.bot_messages())
                )
                await fake.wait_updates_confirmed()
        assert metrics.UPDATES.labels("other")._value.get() == others_before + 1
        assert not [w for w in caught if "update type" in str(w.message)]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
