from __future__ import annotations

import random
from pathlib import Path

from tests.e2e.harness import hand_message, is_my_turn, new_fake, play_one_move, running_bot


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
                mover = (
                    next(u for u in (alice, bob) if (m := hand_message(u)) and is_my_turn(m))
                    if any((m := hand_message(u)) and is_my_turn(m) for u in (alice, bob))
                    else None
                )
                if mover is None:
                    await fake.wait_for(
                        lambda: any((m := hand_message(u)) and is_my_turn(m) for u in (alice, bob))
                    )
                    continue
                await play_one_move(fake, mover, rng)
        assert fake.invalid_requests == []
