"""Games in SQLite (mixed into :class:`storage.sqlite.Storage`): creating and finding them,
and the versioned commit that applies a change (moves, seats, deals, tallies, stats, the
series record and the outbox rows) in one transaction. The contract is
storage/contract.py's."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from storage.errors import GameExistsError, GameNotFoundError, StaleVersionError, StorageError
from storage.jobs import Job, Step
from storage.models import Game, GameChange, OutboxOp, Seat
from storage.records import finishing_series, record_series
from storage.rows import (
    GAME_COLUMNS,
    OPEN_GAMES,
    SEAT_COLUMNS,
    dumps,
    game_row,
    game_updates,
    loads_ints,
    seat_row,
)

_T = TypeVar("_T")


def run_job(conn: sqlite3.Connection, job: Job[_T]) -> _T:
    """Run the statements of a job (storage/jobs.py) on ``conn`` (inside the caller's
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


def fetch_all(conn: sqlite3.Connection, sql: str, params: Sequence[object] = ()) -> list[Any]:
    return conn.execute(sql, params).fetchall()


class SqliteGames:
    """The games methods of the SQLite backend."""

    if TYPE_CHECKING:  # provided by storage.sqlite.Storage and storage/sqlite/outbox.py

        async def _read(self, body: Callable[[sqlite3.Connection], _T]) -> _T: ...

        async def _write(self, body: Callable[[sqlite3.Connection], _T]) -> _T: ...

        def _write_outbox(
            self,
            conn: sqlite3.Connection,
            ops: Iterable[OutboxOp],
            now: float,
            game_id: int | None = None,
        ) -> None: ...

    def _games(self, conn: sqlite3.Connection, where: str, params: Sequence[object]) -> list[Game]:
        # `where` is always a literal from this module; values go through `params`.
        rows = list(fetch_all(conn, f"SELECT {GAME_COLUMNS} FROM games WHERE {where}", params))
        # Sorted here, not by ORDER BY id: that tempts the planner to walk the whole table
        # in rowid order (finished games too) instead of using the partial indexes.
        rows.sort(key=lambda row: row[0])
        if not rows:
            return []
        ids = [row[0] for row in rows]
        seat_rows = fetch_all(
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
            fetch_all(
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

        sets, params = game_updates(game_id, change, old_status, new_version)
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
            run_job(conn, record_series(game_id, chat_id, end, now))
        self._write_outbox(conn, change.outbox, now, game_id)
        game = self._game(conn, game_id)
        assert game is not None
        return game

    def _seats(self, conn: sqlite3.Connection, game_id: int) -> tuple[Seat, ...]:
        rows = fetch_all(
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
