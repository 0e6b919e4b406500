"""The bot removed from a group across a deal's end, and added back: the group's
messages wait instead of being lost, the turn timer waits with them, and the group is
told at once what it missed and where the game stands."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.service import presence
from tests.support.fake_telegram import FakeChat
from tests.support.harness import (
    current_deal,
    drained,
    hand_message,
    move_count,
    new_fake,
    open_game,
    play_one_move,
    play_until,
    running_bot,
    the_game,
    whose_turn,
)

TURN_SECONDS = 6


def bot_texts(group: FakeChat) -> list[str]:
    return [m.text or "" for m in group.bot_messages() if not m.deleted]


async def test_a_result_while_the_bot_is_out_of_the_group_is_told_when_it_is_back(
    tmp_path: Path,
) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends & <Co>", members=[alice, bob])
        players = [alice, bob]
        rng = random.Random(5)
        db = tmp_path / "bot.sqlite3"
        async with running_bot(fake, db, turn_timeout_seconds=TURN_SECONDS) as app:
            await open_game(fake, group, players)
            game = await the_game(app, group.id)
            for _ in range(4):
                user = await fake.wait_for(lambda: whose_turn(players, group))
                await play_one_move(fake, user, rng, group)
            await fake.wait_for(lambda: drained(app))
            seen = len(group.bot_messages())
            # An administrator removes the bot; the players go on in their private chats,
            # to the end of the first deal and into the second.
            fake.kick_bot(group, "kicked")
            await fake.wait_for(
                lambda: all(
                    any("removed from" in (m.text or "") for m in u.dm.bot_messages())
                    for u in players
                ),
                description="the players told the game waits",
            )
            await play_until(fake, players, lambda: current_deal(players, group) == 2, rng)
            turn = whose_turn(players, group)
            assert turn is not None and "to move" not in (hand_message(turn, group) or "").text
            moves = await move_count(app, game.id)
            # Longer than a turn's timer: nobody is played for while the table is unseen.
            await asyncio.sleep(TURN_SECONDS * 1.5)
            assert await move_count(app, game.id) == moves, "the clock ran while out"
            assert len(group.bot_messages()) == seen, "the group got messages while out"
            # Added back: at once the group reads the missed result, then where it stands.
            fake.add_bot(group, "kicked")
            await fake.wait_for(
                lambda: any("I'm back" in text for text in bot_texts(group)),
                description="the group told the bot is back",
            )
            await fake.wait_for(lambda: drained(app), description="the held messages sent")
            told = bot_texts(group)[seen:]
            assert len(told) == 3, told
            result, back, table = told
            assert "Deal 1 is over" in result and "Deal 2 is dealt" in result, result
            assert "I'm back" in back, back
            assert "deal 2" in table and "Turn:" in table, table
            assert not any("ran out of time" in text for text in bot_texts(group))
            # The game goes on: its table message is the new one, and the clock runs again.
            assert app.service is not None
            ref = await app.service.storage.get_message(game.id, "table:2")
            assert ref is not None and ref.message_id == group.bot_messages()[-1].message_id
            turn = whose_turn(players, group)
            assert turn is not None
            assert "to move" in (hand_message(turn, group) or turn.dm.messages[-1]).text
        assert fake.invalid_requests == []


async def test_a_group_the_bot_stays_out_of_ends_its_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out for a day (here: two seconds) the game ends, its players told in their DMs."""
    monkeypatch.setattr(presence, "OUT_OF_GROUP_HELD", 2.0)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        players = [alice, bob]
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            await open_game(fake, group, players)
            game = await the_game(app, group.id)
            fake.kick_bot(group)
            assert app.service is not None
            storage = app.service.storage

            async def ended() -> bool:
                stored = await storage.get_game(game.id)
                return stored is not None and stored.status == "abandoned"

            await fake.wait_for(ended, description="the game ended")
            for user in players:
                await fake.wait_for(
                    lambda u=user: any(
                        "out of the group for a day" in (m.text or "") for m in u.dm.bot_messages()
                    ),
                    description=f"{user.first_name}'s hand says why the game ended",
                )
        assert fake.invalid_requests == []
