"""The :class:`Storage` facade: one long-lived aiosqlite connection, typed repositories."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, TypeAlias, TypeVar

import aiosqlite

from storage.errors import (
    CorruptRecordError,
    GameExistsError,
    GameNotFoundError,
    StaleVersionError,
    StorageError,
)
from storage.migrations import SCHEMA_VERSION, migrate, refuse_newer, schema_version
from storage.models import (
    _UNSET,
    GAME_STATUSES,
    OUTBOX_METHODS,
    Chat,
    Deadline,
    DealStart,
    DealTally,
    Game,
    GameChange,
    GameState,
    LoggedMove,
    MessageRef,
    OutboxItem,
    OutboxOp,
    Seat,
    User,
    UserStats,
)
from storage.records import (
    Job,
    RecordsMixin,
    Step,
    finishing_series,
    game_record,
    migrate_records,
    record_series,
)
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

_GAME_COLUMNS: Final = (
    "id, chat_id, thread_id, status, rules, version, created_by, created_at, first_dealer,"
    " deadline_seat, deadline_due_at, deadline_remind_at, deadline_reminded,"
    " lobby_expires_at, winners"
)
_SEAT_COLUMNS: Final = "game_id, seat, user_id, bot_level, name, away, autoplayed"
_OUTBOX_COLUMNS: Final = (
    "id, chat_id, method, payload, game_id, role, attempts, not_before, created_at, last_error"
)
_OPEN: Final = "status IN ('lobby', 'playing')"


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


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _loads(where: str, column: str, text: object) -> Any:
    if not isinstance(text, str | bytes):
        raise CorruptRecordError(f"{where}: column {column} holds {type(text).__name__}, not JSON")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CorruptRecordError(f"{where}: column {column} is not valid JSON ({exc})") from None


def _loads_dict(where: str, column: str, text: object) -> dict[str, Any]:
    value = _loads(where, column, text)
    if not isinstance(value, dict):
        raise CorruptRecordError(f"{where}: column {column} must hold a JSON object")
    return value


def _loads_ints(where: str, column: str, text: object) -> tuple[int, ...]:
    value = _loads(where, column, text)
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise CorruptRecordError(f"{where}: column {column} must hold a list of whole numbers")
    return tuple(value)


def _int(where: str, column: str, value: object) -> int:
    if type(value) is not int:
        raise CorruptRecordError(f"{where}: column {column} must be a whole number, not {value!r}")
    return value


def _opt_int(where: str, column: str, value: object) -> int | None:
    return None if value is None else _int(where, column, value)


def _float(where: str, column: str, value: object) -> float:
    if type(value) not in (int, float):
        raise CorruptRecordError(f"{where}: column {column} must be a number, not {value!r}")
    return float(value)  # type: ignore[arg-type]


def _opt_float(where: str, column: str, value: object) -> float | None:
    return None if value is None else _float(where, column, value)


def _opt_str(where: str, column: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise CorruptRecordError(f"{where}: column {column} must be text, not {value!r}")
    return value


def _str(where: str, column: str, value: object) -> str:
    text = _opt_str(where, column, value)
    if text is None:
        raise CorruptRecordError(f"{where}: column {column} is missing")
    return text


def _seat(row: Sequence[Any]) -> Seat:
    where = f"seats row (game {row[0]}, seat {row[1]})"
    return Seat(
        seat=_int(where, "seat", row[1]),
        user_id=_opt_int(where, "user_id", row[2]),
        bot_level=_opt_str(where, "bot_level", row[3]),
        name=_str(where, "name", row[4]),
        away=bool(row[5]),
        autoplayed=_int(where, "autoplayed", row[6]),
    )


def _game(row: Sequence[Any], seats: tuple[Seat, ...]) -> Game:
    where = f"games row {row[0]}"
    status = _str(where, "status", row[3])
    if status not in GAME_STATUSES:
        raise CorruptRecordError(f"{where}: unknown status {status!r}")
    deadline = None
    if row[10] is not None:
        deadline = Deadline(
            seat=_int(where, "deadline_seat", row[9]),
            due_at=_float(where, "deadline_due_at", row[10]),
            remind_at=_opt_float(where, "deadline_remind_at", row[11]),
            reminded=bool(row[12]),
        )
    return Game(
        id=_int(where, "id", row[0]),
        chat_id=_int(where, "chat_id", row[1]),
        thread_id=_opt_int(where, "thread_id", row[2]),
        status=status,
        rules=_loads_dict(where, "rules", row[4]),
        version=_int(where, "version", row[5]),
        seats=seats,
        created_by=_int(where, "created_by", row[6]),
        created_at=_float(where, "created_at", row[7]),
        first_dealer=_opt_int(where, "first_dealer", row[8]),
        deadline=deadline,
        lobby_expires_at=_opt_float(where, "lobby_expires_at", row[13]),
        winners=None if row[14] is None else _loads_ints(where, "winners", row[14]),
    )


def _outbox_item(row: Sequence[Any]) -> OutboxItem:
    where = f"outbox row {row[0]}"
    return OutboxItem(
        id=_int(where, "id", row[0]),
        chat_id=_int(where, "chat_id", row[1]),
        method=_str(where, "method", row[2]),
        stored_payload=_str(where, "payload", row[3]),
        game_id=_opt_int(where, "game_id", row[4]),
        role=_opt_str(where, "role", row[5]),
        attempts=_int(where, "attempts", row[6]),
        not_before=_float(where, "not_before", row[7]),
        created_at=_float(where, "created_at", row[8]),
        last_error=_opt_str(where, "last_error", row[9]),
    )


def _chat(row: Sequence[Any]) -> Chat:
    where = f"chats row {row[0]}"
    return Chat(
        id=_int(where, "id", row[0]),
        title=_str(where, "title", row[1]),
        language=_opt_str(where, "language", row[2]),
        rules=_loads_dict(where, "rules", row[3]),
        migrated_to=_opt_int(where, "migrated_to", row[4]),
        stamp=_int(where, "stamp", row[5]),
    )


def _user(row: Sequence[Any]) -> User:
    where = f"users row {row[0]}"
    return User(
        id=_int(where, "id", row[0]),
        name=_str(where, "name", row[1]),
        username=_opt_str(where, "username", row[2]),
        language=_opt_str(where, "language", row[3]),
        started=bool(row[4]),
    )


def _logged_move(game_id: int, row: Sequence[Any]) -> LoggedMove:
    """A moves row (version, deal_index, move)."""
    where = f"moves row (game {game_id}, version {row[0]})"
    return LoggedMove(_int(where, "deal_index", row[1]), _loads_dict(where, "move", row[2]))


def _deadline_params(deadline: Deadline | None) -> tuple[object, ...]:
    if deadline is None:
        return (None, None, None, 0)
    return (deadline.seat, deadline.due_at, deadline.remind_at, int(deadline.reminded))


class Storage(RecordsMixin):
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

    async def outbox_oldest(self) -> float | None:
        """When the oldest pending outbox row was queued (for /metrics)."""
        rows = await self._read(lambda conn: _all(conn, "SELECT MIN(created_at) FROM outbox"))
        return None if rows[0][0] is None else float(rows[0][0])

    # --- chats & users -------------------------------------------------------

    async def upsert_chat(self, chat_id: int, title: str) -> Chat:
        def body(conn: sqlite3.Connection) -> Chat | None:
            conn.execute(
                "INSERT INTO chats (id, title) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET title = excluded.title,"
                " stamp = chats.stamp + (chats.title IS NOT excluded.title)",
                (chat_id, title),
            )
            chat = self._chat(conn, chat_id)
            return chat

        chat = await self._write(body)
        assert chat is not None
        return chat

    async def get_chat(self, chat_id: int) -> Chat | None:
        def body(conn: sqlite3.Connection) -> Chat | None:
            return self._chat(conn, chat_id)

        return await self._read(body)

    def _chat(self, conn: sqlite3.Connection, chat_id: int) -> Chat | None:
        rows = list(
            _all(
                conn,
                "SELECT id, title, language, rules, migrated_to, stamp FROM chats WHERE id = ?",
                (chat_id,),
            )
        )
        return _chat(rows[0]) if rows else None

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO chats (id, language) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET language = excluded.language,"
                " stamp = chats.stamp + 1",
                (chat_id, language),
            )

        await self._write(body)

    async def set_chat_rules(self, chat_id: int, rules: dict[str, Any]) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO chats (id, rules) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET rules = excluded.rules,"
                " stamp = chats.stamp + 1",
                (chat_id, _dumps(rules)),
            )

        await self._write(body)

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

    async def upsert_user(
        self, user_id: int, name: str, username: str | None, language: str | None
    ) -> User:
        def body(conn: sqlite3.Connection) -> User | None:
            conn.execute(
                "INSERT INTO users (id, name, username, language) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET name = excluded.name,"
                " username = excluded.username, language = excluded.language",
                (user_id, name, username, language),
            )
            user = self._user(conn, user_id)
            return user

        user = await self._write(body)
        assert user is not None
        return user

    async def get_user(self, user_id: int) -> User | None:
        def body(conn: sqlite3.Connection) -> User | None:
            return self._user(conn, user_id)

        return await self._read(body)

    def _user(self, conn: sqlite3.Connection, user_id: int) -> User | None:
        rows = list(
            _all(
                conn,
                "SELECT id, name, username, language, started FROM users WHERE id = ?",
                (user_id,),
            )
        )
        return _user(rows[0]) if rows else None

    async def set_user_started(self, user_id: int, started: bool) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO users (id, name, started) VALUES (?, '', ?)"
                " ON CONFLICT (id) DO UPDATE SET started = excluded.started",
                (user_id, int(started)),
            )

        await self._write(body)

    # --- games ---------------------------------------------------------------

    def _games(self, conn: sqlite3.Connection, where: str, params: Sequence[object]) -> list[Game]:
        # `where` is always a literal from this module; values go through `params`.
        rows = list(_all(conn, f"SELECT {_GAME_COLUMNS} FROM games WHERE {where}", params))
        # Sorted here, not by ORDER BY id: that tempts the planner to walk the whole table
        # in rowid order (finished games too) instead of using the partial indexes.
        rows.sort(key=lambda row: row[0])
        if not rows:
            return []
        ids = [row[0] for row in rows]
        seat_rows = _all(
            conn,
            f"SELECT {_SEAT_COLUMNS} FROM seats"
            " WHERE game_id IN (SELECT value FROM json_each(?)) ORDER BY game_id, seat",
            (_dumps(ids),),
        )
        seats: dict[int, list[Seat]] = {game_id: [] for game_id in ids}
        for seat_row in seat_rows:
            seats[seat_row[0]].append(_seat(seat_row))
        return [_game(row, tuple(seats[row[0]])) for row in rows]

    def _game(self, conn: sqlite3.Connection, game_id: int) -> Game | None:
        games = self._games(conn, "id = ?", (game_id,))
        return games[0] if games else None

    def _open_game(
        self, conn: sqlite3.Connection, chat_id: int, thread_id: int | None
    ) -> Game | None:
        # The expression matches the partial unique index, so this is an index lookup.
        games = self._games(
            conn,
            f"chat_id = ? AND COALESCE(thread_id, 0) = ? AND {_OPEN}",
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
                (chat_id, thread_id, _dumps(rules), created_by, now, now, lobby_expires_at),
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
            return self._games(conn, _OPEN, ())

        return await self._read(body)

    async def games_of_user(self, user_id: int) -> list[Game]:
        def body(conn: sqlite3.Connection) -> list[Game]:
            return self._games(
                conn,
                f"{_OPEN} AND id IN (SELECT game_id FROM seats WHERE user_id = ?)",
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
            params.extend(_deadline_params(change.deadline))
        if change.lobby_expires_at is not _UNSET:
            sets.append("lobby_expires_at = ?")
            params.append(change.lobby_expires_at)
        if change.winners is not None:
            sets.append("winners = ?")
            params.append(_dumps(list(change.winners)))
        if change.rules is not None:
            if old_status != "lobby":
                raise StorageError(f"game {game_id} has started: its rules cannot change")
            sets.append("rules = ?")
            params.append(_dumps(change.rules))
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
                (game_id, deal.deal_index, deal.dealer, _dumps(list(deal.deck))),
            )
        if change.move is not None:
            conn.execute(
                "INSERT INTO moves (game_id, version, deal_index, move) VALUES (?, ?, ?, ?)",
                (game_id, new_version, change.move.deal_index, _dumps(change.move.move)),
            )

        seats: tuple[Seat, ...] | None = None
        if change.tally is not None:
            tally = change.tally
            conn.execute(
                "INSERT INTO tallies (game_id, deal_index, points, penalties) VALUES (?, ?, ?, ?)",
                (
                    game_id,
                    tally.deal_index,
                    _dumps(list(tally.points)),
                    _dumps(list(tally.penalties)),
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
                winners = _loads_ints(f"games row {game_id}", "winners", old_winners)
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
            conn, f"SELECT {_SEAT_COLUMNS} FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
        )
        return tuple(_seat(row) for row in rows)

    def _write_seats(self, conn: sqlite3.Connection, game_id: int, seats: Iterable[Seat]) -> None:
        conn.executemany(
            f"INSERT INTO seats ({_SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
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

    def _write_outbox(
        self,
        conn: sqlite3.Connection,
        ops: Iterable[OutboxOp],
        now: float,
        game_id: int | None = None,
    ) -> None:
        rows = []
        for op in ops:
            if op.method not in OUTBOX_METHODS:
                raise StorageError(f"unknown outbox method {op.method!r}")
            rows.append(
                (
                    op.chat_id,
                    op.method,
                    _dumps(op.payload),
                    op.game_id if op.game_id is not None else game_id,
                    op.role,
                    now,
                    now,
                )
            )
        if rows:
            conn.executemany(
                "INSERT INTO outbox (chat_id, method, payload, game_id, role, not_before,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                rows,
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

    # --- move log / records --------------------------------------------------

    async def deals(self, game_id: int) -> list[DealStart]:
        def body(conn: sqlite3.Connection) -> list[DealStart]:
            return self._deals(conn, game_id)

        return await self._read(body)

    def _deals(self, conn: sqlite3.Connection, game_id: int) -> list[DealStart]:
        rows = _all(
            conn,
            "SELECT deal_index, dealer, deck FROM deals WHERE game_id = ? ORDER BY deal_index",
            (game_id,),
        )
        result = []
        for row in rows:
            where = f"deals row (game {game_id}, deal {row[0]})"
            deck = _loads(where, "deck", row[2])
            if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
                raise CorruptRecordError(f"{where}: column deck must hold a list of card codes")
            result.append(
                DealStart(
                    _int(where, "deal_index", row[0]), _int(where, "dealer", row[1]), tuple(deck)
                )
            )
        return result

    async def moves(self, game_id: int) -> list[LoggedMove]:
        def body(conn: sqlite3.Connection) -> list[LoggedMove]:
            return self._moves(conn, game_id)

        return await self._read(body)

    async def catch_up(self, game_id: int, version: int) -> tuple[Game, list[LoggedMove]] | None:
        """The game and the moves logged after ``version``, in one snapshot; None if the
        game is gone or some change since was not a move (a copy at ``version`` cannot
        be brought up to date by replaying moves)."""

        def body(conn: sqlite3.Connection) -> tuple[Game, list[LoggedMove]] | None:
            game = self._game(conn, game_id)
            if game is None:
                return None
            rows = _all(
                conn,
                "SELECT version, deal_index, move FROM moves WHERE game_id = ? AND version > ?"
                " ORDER BY version",
                (game_id, version),
            )
            if len(rows) != game.version - version:
                return None
            return game, [_logged_move(game_id, row) for row in rows]

        return await self._read(body)

    def _moves(self, conn: sqlite3.Connection, game_id: int) -> list[LoggedMove]:
        rows = _all(
            conn,
            "SELECT version, deal_index, move FROM moves WHERE game_id = ? ORDER BY version",
            (game_id,),
        )
        return [_logged_move(game_id, row) for row in rows]

    async def tallies(self, game_id: int) -> list[DealTally]:
        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = _all(
                conn,
                "SELECT deal_index, points, penalties FROM tallies WHERE game_id = ?"
                " ORDER BY deal_index",
                (game_id,),
            )
            return rows

        rows = await self._read(body)
        result = []
        for row in rows:
            where = f"tallies row (game {game_id}, deal {row[0]})"
            result.append(
                DealTally(
                    _int(where, "deal_index", row[0]),
                    _loads_ints(where, "points", row[1]),
                    _loads_ints(where, "penalties", row[2]),
                )
            )
        return result

    async def export_record(self, game_id: int) -> dict[str, Any]:
        """The game as its engine's record (``burkozel-record/1`` or ``bura-record/1``) (``engine.replay`` accepts it).

        Deals, moves and the game row are read in one transaction, so the record is a
        consistent snapshot even while another process is committing.
        """

        def body(conn: sqlite3.Connection) -> tuple[Game, list[DealStart], list[LoggedMove]]:
            game = self._game(conn, game_id)
            if game is None:
                raise GameNotFoundError(f"no game {game_id}")
            deals = self._deals(conn, game_id)
            moves = self._moves(conn, game_id)
            return game, deals, moves

        game, deals, moves = await self._read(body)
        by_deal: dict[int, list[dict[str, Any]]] = {d.deal_index: [] for d in deals}
        for move in moves:
            if move.deal_index not in by_deal:
                raise CorruptRecordError(
                    f"game {game_id}: a move belongs to deal {move.deal_index}, which has no deck"
                )
            by_deal[move.deal_index].append(move.move)
        return game_record(game, deals, by_deal)

    # --- stats ---------------------------------------------------------------

    async def chat_stats(self, chat_id: int) -> list[UserStats]:
        """Per-user statistics of a chat: most series won first, then fewest penalties."""

        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = _all(
                conn,
                "SELECT s.user_id, COALESCE(NULLIF(u.name, ''), s.name), s.series_played,"
                " s.series_won, s.deals_played, s.penalties"
                " FROM stats s LEFT JOIN users u ON u.id = s.user_id WHERE s.chat_id = ?"
                " ORDER BY s.series_won DESC, s.penalties ASC, s.user_id",
                (chat_id,),
            )
            return rows

        rows = await self._read(body)
        result = []
        for row in rows:
            where = f"stats row (chat {chat_id}, user {row[0]})"
            result.append(
                UserStats(
                    _int(where, "user_id", row[0]),
                    _str(where, "name", row[1]),
                    *(
                        _int(where, col, v)
                        for col, v in zip(
                            ("series_played", "series_won", "deals_played", "penalties"),
                            row[2:],
                            strict=True,
                        )
                    ),
                )
            )
        return result

    # --- messages the games own ----------------------------------------------

    async def set_message(self, game_id: int, role: str, chat_id: int, message_id: int) -> None:
        def body(conn: sqlite3.Connection) -> None:
            self._set_message(conn, game_id, role, chat_id, message_id)

        await self._write(body)

    def _set_message(
        self, conn: sqlite3.Connection, game_id: int, role: str, chat_id: int, message_id: int
    ) -> None:
        conn.execute(
            "INSERT INTO messages (game_id, role, chat_id, message_id) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (game_id, role) DO UPDATE SET chat_id = excluded.chat_id,"
            " message_id = excluded.message_id",
            (game_id, role, chat_id, message_id),
        )

    async def get_message(self, game_id: int, role: str) -> MessageRef | None:
        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = list(
                _all(
                    conn,
                    "SELECT game_id, role, chat_id, message_id FROM messages"
                    " WHERE game_id = ? AND role = ?",
                    (game_id, role),
                )
            )
            return rows

        rows = await self._read(body)
        return _message(rows[0]) if rows else None

    async def game_messages(self, game_id: int) -> list[MessageRef]:
        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = _all(
                conn,
                "SELECT game_id, role, chat_id, message_id FROM messages WHERE game_id = ?"
                " ORDER BY role",
                (game_id,),
            )
            return rows

        rows = await self._read(body)
        return [_message(row) for row in rows]

    async def forget_message(self, game_id: int, role: str) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM messages WHERE game_id = ? AND role = ?", (game_id, role))

        await self._write(body)

    # --- outbox --------------------------------------------------------------

    async def enqueue(self, ops: tuple[OutboxOp, ...]) -> None:
        def body(conn: sqlite3.Connection) -> None:
            self._write_outbox(conn, ops, time.time())

        await self._write(body)

    async def pending(self, now: float, limit: int = 100) -> list[OutboxItem]:
        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = _all(
                conn,
                f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE not_before <= ? ORDER BY id LIMIT ?",
                (now, limit),
            )
            return rows

        rows = await self._read(body)
        return [_outbox_item(row) for row in rows]

    async def outbox_heads(self, limit: int = 10_000) -> list[OutboxItem]:
        """The oldest row of each chat, due or not, oldest first.

        A sender that keeps each chat in order needs exactly these; unlike
        :meth:`pending` they are not crowded out by one chat's long backlog.
        """

        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = _all(
                conn,
                f"SELECT {_OUTBOX_COLUMNS} FROM outbox WHERE id IN"
                " (SELECT MIN(id) FROM outbox GROUP BY chat_id) ORDER BY id LIMIT ?",
                (limit,),
            )
            return rows

        rows = await self._read(body)
        return [_outbox_item(row) for row in rows]

    async def outbox_done(self, item_id: int, message_id: int | None = None) -> None:
        """Delete a delivered row; a game message's new id is recorded in the same transaction.

        Recording happens only for rows with a game and a role and when ``message_id``
        is given, so a crash between the two can never leave a sent message unrecorded.
        """

        def body(conn: sqlite3.Connection) -> None:
            rows = list(
                _all(
                    conn,
                    "DELETE FROM outbox WHERE id = ? RETURNING chat_id, game_id, role",
                    (item_id,),
                )
            )
            if not rows:
                return  # already done (e.g. a retried worker): nothing to record twice
            chat_id, game_id, role = rows[0]
            if message_id is not None and game_id is not None and role is not None:
                self._set_message(conn, game_id, role, chat_id, message_id)

        await self._write(body)

    async def outbox_retry(
        self, item_id: int, not_before: float, error: str, *, count_attempt: bool = True
    ) -> None:
        """Put an item back until ``not_before``. A flood wait is Telegram pacing us, not a
        failure, so the caller passes ``count_attempt=False`` for it."""

        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE outbox SET attempts = attempts + ?, not_before = ?, last_error = ?"
                " WHERE id = ?",
                (1 if count_attempt else 0, not_before, error, item_id),
            )

        await self._write(body)

    async def outbox_drop_superseded(self) -> int:
        """Drop pending edits of a game message that a newer pending edit replaces."""

        def body(conn: sqlite3.Connection) -> int:
            cursor = conn.execute(
                "DELETE FROM outbox WHERE method = 'edit' AND game_id IS NOT NULL"
                " AND role IS NOT NULL AND id < (SELECT MAX(newer.id) FROM outbox AS newer"
                " WHERE newer.method = 'edit' AND newer.game_id = outbox.game_id"
                " AND newer.role = outbox.role)"
            )
            return cursor.rowcount

        return await self._write(body)

    async def outbox_size(self) -> int:
        def body(conn: sqlite3.Connection) -> Any:
            (row,) = _all(conn, "SELECT COUNT(*) FROM outbox")
            return row

        row = await self._read(body)
        return int(row[0])


def _claimed(update_id: int, body: _Body[_T], conn: sqlite3.Connection) -> _T:
    """Record ``update_id`` as handled, then run ``body``: both or neither are committed."""
    try:
        conn.execute(
            "INSERT INTO updates (update_id, handled_at) VALUES (?, ?)", (update_id, time.time())
        )
    except sqlite3.IntegrityError:
        raise DuplicateUpdateError(f"update {update_id} was already handled") from None
    return body(conn)


def _message(row: Sequence[Any]) -> MessageRef:
    where = f"messages row (game {row[0]}, role {row[1]})"
    return MessageRef(
        _int(where, "game_id", row[0]),
        _str(where, "role", row[1]),
        _int(where, "chat_id", row[2]),
        _int(where, "message_id", row[3]),
    )
