"""Single-hop transactions and group commit: concurrent writes share one COMMIT, each
inside its own SAVEPOINT, and each caller still gets its own result or exception."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from storage import (
    DealStart,
    GameChange,
    LoggedMove,
    OutboxOp,
    Seat,
    StaleVersionError,
    Storage,
    StorageError,
)

SEATS = (Seat(0, 1, None, "A"), Seat(1, 2, None, "B"))
DECK = tuple(f"{r}{s}" for s in "SHDC" for r in ("6", "7", "8", "9", "J", "Q", "K", "10", "A"))


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Storage]:
    storage = await Storage.open(tmp_path / "bot.sqlite3")
    yield storage
    await storage.close()


def _record_batches(db: Storage, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    sizes: list[int] = []
    original = db._write_tx

    def spy(bodies: list[Any]) -> list[tuple[bool, Any]]:
        sizes.append(len(bodies))
        return original(bodies)

    monkeypatch.setattr(db, "_write_tx", spy)
    return sizes


def _move(tag: str) -> GameChange:
    return GameChange(
        move=LoggedMove(0, {"cards": [tag]}), outbox=(OutboxOp(-5, "send", {"by": tag}),)
    )


async def _game(db: Storage, chat_id: int = -5) -> int:
    game = await db.create_game(chat_id, None, {}, 1, SEATS, None)
    await db.commit(game.id, 0, GameChange(new_deal=DealStart(0, 0, DECK)))
    return game.id


async def test_the_private_aiosqlite_hook_runs_a_function_on_the_connection_thread(
    db: Storage,
) -> None:
    """Storage relies on ``aiosqlite.Connection._execute(fn, *args)``: pin what it does."""

    def probe(x: int) -> tuple[int, int, bool]:
        raw = db._conn._conn
        return x + 1, threading.get_ident(), isinstance(raw, sqlite3.Connection)

    value, ident, raw_ok = await db._in_thread(probe, 41)
    assert value == 42 and raw_ok
    assert ident != threading.get_ident()


async def test_a_stale_commit_in_a_batch_fails_alone_and_the_other_is_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "batch.sqlite3"
    db = await Storage.open(path)
    game_id = await _game(db)
    sizes = _record_batches(db, monkeypatch)
    results = await asyncio.gather(
        db.commit(game_id, 1, _move("fresh")),
        db.commit(game_id, 1, _move("stale")),  # same expected version: the second is stale
        db.enqueue((OutboxOp(-7, "send", {"by": "enqueue"}),)),
        return_exceptions=True,
    )
    assert sizes == [3]  # one transaction, one COMMIT for all three callers
    assert not isinstance(results[0], BaseException) and results[0].version == 2
    assert isinstance(results[1], StaleVersionError)
    assert results[2] is None
    await db.close()
    # Durable: a fresh connection sees the winner's move and outbox, nothing of the loser.
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchone() == (2,)
        moves = raw.execute("SELECT move FROM moves WHERE game_id = ?", (game_id,)).fetchall()
        assert moves == [('{"cards":["fresh"]}',)]
        payloads = sorted(p for (p,) in raw.execute("SELECT payload FROM outbox").fetchall())
        assert payloads == ['{"by":"enqueue"}', '{"by":"fresh"}']


async def test_a_constraint_failure_rolls_back_only_its_own_part(
    db: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = await _game(db, -5), await _game(db, -6)
    sizes = _record_batches(db, monkeypatch)
    duplicate_deal = GameChange(
        new_deal=DealStart(0, 0, DECK), outbox=(OutboxOp(-5, "send", {"by": "dup"}),)
    )
    before = await db.outbox_size()
    results = await asyncio.gather(
        db.commit(a, 1, duplicate_deal),  # deal 0 exists: the primary key refuses it
        db.commit(b, 1, _move("b")),
        return_exceptions=True,
    )
    assert sizes == [2]
    assert isinstance(results[0], StorageError) and not isinstance(results[0], StaleVersionError)
    game_a, game_b = await db.get_game(a), await db.get_game(b)
    assert game_a is not None and game_a.version == 1  # the version bump was rolled back too
    assert game_b is not None and game_b.version == 2
    assert [m.move for m in await db.moves(b)] == [{"cards": ["b"]}]
    assert await db.outbox_size() == before + 1  # only b's row


async def test_writes_queued_while_a_batch_runs_go_in_the_next_one(
    db: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = await _game(db)
    sizes = _record_batches(db, monkeypatch)
    first = asyncio.ensure_future(db.enqueue((OutboxOp(-5, "send", {"n": 0}),)))
    await asyncio.sleep(0)  # the writer has taken the first batch
    rest = [db.enqueue((OutboxOp(-5, "send", {"n": n}),)) for n in range(1, 6)]
    await asyncio.gather(first, *rest, db.commit(game_id, 1, _move("x")))
    assert sum(sizes) == 7 and len(sizes) < 7
    items = await db.pending(10**10)
    assert [i.payload.get("n") for i in items if "n" in i.payload] == list(range(6))


async def test_a_write_cancelled_before_its_batch_writes_nothing(db: Storage) -> None:
    game_id = await _game(db)
    blocker = asyncio.ensure_future(db.enqueue((OutboxOp(-5, "send", {}),)))
    await asyncio.sleep(0)
    doomed = asyncio.ensure_future(db.commit(game_id, 1, _move("doomed")))
    await asyncio.sleep(0)
    doomed.cancel()
    await blocker
    with pytest.raises(asyncio.CancelledError):
        await doomed
    game = await db.get_game(game_id)
    assert game is not None and game.version == 1
    assert await db.moves(game_id) == []


async def test_close_waits_for_queued_writes(tmp_path: Path) -> None:
    path = tmp_path / "close.sqlite3"
    db = await Storage.open(path)
    writes = [
        asyncio.ensure_future(db.enqueue((OutboxOp(-5, "send", {"n": n}),))) for n in range(10)
    ]
    await asyncio.sleep(0)
    await db.close()
    await asyncio.gather(*writes)
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT COUNT(*) FROM outbox").fetchone() == (10,)
