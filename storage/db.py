"""The :class:`Storage` facade: one long-lived aiosqlite connection, typed repositories.

Here: the connection, transactions, games and their versioned commits. Rows are decoded
by storage/rows.py (shared with the PostgreSQL backend). Mixed in: chats and users
(storage/sqlite_chats.py), a game's move log, tallies, record and a chat's stats
(storage/sqlite_history.py), the outbox and the games' message ids
(storage/sqlite_outbox.py), series records, ratings and history (storage/records.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, TypeAlias, TypeVar

import aiosqlite

from storage.errors import (
    GameExistsError,
    GameNotFoundError,
    StaleVersionError,
    StorageError,
)
from storage.migrations import SCHEMA_VERSION, migrate, refuse_newer, schema_version
from storage.models import (
    _UNSET,
    GAME_STATUSES,
    Deadline,
    Game,
    GameChange,
    GameState,
    OutboxOp,
    Seat,
)
from storage.records import (
    Job,
    RecordsMixin,
    Step,
    finishing_series,
    migrate_records,
    record_series,
)
from storage.rows import (
    GAME_COLUMNS,
    OPEN_GAMES,
    SEAT_COLUMNS,
    deadline_params,
    dumps,
    game_row,
    loads_ints,
    seat_row,
)
from storage.sqlite_chats import SqliteChats
from storage.sqlite_history import SqliteHistory
from storage.sqlite_outbox import SqliteOutbox
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


def _run_job(conn: sqlite3.Connection, job: Job[_T]) -> _T:
    """Run a storage/records.py job's statements on ``conn`` (inside the caller's
    transaction), sending each one's rows back."""
    try:
        step: Step = next(job)
        while True:
            if step.many:
                conn.executemany(step.sql, step.params)
                rows: list[Any] = []
            else:
                rows = conn.execute(step.sql, step.params).fetchall()
            step = job.send(rows)
    except StopIteration as done:
        result: _T = done.value
        return result


def _all(conn: sqlite3.Connection, sql: str, params: Sequence[object] = ()) -> list[Any]:
    return conn.execute(sql, params).fetchall()


class Storage(SqliteChats, SqliteHistory, SqliteOutbox, RecordsMixin):
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
        tests/test_storage.py pins the behaviour relied on here.
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
        """A storage/records.py job, as one transaction."""
        return await (self._write if write else self._read)(lambda conn: _run_job(conn, job))

    # --- coordination (one process: these are trivial; see storage/pg.py) -------

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

    async def get_selection(self, game_id: int, user_id: int, version: int) -> list[str] | None:
        return None  # one process: the bot keeps card selections in memory

    async def set_selection(
        self, game_id: int, user_id: int, version: int, cards: list[str]
    ) -> None:
        return None

    async def ping(self) -> bool:
        try:
            await self._read(lambda conn: _all(conn, "SELECT 1"))
        except Exception:
            return False
        return True

    async def update_seen(self, update_id: int) -> bool:
        rows = await self._read(
            lambda conn: _all(conn, "SELECT 1 FROM updates WHERE update_id = ?", (update_id,))
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
                _run_job(conn, migrate_records(old_id, new_id))

            await self._write(body)
        except sqlite3.IntegrityError as exc:
            raise StorageError(
                f"cannot move chat {old_id} to {new_id}: both have an open game in the same"
                f" thread ({exc})"
            ) from exc

    # --- games ---------------------------------------------------------------

    def _games(self, conn: sqlite3.Connection, where: str, params: Sequence[object]) -> list[Game]:
        # `where` is always a literal from this module; values go through `params`.
        rows = list(_all(conn, f"SELECT {GAME_COLUMNS} FROM games WHERE {where}", params))
        # Sorted here, not by ORDER BY id: that tempts the planner to walk the whole table
        # in rowid order (finished games too) instead of using the partial indexes.
        rows.sort(key=lambda row: row[0])
        if not rows:
            return []
        ids = [row[0] for row in rows]
        seat_rows = _all(
            conn,
            f"SELECT {SEAT_COLUMNS} FROM seats"
            " WHERE game_id IN (SELECT value FROM json_each(?)) ORDER BY game_id, seat",
            (dumps(ids),),
        )
        seats: dict[int, list[Seat]] = {game_id: [] for game_id in ids}
        for raw in seat_rows:
            seats[raw[0]].append(seat_row(raw))
        return [game_row(row, tuple(seats[row[0]])) for row in rows]

    def _game(self, conn: sqlite3.Connection, game_id: int) -> Game | None:
        games = self._games(conn, "id = ?", (game_id,))
        return games[0] if games else None

    def _open_game(
        self, conn: sqlite3.Connection, chat_id: int, thread_id: int | None
    ) -> Game | None:
        # The expression matches the partial unique index, so this is an index lookup.
        games = self._games(
            conn,
            f"chat_id = ? AND COALESCE(thread_id, 0) = ? AND {OPEN_GAMES}",
            (chat_id, thread_id or 0),
        )
        return games[0] if games else None

    async def create_game(
        self,
        chat_id: int,
        thread_id: int | None,
        rules: dict[str, Any],
        created_by: int,
        seats: tuple[Seat, ...],
        lobby_expires_at: float | None,
        outbox: tuple[OutboxOp, ...] = (),
    ) -> Game:
        """A new game in the lobby at version 0, with its outbox rows in the same transaction.

        Outbox ops without a ``game_id`` get the new game's id (the caller cannot know it
        yet), so e.g. the lobby message's id is recorded when the send is done.
        Raises :class:`GameExistsError` if (chat, thread) already has an open game.
        """
        now = time.time()

        def body(conn: sqlite3.Connection) -> Game | None:
            existing = self._open_game(conn, chat_id, thread_id)
            if existing is not None:
                raise GameExistsError(existing)
            cursor = conn.execute(
                "INSERT INTO games (chat_id, thread_id, status, rules, version, created_by,"
                " created_at, updated_at, lobby_expires_at)"
                " VALUES (?, ?, 'lobby', ?, 0, ?, ?, ?, ?)",
                (chat_id, thread_id, dumps(rules), created_by, now, now, lobby_expires_at),
            )
            game_id = cursor.lastrowid
            assert game_id is not None
            self._write_seats(conn, game_id, seats)
            self._write_outbox(conn, outbox, now, game_id)
            game = self._game(conn, game_id)
            return game

        game = await self._write(body)
        assert game is not None
        return game

    async def get_game(self, game_id: int) -> Game | None:
        def body(conn: sqlite3.Connection) -> Game | None:
            return self._game(conn, game_id)

        return await self._read(body)

    async def open_game(self, chat_id: int, thread_id: int | None) -> Game | None:
        def body(conn: sqlite3.Connection) -> Game | None:
            return self._open_game(conn, chat_id, thread_id)

        return await self._read(body)

    async def active_games(self) -> list[Game]:
        def body(conn: sqlite3.Connection) -> list[Game]:
            return self._games(conn, OPEN_GAMES, ())

        return await self._read(body)

    async def games_of_user(self, user_id: int) -> list[Game]:
        def body(conn: sqlite3.Connection) -> list[Game]:
            return self._games(
                conn,
                f"{OPEN_GAMES} AND id IN (SELECT game_id FROM seats WHERE user_id = ?)",
                (user_id,),
            )

        return await self._read(body)

    async def commit(self, game_id: int, expected_version: int, change: GameChange) -> Game:
        """Apply ``change`` atomically and return the game at ``expected_version + 1``.

        Raises :class:`StaleVersionError` (nothing written) if the game is not at
        ``expected_version``; any other failure also rolls the whole change back.
        """
        try:

            def body(conn: sqlite3.Connection) -> Game:
                return self._commit(conn, game_id, expected_version, change)

            return await self._write(body)
        except sqlite3.IntegrityError as exc:
            raise StorageError(
                f"game {game_id}: change at version {expected_version} refused by a database"
                f" constraint, nothing written ({exc})"
            ) from exc

    def _commit(
        self, conn: sqlite3.Connection, game_id: int, expected: int, change: GameChange
    ) -> Game:
        now = time.time()
        # Snapshot the status first: stats count a series only on its transition to finished.
        before = list(
            _all(
                conn, "SELECT version, status, chat_id, winners FROM games WHERE id = ?", (game_id,)
            )
        )
        if not before:
            raise GameNotFoundError(f"no game {game_id}")
        version, old_status, chat_id, old_winners = before[0]
        # The compare-and-set that makes concurrent writers safe even across processes.
        cursor = conn.execute(
            "UPDATE games SET version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
            (now, game_id, expected),
        )
        if cursor.rowcount != 1:
            raise StaleVersionError(
                f"game {game_id} is at version {version}, not {expected}; reload and retry"
            )
        new_version = expected + 1

        sets: list[str] = []
        params: list[object] = []
        if change.status is not None:
            if change.status not in GAME_STATUSES:
                raise StorageError(f"unknown game status {change.status!r}")
            sets.append("status = ?")
            params.append(change.status)
        if change.first_dealer is not None:
            sets.append("first_dealer = ?")
            params.append(change.first_dealer)
        if change.deadline is not _UNSET:
            if change.deadline is not None and not isinstance(change.deadline, Deadline):
                raise TypeError(f"deadline must be a Deadline or None, not {change.deadline!r}")
            sets.append(
                "deadline_seat = ?, deadline_due_at = ?, deadline_remind_at = ?,"
                " deadline_reminded = ?"
            )
            params.extend(deadline_params(change.deadline))
        if change.lobby_expires_at is not _UNSET:
            sets.append("lobby_expires_at = ?")
            params.append(change.lobby_expires_at)
        if change.winners is not None:
            sets.append("winners = ?")
            params.append(dumps(list(change.winners)))
        if change.rules is not None:
            if old_status != "lobby":
                raise StorageError(f"game {game_id} has started: its rules cannot change")
            sets.append("rules = ?")
            params.append(dumps(change.rules))
        if sets:
            # Column names are literals above; only values are parameters.
            conn.execute(f"UPDATE games SET {', '.join(sets)} WHERE id = ?", (*params, game_id))
        if change.seats is not None:
            conn.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            self._write_seats(conn, game_id, change.seats)
        if change.new_deal is not None:
            deal = change.new_deal
            conn.execute(
                "INSERT INTO deals (game_id, deal_index, dealer, deck) VALUES (?, ?, ?, ?)",
                (game_id, deal.deal_index, deal.dealer, dumps(list(deal.deck))),
            )
        if change.move is not None:
            conn.execute(
                "INSERT INTO moves (game_id, version, deal_index, move) VALUES (?, ?, ?, ?)",
                (game_id, new_version, change.move.deal_index, dumps(change.move.move)),
            )

        seats: tuple[Seat, ...] | None = None
        if change.tally is not None:
            tally = change.tally
            conn.execute(
                "INSERT INTO tallies (game_id, deal_index, points, penalties) VALUES (?, ?, ?, ?)",
                (
                    game_id,
                    tally.deal_index,
                    dumps(list(tally.points)),
                    dumps(list(tally.penalties)),
                ),
            )
            seats = self._seats(conn, game_id)
            if len(tally.penalties) != len(seats):
                raise StorageError(
                    f"game {game_id}: tally has {len(tally.penalties)} penalties for"
                    f" {len(seats)} seats"
                )
            self._add_stats(
                conn,
                chat_id,
                [(s, 1, tally.penalties[s.seat], 0, 0) for s in seats if s.user_id is not None],
            )
        if change.status == "finished" and old_status != "finished":
            if seats is None:
                seats = self._seats(conn, game_id)
            winners = change.winners
            if winners is None and old_winners is not None:
                winners = loads_ints(f"games row {game_id}", "winners", old_winners)
            won = set(winners or ())
            self._add_stats(
                conn,
                chat_id,
                [(s, 0, 0, 1, int(s.seat in won)) for s in seats if s.user_id is not None],
            )
        end = finishing_series(game_id, change, old_status)
        if end is not None:
            _run_job(conn, record_series(game_id, chat_id, end, now))
        self._write_outbox(conn, change.outbox, now, game_id)
        game = self._game(conn, game_id)
        assert game is not None
        return game

    def _seats(self, conn: sqlite3.Connection, game_id: int) -> tuple[Seat, ...]:
        rows = _all(
            conn, f"SELECT {SEAT_COLUMNS} FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
        )
        return tuple(seat_row(row) for row in rows)

    def _write_seats(self, conn: sqlite3.Connection, game_id: int, seats: Iterable[Seat]) -> None:
        conn.executemany(
            f"INSERT INTO seats ({SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (game_id, s.seat, s.user_id, s.bot_level, s.name, int(s.away), s.autoplayed)
                for s in seats
            ],
        )

    def _add_stats(
        self,
        conn: sqlite3.Connection,
        chat_id: int,
        rows: list[tuple[Seat, int, int, int, int]],
    ) -> None:
        """Add (deals, penalties, series played, series won) per seated user."""
        conn.executemany(
            "INSERT INTO stats (chat_id, user_id, name, deals_played, penalties, series_played,"
            " series_won) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (chat_id, user_id) DO UPDATE SET name = excluded.name,"
            " deals_played = deals_played + excluded.deals_played,"
            " penalties = penalties + excluded.penalties,"
            " series_played = series_played + excluded.series_played,"
            " series_won = series_won + excluded.series_won",
            [(chat_id, s.user_id, s.name, d, p, sp, sw) for s, d, p, sp, sw in rows],
        )

    async def due_deadlines(self, now: float) -> list[Game]:
        def body(conn: sqlite3.Connection) -> list[Game]:
            return self._games(
                conn,
                # A UNION of two searches on the partial indexes: written as one OR,
                # SQLite scans the whole games table, finished games included.
                "id IN (SELECT id FROM games WHERE status = 'playing' AND deadline_due_at <= ?"
                " UNION SELECT id FROM games WHERE status = 'playing' AND deadline_reminded = 0"
                " AND deadline_remind_at <= ?)",
                (now, now),
            )

        return await self._read(body)

    async def expired_lobbies(self, now: float) -> list[Game]:
        def body(conn: sqlite3.Connection) -> list[Game]:
            return self._games(conn, "status = 'lobby' AND lobby_expires_at <= ?", (now,))

        return await self._read(body)


def _claimed(update_id: int, body: _Body[_T], conn: sqlite3.Connection) -> _T:
    """Record ``update_id`` as handled, then run ``body``: both or neither are committed."""
    try:
        conn.execute(
            "INSERT INTO updates (update_id, handled_at) VALUES (?, ?)", (update_id, time.time())
        )
    except sqlite3.IntegrityError:
        raise DuplicateUpdateError(f"update {update_id} was already handled") from None
    return body(conn)
