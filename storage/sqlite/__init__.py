"""The SQLite backend (:class:`Storage`): one long-lived aiosqlite connection, typed
repositories, the storage contract (storage/contract.py) for one bot process.

Here: the connection, the transactions (one writer, commits grouped), the one-process
coordination, the updates already handled and a chat that moved. Rows are decoded by
storage/rows.py (shared with the PostgreSQL backend). Mixed in: games and their
versioned commits (``games.py``), chats and users (``chats.py``), a game's move log,
tallies, record and a chat's stats (``history.py``), the outbox and the games' message
ids (``outbox.py``), series records, ratings and history (storage/records.py). The
schema: ``migrations.py``. storage/postgres/ has the same files for the same roles.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Final, TypeAlias, TypeVar

import aiosqlite

from storage.errors import (
    StorageError,
)
from storage.jobs import Job
from storage.models import (
    GameState,
)
from storage.records import RecordsMixin, migrate_records
from storage.sqlite.chats import SqliteChats
from storage.sqlite.games import SqliteGames, run_job
from storage.sqlite.history import SqliteHistory
from storage.sqlite.migrations import SCHEMA_VERSION, migrate, refuse_newer, schema_version
from storage.sqlite.outbox import SqliteOutbox
from storage.updates import DuplicateUpdateError, pending_claim

logger = logging.getLogger(__name__)

# synchronous=FULL. With WAL, NORMAL can lose the last commits on power loss or an OS
# crash (never on a process crash); FULL fsyncs the WAL at every commit, so a move the
# bot has acknowledged to players is on disk. Measured with `bench/storage.py --rounds 5`
# (ext4 on a virtio disk, 2 cores shared with other jobs; each commit one engine move +
# 2-3 outbox rows): FULL ~1,600 moves/s (0.6 ms/move; 1,250-1,850 across runs) vs NORMAL
# ~2,900/s (0.35 ms/move). FULL costs ~0.3 ms a move and still runs 3x over the 500/s
# target and far over what Telegram's rate limits let a group produce (~20 msgs/min).
SYNCHRONOUS: Final = "FULL"
BUSY_TIMEOUT_MS: Final = 5000  # a second process (or an old bot draining) holds the lock briefly


_T = TypeVar("_T")
_Body: TypeAlias = Callable[[sqlite3.Connection], _T]


class Storage(SqliteChats, SqliteGames, SqliteHistory, SqliteOutbox, RecordsMixin):
    """Everything the bot must not forget, in one SQLite file.

    All statements run on one aiosqlite connection, and each public method's whole
    transaction is one job on its worker thread (see "transactions" below): the
    connection has a single transaction state, so statements of two transactions must
    never interleave, or one coroutine's ``BEGIN`` could swallow another's statements
    and a read could see a commit that is about to roll back.
    """

    shared: Final = False  # one process owns the file: its in-memory games stay current

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self._path = path
        # Writes waiting for the next group commit, and the task that runs them.
        self._writes: list[tuple[_Body[Any], asyncio.Future[Any]]] = []
        self._writer: asyncio.Task[None] | None = None

    # --- life cycle ----------------------------------------------------------

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        synchronous: str = SYNCHRONOUS,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> Storage:
        """Open (creating if needed) and migrate the database at ``path``.

        Raises :class:`NewerDatabaseError` without writing anything when the file
        comes from a newer schema.
        """
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"unknown synchronous setting {synchronous!r}")
        path = Path(path)
        # isolation_level=None: the sqlite3 module must not open transactions on its own;
        # every transaction here is an explicit BEGIN … COMMIT/ROLLBACK.
        conn = await aiosqlite.connect(path, isolation_level=None)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            # The version check comes before any PRAGMA that writes the file header.
            refuse_newer(await schema_version(conn), path)
            (mode,) = await conn.execute_fetchall("PRAGMA journal_mode = WAL")
            if str(mode[0]).lower() != "wal":
                raise StorageError(f"database {path}: cannot switch to WAL (got {mode[0]!r})")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute(f"PRAGMA synchronous = {synchronous.upper()}")
            applied = await migrate(conn, path)
            (version,) = await conn.execute_fetchall("SELECT sqlite_version()")
        except BaseException:
            await conn.close()
            raise
        logger.info(
            "SQLite %s (Python sqlite3 module, aiosqlite); database %s at schema %d%s;"
            " synchronous=%s",
            version[0],
            path,
            SCHEMA_VERSION,
            f" (applied migrations {applied})" if applied else "",
            synchronous.upper(),
        )
        return cls(conn, path)

    async def close(self) -> None:
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)  # let queued writes land first
        await self._conn.close()

    # --- transactions ----------------------------------------------------------
    #
    # Every transaction is one plain function of the raw sqlite3 connection, run whole on
    # aiosqlite's worker thread (one hop to the thread per transaction, not one per
    # statement). The thread runs one job at a time, so transactions never interleave and
    # no asyncio lock is needed; a caller cancelled mid-way only stops waiting, the job
    # itself always ends in COMMIT or ROLLBACK.
    #
    # Writes are group-committed: writes queued while the thread is busy run together in
    # the next transaction, each inside its own SAVEPOINT, so one caller's failure (a
    # stale version, a constraint) rolls back only that caller's part, and the batch
    # shares one COMMIT, i.e. one fsync under synchronous=FULL. Each caller still gets
    # its own result or exception, and only once the COMMIT is on disk.

    async def _in_thread(self, fn: Callable[..., _T], *args: Any) -> _T:
        """Run ``fn(*args)`` on the thread that owns the sqlite3 connection.

        ``aiosqlite.Connection._execute`` is private, but every public aiosqlite method
        is built on it and it is the only way to run several statements in one hop.
        tests/storage/test_storage.py pins the behaviour relied on here.
        """
        return await self._conn._execute(fn, *args)  # type: ignore[no-untyped-call,no-any-return]

    async def _read(self, body: _Body[_T]) -> _T:
        """Run ``body`` in one read transaction (a consistent snapshot)."""
        return await self._in_thread(self._read_tx, body)

    def _read_tx(self, body: _Body[_T]) -> _T:
        conn = self._conn._conn
        conn.execute("BEGIN")
        try:
            result = body(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    async def _write(self, body: _Body[_T]) -> _T:
        """Run ``body`` in the next group commit; returns once it is committed.

        While an update is being handled (storage/updates.py), its first write also
        records the update id, in the same savepoint.
        """
        claim = pending_claim()
        if claim is not None:
            body = functools.partial(_claimed, claim.update_id, body)
        future: asyncio.Future[_T] = asyncio.get_running_loop().create_future()
        self._writes.append((body, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_loop())
        value = await future
        if claim is not None:
            claim.claimed = True
        return value

    async def _write_loop(self) -> None:
        while self._writes:
            # A caller cancelled before its batch starts writes nothing.
            batch = [(body, fut) for body, fut in self._writes if not fut.done()]
            self._writes = []
            if not batch:
                continue
            try:
                outcomes = await asyncio.shield(
                    self._in_thread(self._write_tx, [body for body, _ in batch])
                )
            except asyncio.CancelledError:
                for _, fut in batch:
                    fut.cancel()
                raise
            except BaseException as exc:  # BEGIN or COMMIT failed: nothing was written
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            for (_, fut), (ok, value) in zip(batch, outcomes, strict=True):
                if fut.done():
                    continue  # the caller stopped waiting; its part is committed anyway
                if ok:
                    fut.set_result(value)
                else:
                    fut.set_exception(value)

    def _write_tx(self, bodies: list[_Body[Any]]) -> list[tuple[bool, Any]]:
        """One write transaction for a batch; each body's outcome, in order.

        Writers take ``BEGIN IMMEDIATE`` so the write lock is held from the start and a
        second process waits on busy_timeout instead of failing half-way with BUSY.
        """
        conn = self._conn._conn
        outcomes: list[tuple[bool, Any]] = []
        conn.execute("BEGIN IMMEDIATE")
        try:
            for body in bodies:
                conn.execute("SAVEPOINT item")
                try:
                    value = body(conn)
                except Exception as exc:
                    if not conn.in_transaction:
                        # SQLite rolled the whole transaction back (e.g. disk full): the
                        # batch's earlier parts are gone too, so the batch fails as one.
                        raise
                    conn.execute("ROLLBACK TO item")
                    conn.execute("RELEASE item")
                    outcomes.append((False, exc))
                    continue
                conn.execute("RELEASE item")
                outcomes.append((True, value))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return outcomes

    async def _run_job(self, job: Job[_T], *, write: bool) -> _T:
        """A job (storage/jobs.py), as one transaction."""
        return await (self._write if write else self._read)(lambda conn: run_job(conn, job))

    # --- coordination (one process: these are trivial; see storage/postgres/__init__.py) -------

    @contextlib.asynccontextmanager
    async def game_lock(
        self, game_id: int, *, tapper: int | None = None, at: float = 0.0
    ) -> AsyncIterator[GameState | None]:
        """Only one process uses a SQLite file: the bot's in-process lock is enough."""
        yield None

    async def game_state(self, game_id: int) -> GameState | None:
        game = await self.get_game(game_id) if 0 < game_id < 2**63 else None
        return None if game is None else GameState(game.version, game.chat_id, 0, {}, {})

    async def game_version(self, game_id: int) -> int | None:
        game = await self.get_game(game_id)
        return None if game is None else game.version

    async def try_lead(self) -> bool:
        return True  # the only instance sends and runs the timers

    async def resign(self) -> None:
        return None

    async def listen_outbox(self, callback: Callable[[], None]) -> None:
        return None  # writers are in this process and wake the sender themselves

    async def listen_games(
        self,
        callback: Callable[[int], None],
        presence: Callable[[int, int, bool], None] | None = None,
    ) -> None:
        return None  # one process: the service tells the Mini App of its commits itself

    async def notify_presence(self, game_id: int, user_id: int, present: bool) -> None:
        return None  # one process: the Mini App's hub knows who is in it

    async def get_selection(self, game_id: int, user_id: int, version: int) -> list[str] | None:
        return None  # one process: the bot keeps card selections in memory

    async def set_selection(
        self, game_id: int, user_id: int, version: int, cards: list[str]
    ) -> None:
        return None

    async def ping(self) -> bool:
        try:
            await self._read(lambda conn: conn.execute("SELECT 1").fetchall())
        except Exception:
            return False
        return True

    async def update_seen(self, update_id: int) -> bool:
        rows = await self._read(
            lambda conn: conn.execute(
                "SELECT 1 FROM updates WHERE update_id = ?", (update_id,)
            ).fetchall()
        )
        return bool(rows)

    async def mark_update(self, update_id: int) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO updates (update_id, handled_at) VALUES (?, ?)"
                " ON CONFLICT (update_id) DO NOTHING",
                (update_id, time.time()),
            )

        await self._write(body)

    async def prune_updates(self, before: float) -> int:
        def body(conn: sqlite3.Connection) -> int:
            return conn.execute("DELETE FROM updates WHERE handled_at < ?", (before,)).rowcount

        return await self._write(body)

    # --- a chat that moved (chats and users themselves: the Chats mixin) ------

    async def migrate_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its games, messages, pending outbox and stats follow.

        The new chat row inherits title, language and rules; if the bot already saw the
        new chat, its own title is kept and only unset language/rules are filled in.
        """
        if old_id == new_id:
            return
        try:

            def body(conn: sqlite3.Connection) -> None:
                conn.execute(
                    "INSERT INTO chats (id) VALUES (?) ON CONFLICT (id) DO NOTHING", (old_id,)
                )
                conn.execute(
                    "INSERT INTO chats (id, title, language, rules)"
                    " SELECT ?, title, language, rules FROM chats WHERE id = ?"
                    " ON CONFLICT (id) DO UPDATE SET"
                    " language = COALESCE(chats.language, excluded.language),"
                    " rules = CASE WHEN chats.rules = '{}' THEN excluded.rules"
                    " ELSE chats.rules END, stamp = chats.stamp + 1",
                    (new_id, old_id),
                )
                conn.execute("UPDATE chats SET migrated_to = ? WHERE id = ?", (new_id, old_id))
                conn.execute("UPDATE games SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
                conn.execute("UPDATE messages SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
                conn.execute("UPDATE outbox SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
                conn.execute(
                    "INSERT INTO stats (chat_id, user_id, name, series_played, series_won,"
                    " deals_played, penalties)"
                    " SELECT ?, user_id, name, series_played, series_won, deals_played, penalties"
                    " FROM stats WHERE chat_id = ?"
                    " ON CONFLICT (chat_id, user_id) DO UPDATE SET"
                    " series_played = series_played + excluded.series_played,"
                    " series_won = series_won + excluded.series_won,"
                    " deals_played = deals_played + excluded.deals_played,"
                    " penalties = penalties + excluded.penalties",
                    (new_id, old_id),
                )
                conn.execute("DELETE FROM stats WHERE chat_id = ?", (old_id,))
                run_job(conn, migrate_records(old_id, new_id))

            await self._write(body)
        except sqlite3.IntegrityError as exc:
            raise StorageError(
                f"cannot move chat {old_id} to {new_id}: both have an open game in the same"
                f" thread ({exc})"
            ) from exc


def _claimed(update_id: int, body: _Body[_T], conn: sqlite3.Connection) -> _T:
    """Record ``update_id`` as handled, then run ``body``: both or neither are committed."""
    try:
        conn.execute(
            "INSERT INTO updates (update_id, handled_at) VALUES (?, ?)", (update_id, time.time())
        )
    except sqlite3.IntegrityError:
        raise DuplicateUpdateError(f"update {update_id} was already handled") from None
    return body(conn)
