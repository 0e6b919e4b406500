"""The PostgreSQL backend (asyncpg): the storage contract for several bot instances.

Same contract (storage/contract.py), same tables and the same row decoders
(storage/rows.py) as the SQLite backend (storage/sqlite/); queries are written with
``?`` placeholders like SQLite's and turned into ``$n`` by :func:`storage.postgres.writes.sql`.
Differences that matter:

- each method is one transaction on a pooled connection (no group commit: PostgreSQL
  commits concurrent transactions in parallel);
- :meth:`PgStorage.game_lock` holds a per-game advisory transaction lock, so one
  instance at a time changes a game (the version check still guards every commit);
- :meth:`PgStorage.try_lead` takes a session advisory lock: exactly one instance runs the
  outbox sender and the timers, and when its connection dies the lock is free again;
- a trigger NOTIFYs the sender, wherever it runs, of every outbox row queued.

The same files as storage/sqlite/ for the same roles: games and their versioned commit
in ``games.py``, chats and users in ``chats.py``, a game's move log, tallies, record and
a chat's stats in ``history.py``, the outbox and the games' message ids in
``outbox.py``, the schema in ``migrations.py``; and PostgreSQL's own: instance
coordination (locks, election, shared selections, update ids) in ``instances.py``, and
statements, single-statement writes and the job runner in ``writes.py``.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

import asyncpg

from storage.errors import (
    StorageError,
)
from storage.jobs import Job
from storage.postgres.chats import PgChats
from storage.postgres.games import PgGames
from storage.postgres.history import PgHistory
from storage.postgres.instances import CONNECT_TIMEOUT
from storage.postgres.migrations import PG_SCHEMA_VERSION, pg_migrate
from storage.postgres.outbox import PgOutbox
from storage.postgres.writes import (
    Conn,
    Params,
    fetch_claimed,
    run_job,
    sql,
)
from storage.records import RecordsMixin, migrate_records
from storage.updates import DuplicateUpdateError, pending_claim

logger = logging.getLogger(__name__)


_T = TypeVar("_T")


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", url)


class PgStorage(PgChats, PgGames, PgHistory, PgOutbox, RecordsMixin):
    """Everything the bot must not forget, in a PostgreSQL database shared by instances."""

    shared: Final = True  # other processes change games too: caches must be checked

    def __init__(self, pool: asyncpg.Pool, locks: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        self._locks = locks  # game-lock holders: never starve the query pool
        self._url = url
        self._leader: Conn | None = None  # holds the sender lock
        self._candidate: Conn | None = None  # asks for it
        self._listener: Conn | None = None

    # --- life cycle ----------------------------------------------------------

    @classmethod
    async def open(cls, url: str, *, pool_size: int = 10) -> PgStorage:
        where = redact(url)
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=pool_size, timeout=CONNECT_TIMEOUT, reset=_no_reset
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
            raise StorageError(f"cannot connect to {where}: {exc}") from None
        try:
            async with pool.acquire() as conn:
                applied = await pg_migrate(conn, where)
                version = await conn.fetchval("SHOW server_version")
            # Each game being changed holds one of these for its whole update.
            locks = await asyncpg.create_pool(
                url, min_size=0, max_size=2 * pool_size, reset=_no_reset
            )
        except BaseException:
            await pool.close()
            raise
        logger.info(
            "PostgreSQL %s (asyncpg %s); database %s at schema %d%s",
            version,
            asyncpg.__version__,
            where,
            PG_SCHEMA_VERSION,
            f" (applied migrations {applied})" if applied else "",
        )
        return cls(pool, locks, url)

    async def close(self) -> None:
        await self._close_games_listener()
        for conn in (self._leader, self._candidate, self._listener):
            if conn is not None and not conn.is_closed():
                with contextlib.suppress(Exception):
                    await conn.close()
        self._leader = self._candidate = self._listener = None
        await self._locks.close()
        await self._pool.close()

    async def ping(self) -> bool:
        """Whether the database answers (for /healthz)."""
        try:
            async with self._pool.acquire(timeout=2) as conn:
                await conn.fetchval("SELECT 1")
        except Exception:
            return False
        return True

    # --- transactions ----------------------------------------------------------

    async def _read(self, body: Callable[[Conn], Awaitable[_T]]) -> _T:
        """``body`` in one read-only snapshot (REPEATABLE READ)."""
        async with (
            self._conn() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            return await body(conn)

    async def _write(self, body: Callable[[Conn], Awaitable[_T]]) -> _T:
        """``body`` in one write transaction; records the update being handled, if any."""
        claim = pending_claim()
        async with self._conn() as conn, conn.transaction():
            if claim is not None:
                await _claim(conn, claim.update_id)
            value = await body(conn)
        if claim is not None:
            claim.claimed = True
        return value

    async def _run_job(self, job: Job[_T], *, write: bool) -> _T:
        """A job (storage/jobs.py), as one transaction."""
        if write:
            return await self._write(lambda conn: run_job(conn, job))
        return await self._read(lambda conn: run_job(conn, job))

    async def _write_one(self, p: Params, query: str) -> list[Any]:
        """``query`` (one statement, parameters from ``p``) committed on its own."""
        async with self._conn() as conn:
            return await fetch_claimed(conn, query, p, pending_claim())

    # --- a chat that moved (chats and users themselves: the Chats mixin) ------

    async def migrate_chat(self, old_id: int, new_id: int) -> None:
        """As :meth:`storage.sqlite.Storage.migrate_chat`."""
        if old_id == new_id:
            return

        async def body(conn: Conn) -> None:
            await conn.execute(
                sql("INSERT INTO chats (id) VALUES (?) ON CONFLICT (id) DO NOTHING"), old_id
            )
            await conn.execute(
                sql(
                    "INSERT INTO chats (id, title, language, rules)"
                    " SELECT ?, title, language, rules FROM chats WHERE id = ?"
                    " ON CONFLICT (id) DO UPDATE SET"
                    " language = COALESCE(chats.language, excluded.language),"
                    " rules = CASE WHEN chats.rules = '{}' THEN excluded.rules"
                    " ELSE chats.rules END, stamp = chats.stamp + 1"
                ),
                new_id,
                old_id,
            )
            await conn.execute(sql("UPDATE chats SET migrated_to = ? WHERE id = ?"), new_id, old_id)
            for table in ("games", "messages", "outbox"):
                await conn.execute(
                    sql(f"UPDATE {table} SET chat_id = ? WHERE chat_id = ?"), new_id, old_id
                )
            await conn.execute(
                sql(
                    "INSERT INTO stats (chat_id, user_id, name, series_played, series_won,"
                    " deals_played, penalties)"
                    " SELECT ?, user_id, name, series_played, series_won, deals_played, penalties"
                    " FROM stats WHERE chat_id = ?"
                    " ON CONFLICT (chat_id, user_id) DO UPDATE SET"
                    " series_played = stats.series_played + excluded.series_played,"
                    " series_won = stats.series_won + excluded.series_won,"
                    " deals_played = stats.deals_played + excluded.deals_played,"
                    " penalties = stats.penalties + excluded.penalties"
                ),
                new_id,
                old_id,
            )
            await conn.execute(sql("DELETE FROM stats WHERE chat_id = ?"), old_id)
            await run_job(conn, migrate_records(old_id, new_id))

        try:
            await self._write(body)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise StorageError(
                f"cannot move chat {old_id} to {new_id}: both have an open game in the same"
                f" thread ({exc})"
            ) from exc


async def _no_reset(conn: Conn) -> None:
    """The query pool's connections keep no session state (transactions are always closed,
    locks and LISTEN live on other connections): skip the reset round trip on release."""


async def _claim(conn: Conn, update_id: int) -> None:
    try:
        await conn.execute(
            "INSERT INTO updates (update_id, handled_at) VALUES ($1, $2)", update_id, time.time()
        )
    except asyncpg.UniqueViolationError:
        raise DuplicateUpdateError(f"update {update_id} was already handled") from None
