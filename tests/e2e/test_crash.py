"""Crash safety: the bot process is killed with SIGKILL at random moments of
several games and restarted each time; every game still ends exactly as an uninterrupted
replay of its move log says it should, and the fake, enforcing Telegram's flood limits,
never has to answer 429 (each restarted bot paces the chats from the operations
the killed ones logged).

The bot runs as a real subprocess (``python -m bot``) against the fake Bot API served
from this test process, with its default delivery limits. Games are mostly computer
seats (the private-chat pacing of about one message a second would make all-human games
take minutes). Human players tap the very callback data their hand keyboard carries for a
legal move (``p:<game>:<version>:<kind>:<cards>``); which move is legal is read from the
database, since after a kill the hand message may lag behind the committed state.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path

import pytest

from storage import Storage
from tests.support.crash import BotProcess, KillPace, Table, check_game, open_table, play_humans
from tests.support.fake_telegram import (
    FakeTelegram,
)
from tests.support.harness import TOKEN

KILLS = 6
TAPS_PER_KILL = 5  # the humans wait for the next kill after so many taps (KillPace)
TIME_BUDGET = 300.0  # a hang guard for the games themselves (about 80 s on a quiet 2-core machine)


async def killer(bot: BotProcess, rng: random.Random, done: asyncio.Event, pace: KillPace) -> int:
    """SIGKILL the bot at random moments, restarting it each time."""
    kills = 0
    while kills < KILLS and not done.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), rng.uniform(1.0, 5.0))
        if done.is_set():
            break
        await bot.kill()
        kills += 1
        pace.killed()
        await asyncio.sleep(rng.uniform(0, 0.5))
        await bot.start()
    return kills


@pytest.mark.soak
async def test_sigkill_at_random_moments_loses_and_repeats_no_move(tmp_path: Path) -> None:
    rng = random.Random(20240605)
    db = tmp_path / "bot.sqlite3"
    async with FakeTelegram(token=TOKEN) as fake:
        # Telegram's limits are enforced: a restarted bot paces each chat from what the
        # killed one sent (with full buckets after each start, a group got its
        # burst again and again within its minute, and 429s).
        fake.enforce_limits = True
        names = iter(["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"])
        tables = []
        for title, humans, computers in (("Ann's", 2, 2), ("Cat's", 3, 1), ("Fay's", 2, 1)):
            users = [fake.add_user(next(names)) for _ in range(humans)]
            tables.append(Table(fake.add_group(title, members=users), users, computers))
        bot = BotProcess(fake, db, tmp_path)
        await bot.start()
        storage = await Storage.open(db)
        try:
            for table in tables:
                await open_table(fake, table)
                game = await storage.open_game(table.group.id, None)
                assert game is not None
                table.game_id = game.id
                table.seats = {s.user_id: s.seat for s in game.seats if s.user_id is not None}
            stop = asyncio.Event()
            all_done = asyncio.Event()
            pace = KillPace(KILLS, TAPS_PER_KILL)
            players = [
                asyncio.create_task(play_humans(fake, storage, t, random.Random(i), stop, pace))
                for i, t in enumerate(tables)
            ]
            kill_task = asyncio.create_task(killer(bot, rng, all_done, pace))
            started = time.monotonic()
            try:
                finished = await asyncio.wait_for(asyncio.gather(*players), TIME_BUDGET)
            except TimeoutError:
                stop.set()
                states = [await storage.get_game(t.game_id) for t in tables]
                raise AssertionError(
                    f"games not over after {TIME_BUDGET}s: {states}\n{bot.tail()}"
                ) from None
            finally:
                all_done.set()
                kills = await kill_task
            assert finished and kills >= 3, f"only {kills} kills happened"
            played_for = time.monotonic() - started
            print(f"games over after {played_for:.1f}s")

            # Let the last bot instance deliver everything, then stop it cleanly.
            async def drained() -> bool:
                return await storage.outbox_size() == 0

            await fake.wait_for(drained, timeout=60, description="the outbox to drain")
            print(f"outbox drained after {time.monotonic() - started:.1f}s")
            assert await storage.outbox_size() == 0, bot.tail()
            code = await bot.stop()
            assert code == 0, bot.tail()
            assert await storage.outbox_size() == 0

            for table in tables:
                await check_game(storage, db, fake, table)
        finally:
            await storage.close()
            if bot.proc is not None and bot.proc.returncode is None:
                bot.proc.kill()
                await bot.proc.wait()
        assert fake.invalid_requests == []
        assert fake.flood_violations == [], fake.flood_violations
        log = bot.log.read_text(errors="replace")
        assert "Traceback" not in log, bot.tail(200)
        print(f"{kills} kills, {bot.starts} starts, games played in {played_for:.1f}s")
