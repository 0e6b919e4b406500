"""Coordination of several instances on one PostgreSQL database (real server; skipped
loudly without one): the per-game lock, the sender election and its takeover."""

from __future__ import annotations

import asyncio

from storage import GameChange, PgStorage, Seat, Storage, open_storage

SEATS = (Seat(0, 11, None, "Ann"), Seat(1, 12, None, "Bob"))


async def two(pg_url: str) -> tuple[PgStorage, PgStorage]:
    first, second = await open_storage(pg_url), await open_storage(pg_url)
    assert isinstance(first, PgStorage) and isinstance(second, PgStorage)
    return first, second


async def test_one_instance_at_a_time_changes_a_game_and_sees_the_last_version(
    pg_url: str,
) -> None:
    a, b = await two(pg_url)
    try:
        game = await a.create_game(-5, None, {}, 11, SEATS, None)
        entered = asyncio.Event()
        order: list[str] = []

        async def holder() -> None:
            async with a.game_lock(game.id) as version:
                assert version == 0
                entered.set()
                await asyncio.sleep(0.3)
                await a.commit(game.id, 0, GameChange(status="playing"))
                order.append("a done")

        async def waiter() -> None:
            await entered.wait()
            async with b.game_lock(game.id) as version:
                order.append("b in")
                assert version == 1  # the holder's commit, not the version before it

        await asyncio.gather(holder(), waiter())
        assert order == ["a done", "b in"]
        # Other games are not held up, and a free lock is taken at once.
        other = await b.create_game(-6, None, {}, 11, SEATS, None)
        async with a.game_lock(game.id), b.game_lock(other.id) as version:
            assert version == 0
        async with b.game_lock(game.id + 1000) as version:
            assert version is None  # no such game
        assert await a.try_lead()  # holds the sender key
        for forged in (-2, -1, 0, 2**63, -(2**70)):  # never waits on another lock's key
            async with b.game_lock(forged) as version:
                assert version is None
    finally:
        await a.close()
        await b.close()


async def test_exactly_one_sender_and_another_takes_over_when_it_dies(pg_url: str) -> None:
    a, b = await two(pg_url)
    try:
        assert await a.try_lead()
        assert await a.try_lead()  # still
        assert not await b.try_lead()
        assert not await b.try_lead()
        # The sender's connection dies (as with SIGKILL): its lock goes with it.
        assert a._leader is not None
        a._leader.terminate()
        for _ in range(50):
            if await b.try_lead():
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("nobody took over the sender role")
        assert not await a.try_lead()  # a notices it lost the role
        assert not await a.try_lead()
        await b.resign()
        assert await a.try_lead()
    finally:
        await a.close()
        await b.close()


async def test_sqlite_is_always_the_sender_and_locks_nothing(tmp_path: object) -> None:
    db = await Storage.open(f"{tmp_path}/x.sqlite3")
    try:
        assert await db.try_lead() and not db.shared
        async with db.game_lock(1) as version:
            assert version is None
    finally:
        await db.close()
