"""Committed moves per second through Storage.commit at synchronous=FULL and NORMAL.

Usage: .venv/bin/python bench/storage.py [--moves N] [--dir DIR]

Each commit is one real engine move with its deal start / tally / status changes and 2-3
outbox rows, exactly as the bot writes them. The moves are generated before the clock
starts, so the figures measure storage only. The database lives in a temporary folder
under --dir (default: the project folder, i.e. the same disk as the bot's database; a
tmpfs would hide the fsync cost this benchmark exists to show).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.burkozel import BASE_RULES, Series  # noqa: E402
from storage import SYNCHRONOUS, Game, GameChange, Storage  # noqa: E402
from tests.support.storage_play import make_seats, next_change  # noqa: E402

GAMES = 4  # concurrent games, as a busy bot would have


Plan = list[tuple[int, list[GameChange]]]


def plan(rng: random.Random, moves: int) -> Plan:
    """Per game, its player count and the changes to commit (real moves, whole series)."""
    games: Plan = []
    left = moves
    while left > 0:
        players = rng.randint(2, 4)
        series = Series(players, BASE_RULES, rng.randrange(players))
        chat_id = -len(games) - 1
        # next_change reads only the chat, status and version of the game it extends.
        shadow = Game(0, chat_id, None, "lobby", {}, 0, (), 0, 0.0, None, None, None, None)
        changes = []
        while not series.finished and left > 0:
            change = next_change(shadow, series, rng)
            changes.append(change)
            left -= 1
            status = change.status or shadow.status
            shadow = replace(shadow, status=status, version=shadow.version + 1)
        games.append((players, changes))
    return games


async def run(path: Path, synchronous: str, games: Plan) -> tuple[float, int]:
    storage = await Storage.open(path, synchronous=synchronous)
    rng = random.Random(1)
    try:
        created = []
        for n, (players, changes) in enumerate(games):
            seats = make_seats(rng, players, user_base=100)
            game = await storage.create_game(-n - 1, None, {}, 100, seats, None)
            created.append((game, changes))

        async def play(game: Game, changes: list[GameChange]) -> int:
            for change in changes:
                game = await storage.commit(game.id, game.version, change)
            return len(changes)

        started = time.perf_counter()
        done = 0
        # GAMES games at a time share the one connection, like the bot's handlers do.
        for i in range(0, len(created), GAMES):
            batch = created[i : i + GAMES]
            done += sum(await asyncio.gather(*(play(g, c) for g, c in batch)))
        elapsed = time.perf_counter() - started
        return done / elapsed, await storage.outbox_size()
    finally:
        await storage.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=ROOT)
    args = parser.parse_args()
    games = plan(random.Random(2024), args.moves)
    rates: dict[str, list[float]] = {"FULL": [], "NORMAL": []}
    outbox = 0
    with tempfile.TemporaryDirectory(prefix="bench-storage-", dir=args.dir) as tmp:
        # Interleaved rounds, each on a fresh file, so background load hits both alike.
        for r in range(args.rounds):
            for synchronous, runs in rates.items():
                path = Path(tmp) / f"{synchronous}-{r}.sqlite3"
                rate, outbox = await run(path, synchronous, games)
                runs.append(rate)
    print(
        f"{args.moves} committed moves per run, each with 2-3 outbox rows ({outbox} rows),"
        f" {GAMES} games at a time; median of {args.rounds} interleaved runs"
    )
    print(f"{'synchronous':<12}{'moves/s':>9}{'ms/move':>9}   runs (moves/s)")
    for synchronous, runs in rates.items():
        rate = statistics.median(runs)
        chosen = "   <- chosen (storage.SYNCHRONOUS)" if synchronous == SYNCHRONOUS else ""
        each = " ".join(f"{x:.0f}" for x in runs)
        print(f"{synchronous:<12}{rate:>9.0f}{1000 / rate:>9.2f}   {each}{chosen}")


if __name__ == "__main__":
    asyncio.run(main())
