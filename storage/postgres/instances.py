"""How several bot instances share one PostgreSQL database (mixed into PgStorage).

- :meth:`PgInstances.game_lock`: a per-game advisory lock, so one instance at a time
  changes a game, yielding the committed version so a cached game can be checked;
- :meth:`PgInstances.try_lead`: the sender/timer election (a session advisory lock);
- :meth:`PgInstances.listen_outbox`: LISTEN for outbox rows any instance queued (a
  trigger on the outbox table NOTIFYs, storage/postgres/migrations.py);
- card selections and handled update ids, which must not live in one instance's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from typing import Any, Final, TypeVar

import asyncpg

from storage.errors import CorruptRecordError
from storage.models import GameState
from storage.postgres.migrations import (
    GAMES_CHANNEL,
    LEADER_LOCK,
    OUTBOX_CHANNEL,
    PRESENCE_CHANNEL,
)
from storage.postgres.writes import Conn, Params, rows_touched
from storage.rows import dumps, loads

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT: Final = 10.0
_T = TypeVar("_T")


def _game_state(game_id: int, row: Any) -> GameState:
    where = f"game {game_id} state"
    selections = loads(where, "selections", row[3]) if row[3] is not None else {}
    taps = loads(where, "taps", row[4]) if row[4] is not None else {}
    if not isinstance(selections, dict) or not isinstance(taps, dict):
        raise CorruptRecordError(f"{where}: selections and taps must be objects")
    try:
        return GameState(
            version=int(row[0]),
            chat_id=int(row[1]),
            chat_stamp=int(row[2]),
            selections={int(u): [str(c) for c in cards] for u, cards in selections.items()},
            taps={int(u): float(at) for u, at in taps.items()},
        )
    except (TypeError, ValueError) as exc:
        raise CorruptRecordError(f"{where}: {exc}") from None


# The connection holding the current task's game lock (see game_lock).
_HELD: ContextVar[tuple[object, Conn] | None] = ContextVar("pg_held", default=None)


class PgInstances:
    _pool: asyncpg.Pool
    _locks: asyncpg.Pool
    _url: str
    _leader: Conn | None
    _candidate: Conn | None
    _listener: Conn | None

    async def _write_one(self, p: Params, query: str) -> list[Any]:
        raise NotImplementedError  # PgStorage's one-statement write

    @contextlib.asynccontextmanager
    async def _conn(self) -> AsyncIterator[Conn]:
        """The connection for one storage call: the game lock's, inside a locked block."""
        held = _HELD.get()
        if held is not None and held[0] is self:
            yield held[1]
            return
        async with self._pool.acquire() as conn:
            yield conn

    # --- coordination between instances ---------------------------------------

    @contextlib.asynccontextmanager
    async def game_lock(
        self, game_id: int, *, tapper: int | None = None, at: float = 0.0
    ) -> AsyncIterator[GameState | None]:
        """Hold the game's advisory lock; yields its state as committed (None: no game).

        A session advisory lock on a connection of its own (no transaction kept open); an
        instance that dies while holding it frees it with its connection. The state is
        read after the lock is granted (lock_game_state, PG migration 4), so it is what the
        previous holder committed. ``tapper``: the user whose tap this is, recorded (at
        ``at``) for every instance if they are seated.
        """
        if not 0 < game_id < 2**63:
            # No such game (ids are positive bigints); a forged id must neither fail here
            # nor wait on the negative keys of the migration and sender locks.
            yield None
            return
        async with self._locks.acquire() as conn:
            try:
                # Lock and state in one round trip.
                row = await conn.fetchrow(
                    "SELECT * FROM lock_game_state($1, $2, $3)", game_id, tapper, at
                )
            except BaseException:
                conn.terminate()  # granted or not, the lock dies with the session
                raise
            # The locked block's storage calls run on this connection: one connection per
            # update, not one for the lock and more from the pool for the work.
            token = _HELD.set((self, conn))
            try:
                yield None if row is None else _game_state(game_id, row)
            finally:
                _HELD.reset(token)
                try:
                    # This pool does not reset connections it takes back (one round trip
                    # less), so the lock is released here, or dies with the session.
                    await conn.execute("SELECT pg_advisory_unlock($1)", game_id)
                except BaseException:
                    conn.terminate()
                    raise

    async def game_state(self, game_id: int) -> GameState | None:
        """The game's state as committed, without its lock (a read outside it)."""
        if not 0 < game_id < 2**63:
            return None
        async with self._conn() as conn:
            row = await conn.fetchrow("SELECT * FROM game_state($1)", game_id)
        return None if row is None else _game_state(game_id, row)

    async def game_version(self, game_id: int) -> int | None:
        async with self._conn() as conn:
            value = await conn.fetchval("SELECT version FROM games WHERE id = $1", game_id)
        return None if value is None else int(value)

    async def try_lead(self) -> bool:
        """Try to become (or check that we still are) the one sender/timer instance.

        A session advisory lock on a connection of its own: held while that connection
        lives, so a dead leader's lock is released as soon as its connection drops.
        """
        conn = self._leader
        if conn is not None:
            try:
                await conn.fetchval("SELECT 1", timeout=5)
                return True
            except Exception:
                logger.warning("lost the leader connection; standing down")
                with contextlib.suppress(Exception):
                    conn.terminate()
                self._leader = None
                return False
        try:
            if self._candidate is None or self._candidate.is_closed():
                self._candidate = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
            won = await self._candidate.fetchval(
                "SELECT pg_try_advisory_lock($1)", LEADER_LOCK, timeout=5
            )
        except Exception:
            logger.warning("cannot reach the database to take the sender role", exc_info=True)
            if self._candidate is not None:
                self._candidate.terminate()
            self._candidate = None
            return False
        if not won:
            return False  # the connection is kept for the next try
        self._leader, self._candidate = self._candidate, None
        return True

    async def resign(self) -> None:
        conn, self._leader = self._leader, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()

    async def listen_outbox(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever any instance commits outbox rows."""
        if self._listener is None or self._listener.is_closed():
            self._listener = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
            await self._listener.add_listener(OUTBOX_CHANNEL, lambda *_: callback())

    async def listen_games(
        self,
        callback: Callable[[int], None],
        presence: Callable[[int, int, bool], None] | None = None,
    ) -> None:
        """Call ``callback(game_id)`` whenever any instance commits a change of a game's
        version (the Mini App's live connections), and ``presence(game_id,
        user_id, present)`` for what any instance tells with :meth:`notify_presence`. Its
        own connection, opened again (with a wake-up of every game: moves may have been
        missed) if it drops."""

        def heard(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
            if payload.isdigit():
                callback(int(payload))

        def heard_presence(_conn: Any, _pid: int, _channel: str, payload: str) -> None:
            parts = payload.split(":")
            if presence is not None and len(parts) == 3 and all(p.isdigit() for p in parts):
                presence(int(parts[0]), int(parts[1]), parts[2] == "1")

        async def connect() -> None:
            conn = await asyncpg.connect(self._url, timeout=CONNECT_TIMEOUT)
            await conn.add_listener(GAMES_CHANNEL, heard)
            if presence is not None:
                await conn.add_listener(PRESENCE_CHANNEL, heard_presence)
            conn.add_termination_listener(lambda _c: lost())
            self._games_listener = conn

        def lost() -> None:
            if getattr(self, "_games_closing", False):
                return
            task = asyncio.get_running_loop().create_task(again())
            self._games_task = task  # (kept referenced)

        async def again() -> None:
            while not getattr(self, "_games_closing", False):
                await asyncio.sleep(1.0)
                try:
                    await connect()
                except Exception:
                    logger.warning("cannot LISTEN for games again; retrying", exc_info=True)
                    continue
                callback(0)  # 0: any game may have moved meanwhile
                return

        self._games_closing = False
        await connect()

    async def notify_presence(self, game_id: int, user_id: int, present: bool) -> None:
        """Tell every instance that ``user_id`` has ``game_id`` open in the Mini App (or
        no more): the instance that makes a move then spares their hand edit."""
        async with self._pool.acquire() as conn:
            await conn.execute(
                "SELECT pg_notify($1, $2)", PRESENCE_CHANNEL, f"{game_id}:{user_id}:{int(present)}"
            )

    async def _close_games_listener(self) -> None:
        self._games_closing = True
        conn: Conn | None = getattr(self, "_games_listener", None)
        if conn is not None and not conn.is_closed():
            with contextlib.suppress(Exception):
                await conn.close()
        self._games_listener = None

    # --- card selections (shared, since the next tap may reach another instance) ---

    async def get_selection(self, game_id: int, user_id: int, version: int) -> list[str]:
        """The cards ``user_id`` has selected at this game version (empty if none)."""
        async with self._conn() as conn:
            cards = await conn.fetchval(
                "SELECT cards FROM selections WHERE game_id = $1 AND user_id = $2 AND version = $3",
                game_id,
                user_id,
                version,
            )
        if cards is None:
            return []
        value = loads(f"selections row (game {game_id}, user {user_id})", "cards", cards)
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise CorruptRecordError(f"selections row (game {game_id}): not a list of cards")
        return value

    async def set_selection(
        self, game_id: int, user_id: int, version: int, cards: list[str]
    ) -> None:
        p = Params()
        await self._write_one(
            p,
            "INSERT INTO selections (game_id, user_id, version, cards)"
            f" VALUES ({p(game_id)}, {p(user_id)}, {p(version)}, {p(dumps(cards))})"
            " ON CONFLICT (game_id, user_id) DO UPDATE SET"
            " version = excluded.version, cards = excluded.cards",
        )

    # --- handled updates --------------------------------------------------------

    async def update_seen(self, update_id: int) -> bool:
        async with self._conn() as conn:
            return bool(
                await conn.fetchval("SELECT 1 FROM updates WHERE update_id = $1", update_id)
            )

    async def mark_update(self, update_id: int) -> None:
        async with self._conn() as conn:
            await conn.execute(
                "INSERT INTO updates (update_id, handled_at) VALUES ($1, $2)"
                " ON CONFLICT (update_id) DO NOTHING",
                update_id,
                time.time(),
            )

    async def prune_updates(self, before: float) -> int:
        async with self._conn() as conn:
            return rows_touched(
                await conn.execute("DELETE FROM updates WHERE handled_at < $1", before)
            )
