"""One game per forum topic, and one player in several games at once."""

from __future__ import annotations

import random
from pathlib import Path

from tests.support.fake_telegram import FakeMessage
from tests.support.harness import hand_message, is_my_turn, new_fake, play_one_move, running_bot


async def test_games_in_two_topics_and_another_group_keep_separate_hands(tmp_path: Path) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob, cid = fake.add_user("Alice"), fake.add_user("Bob"), fake.add_user("Cid")
        forum = fake.add_group("Club", members=[alice, bob, cid], forum=True)
        other = fake.add_group("Family", members=[alice, cid])
        red, blue = forum.create_topic("Red"), forum.create_topic("Blue")
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            for user in (alice, bob, cid):
                await user.start_bot()

            await alice.send(forum, "/newgame", topic=red)
            await bob.send(forum, "/newgame", topic=blue)
            await cid.send(other, "/newgame")

            def lobby(thread: int | None, chat: object) -> FakeMessage | None:
                return next(
                    (
                        m
                        for m in (forum if chat is forum else other).bot_messages(thread)
                        if "✋ Join" in m.button_texts
                    ),
                    None,
                )

            red_lobby = await fake.wait_for(lambda: lobby(red.message_thread_id, forum))
            blue_lobby = await fake.wait_for(lambda: lobby(blue.message_thread_id, forum))
            family_lobby = await fake.wait_for(lambda: lobby(None, other))
            assert red_lobby is not blue_lobby  # one game per topic
            # A second /newgame in a topic points at the open game instead of opening another.
            await bob.send(forum, "/newgame", topic=red)
            await fake.wait_for(
                lambda: any(
                    "already open" in (m.text or "")
                    for m in forum.bot_messages(red.message_thread_id)
                )
            )
            await (await bob.tap(red_lobby, "✋ Join")).wait()
            await (await alice.tap(blue_lobby, "✋ Join")).wait()
            await (await alice.tap(family_lobby, "✋ Join")).wait()
            for message, starter in ((red_lobby, alice), (blue_lobby, bob), (family_lobby, cid)):
                await fake.wait_for(lambda m=message: m.text.count("\n") >= 4)
                await (await starter.tap(message, "▶️ Start")).wait()

            # Alice sits in three games at once: one hand message per game, each naming
            # its group, and her taps go to the right game.
            await fake.wait_for(
                lambda: len([m for m in alice.dm.bot_messages() if "Your cards" in m.text]) == 3
            )
            hands = [m for m in alice.dm.bot_messages() if "Your cards" in m.text]
            assert sum("«Club»" in m.text for m in hands) == 2
            assert sum("«Family»" in m.text for m in hands) == 1
            rng = random.Random(2)
            family_hand = hand_message(alice, other)
            assert family_hand is not None
            if not is_my_turn(family_hand):
                await play_one_move(fake, cid, rng, other)
            await play_one_move(fake, alice, rng, other)
            # Only the Family table moved; the topic tables did not.
            family_table = next(m for m in other.bot_messages() if "deal 1" in m.text)
            assert "On the table" in family_table.text or "Trick to" in family_table.text
            for topic in (red, blue):
                table = next(
                    m for m in forum.bot_messages(topic.message_thread_id) if "deal 1" in m.text
                )
                assert "The table is empty" in table.text
        assert fake.invalid_requests == []
