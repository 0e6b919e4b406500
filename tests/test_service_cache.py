"""The service's in-memory games: one object per open game, however loads overlap."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.service import GameService, UserInfo
from storage import open_storage


async def test_overlapping_loads_share_one_game_so_a_confirmed_cancel_is_not_refused(
    tmp_path: Path,
) -> None:
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        service = GameService(storage, bot_username="cards_bot", computer_pause=0)
        alice = UserInfo(1, "Alice")
        await storage.upsert_user(1, "Alice", None, None)
        await storage.set_user_started(1, True)
        game = await service.new_game(-100, "Group", None, alice)
        await service.add_computer(game.id, alice.id, "easy")
        await service.start(game.id, alice.id)

        service.forget(game.id)  # as after a restart: nothing in memory
        # A command that only reads (no lock) overlaps a computer's move (under the lock).
        reader = asyncio.create_task(service._load(game.id))
        async with service.lock(game.id):
            mover = await service._load(game.id)
            assert (await reader) is mover
        await service._on_deadline(game.id)  # a computer moves, or the turn moves on
        # The player confirms /cancel: the game is open, so it ends, never "it changed".
        ended = await service.cancel(game.id, alice.id)
        assert ended.status == "cancelled"
    finally:
        await storage.close()
