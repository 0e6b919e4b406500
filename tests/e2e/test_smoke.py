from __future__ import annotations

import random
from pathlib import Path

from tests.e2e.harness import hand_message, new_fake, play_one_move, running_bot, whose_turn


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
