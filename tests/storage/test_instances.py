"""Coordination of several instances on one PostgreSQL database (real server; skipped
loudly without one): the per-game lock, the sender election and its takeover."""

from __future__ import annotations

import asyncio

from storage import Deadline, GameChange, PgStorage, Seat, Storage, open_storage

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
            async with a.game_lock(game.id) as state:
                assert state is not None and state.version == 0
                entered.set()
                await asyncio.sleep(0.3)
                await a.commit(game.id, 0, GameChange(status="playing"))
                order.append("a done")

        async def waiter() -> None:
            await entered.wait()
            async with b.game_lock(game.id) as state:
                order.append("b in")
                # The holder's commit, not the version before it.
                assert state is not None and state.version == 1

        await asyncio.gather(holder(), waiter())
        assert order == ["a done", "b in"]
        # Other games are not held up, and a free lock is taken at once.
        other = await b.create_game(-6, None, {}, 11, SEATS, None)
        async with a.game_lock(game.id), b.game_lock(other.id) as state:
            assert state is not None and state.version == 0
        async with b.game_lock(game.id + 1000) as state:
            assert state is None  # no such game
        assert await a.try_lead()  # holds the sender key
        for forged in (-2, -1, 0, 2**63, -(2**70)):  # never waits on another lock's key
            async with b.game_lock(forged) as state:
                assert state is None
    finally:
        await a.close()
        await b.close()


async def test_the_lock_reads_what_a_cached_game_depends_on_outside_its_row(
    pg_url: str,
) -> None:
    """The chat's stamp (title, language, settings), the chat id, the selections at the
    game's version and each seated player's last tap: what instance B must re-check of a
    game it has in memory when instance A changed them."""
    a, b = await two(pg_url)
    try:
        await a.upsert_chat(-5, "Group")
        game = await a.create_game(-5, None, {}, 11, SEATS, None)
        async with b.game_lock(game.id) as state:
            assert state is not None
            first = state.chat_stamp
        assert (await b.get_chat(-5)).stamp == first  # type: ignore[union-attr]
        stamps = [first]
        for change in (
            a.set_chat_language(-5, "en"),
            a.set_chat_rules(-5, {"turn_timer": 30}),
            a.upsert_chat(-5, "Renamed"),
        ):
            await change
            async with b.game_lock(game.id) as state:
                assert state is not None
                stamps.append(state.chat_stamp)
        assert len(set(stamps)) == 4  # each change is seen
        await a.upsert_chat(-5, "Renamed")  # the same title: nothing changed
        state = await b.game_state(game.id)
        assert state is not None and state.chat_stamp == stamps[-1]
        # Selections count from the game's last change (state_version) to its version
        # only; taps of seated players only.
        await a.set_selection(game.id, 11, 0, ["AS"])
        await a.set_selection(game.id, 12, 7, ["KS"])
        async with a.game_lock(game.id, tapper=11, at=100.0):
            pass
        async with a.game_lock(game.id, tapper=99, at=101.0):  # not seated: not recorded
            pass
        async with b.game_lock(game.id) as state:
            assert state is not None
            assert state.selections == {11: ["AS"]}
            assert state.taps == {11: 100.0}
        # A reminder (a commit of the deadline alone) keeps the selections made before it.
        await a.commit(game.id, 0, GameChange(deadline=Deadline(0, 500.0, None)))
        async with b.game_lock(game.id) as state:
            assert state is not None and state.version == 1
            assert state.selections == {11: ["AS"]}
        await a.migrate_chat(-5, -1005)
        state = await b.game_state(game.id)
        assert state is not None and state.chat_id == -1005
        assert await b.game_state(game.id + 1000) is None
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
