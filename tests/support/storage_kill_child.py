"""Child process for the kill -9 test: commits random legal moves of several games forever.

Usage: python tests/support/storage_kill_child.py DB_PATH SEED

It prints one line, ``ready``, once the database is open so the parent knows the
process is past start-up; it reports nothing else. Everything the parent checks is read
back from the database itself.
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from storage import Game, GameExistsError, Storage
from tests.support.storage_play import new_game, next_change, series_of

CHATS = (-1001, -1002, -1003)


async def worker(storage: Storage, chat_id: int, rng: random.Random) -> None:
    """Plays game after game in one chat; several workers share the one Storage."""
    game: Game | None = await storage.open_game(chat_id, None)
    while True:
        if game is None or game.status not in ("lobby", "playing"):
            try:
                game = await new_game(storage, rng, chat_id)
            except GameExistsError as exc:
                game = exc.game
        series = series_of(await storage.export_record(game.id), game, rng)
        while game.status in ("lobby", "playing"):
            game = await storage.commit(game.id, game.version, next_change(game, series, rng))


async def main() -> None:
    path, seed = sys.argv[1], int(sys.argv[2])
    storage = await Storage.open(path)
    print("ready", flush=True)
    await asyncio.gather(
        *(worker(storage, chat, random.Random(f"{seed}:{chat}")) for chat in CHATS)
    )


if __name__ == "__main__":
    asyncio.run(main())
