"""Games in PostgreSQL (mixed into :class:`storage.postgres.PgStorage`): creating and finding
them, and the versioned commit (one statement for a plain move, else one transaction), as
storage/sqlite/games.py keeps them for SQLite. The contract is storage/contract.py's."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg

from storage.errors import GameExistsError, GameNotFoundError, StaleVersionError, StorageError
from storage.models import Game, GameChange, OutboxOp, Seat
from storage.postgres.instances import PgInstances
from storage.postgres.writes import Conn, commit_one, game_from_rows, run_job, simple_change, sql
from storage.records import finishing_series, record_series
from storage.rows import (
    GAME_COLUMNS,
    OPEN_GAMES,
    SEAT_COLUMNS,
    dumps,
    game_updates,
    loads_ints,
    seat_row,
)
from storage.updates import DuplicateUpdateError, pending_claim

_T = TypeVar("_T")


class PgGames(PgInstances):
    """The games methods of the PostgreSQL backend."""

    if TYPE_CHECKING:  # provided by storage.postgres.PgStorage and storage/postgres/outbox.py

        async def _write(self, body: Callable[[Conn], Awaitable[_T]]) -> _T: ...

        async def _write_outbox(
            self, conn: Conn, ops: Iterable[OutboxOp], now: float, game_id: int | None = None
        ) -> None: ...

    async def _games(self, conn: Conn, where: str, *params: object) -> list[Game]:
        # One statement (games joined with their seats) is one snapshot: no transaction
        # needed around it. `where` is a literal from this module (its column names are
        # the games table's, which no seats column shares); values go through `params`.
        rows = await conn.fetch(
            sql(
                # "games." qualifies the first column, id (seats has none of the others).
                f"SELECT games.{GAME_COLUMNS}, {SEAT_COLUMNS} FROM games"
                f" LEFT JOIN seats ON seats.game_id = games.id WHERE {where}"
                " ORDER BY games.id, seats.seat"
            ),
            *params,
        )
        return game_from_rows(rows)

    async def _game(self, conn: Conn, game_id: int) -> Game | None:
        games = await self._games(conn, "games.id = ?", game_id)
        return games[0] if games else None

    async def _open_game(self, conn: Conn, chat_id: int, thread_id: int | None) -> Game | None:
        games = await self._games(
            conn,
            f"chat_id = ? AND COALESCE(thread_id, 0) = ? AND {OPEN_GAMES}",
            chat_id,
            thread_id or 0,
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
        now = time.time()

        async def body(conn: Conn) -> Game | None:
            existing = await self._open_game(conn, chat_id, thread_id)
            if existing is not None:
                raise GameExistsError(existing)
            game_id = await conn.fetchval(
                sql(
                    "INSERT INTO games (chat_id, thread_id, status, rules, version, created_by,"
                    " created_at, updated_at, lobby_expires_at)"
                    " VALUES (?, ?, 'lobby', ?, 0, ?, ?, ?, ?) RETURNING id"
                ),
                chat_id,
                thread_id,
                dumps(rules),
                created_by,
                now,
                now,
                lobby_expires_at,
            )
            await self._write_seats(conn, game_id, seats)
            await self._write_outbox(conn, outbox, now, game_id)
            return await self._game(conn, game_id)

        try:
            game = await self._write(body)
        except asyncpg.UniqueViolationError:
            # Another instance opened a game here between our check and our insert.
            existing = await self.open_game(chat_id, thread_id)
            if existing is None:
                raise
            raise GameExistsError(existing) from None
        assert game is not None
        return game

    async def get_game(self, game_id: int) -> Game | None:
        async with self._conn() as conn:
            return await self._game(conn, game_id)

    async def open_game(self, chat_id: int, thread_id: int | None) -> Game | None:
        async with self._conn() as conn:
            return await self._open_game(conn, chat_id, thread_id)

    async def active_games(self) -> list[Game]:
        async with self._conn() as conn:
            return await self._games(conn, OPEN_GAMES)

    async def games_of_user(self, user_id: int) -> list[Game]:
        async with self._conn() as conn:
            return await self._games(
                conn,
                f"{OPEN_GAMES} AND games.id IN (SELECT game_id FROM seats WHERE user_id = ?)",
                user_id,
            )

    async def commit(self, game_id: int, expected_version: int, change: GameChange) -> Game:
        """As :meth:`storage.sqlite.Storage.commit`: one atomic, version-checked change."""
        try:
            if simple_change(change):  # a move, most often: one statement, one round trip
                return await self._commit_one(game_id, expected_version, change)
            return await self._write(
                lambda conn: self._commit(conn, game_id, expected_version, change)
            )
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise StorageError(
                f"game {game_id}: change at version {expected_version} refused by a database"
                f" constraint, nothing written ({exc})"
            ) from exc

    async def _commit_one(self, game_id: int, expected: int, change: GameChange) -> Game:
        claim = pending_claim()
        async with self._conn() as conn:
            game = await commit_one(conn, game_id, expected, change, claim)
            if game is not None:
                return game
            row = await conn.fetchrow(
                "SELECT version, EXISTS (SELECT 1 FROM updates WHERE update_id = $2)"
                " FROM games WHERE id = $1",
                game_id,
                -1 if claim is None else claim.update_id,
            )
        if row is None:
            raise GameNotFoundError(f"no game {game_id}")
        if claim is not None and row[1]:
            # A re-delivered update whose first delivery committed this very change.
            raise DuplicateUpdateError(f"update {claim.update_id} was already handled")
        raise StaleVersionError(
            f"game {game_id} is at version {row[0]}, not {expected}; reload and retry"
        )

    async def _commit(self, conn: Conn, game_id: int, expected: int, change: GameChange) -> Game:
        now = time.time()
        # The compare-and-set that makes concurrent writers safe across instances: a
        # second writer waits for the first's row lock, then finds the version moved.
        # RETURNING gives the row as it was before this change (none of these columns
        # is set here), in the same round trip.
        before = await conn.fetchrow(
            "UPDATE games SET version = version + 1, updated_at = $1 WHERE id = $2"
            " AND version = $3 RETURNING status, chat_id, winners",
            now,
            game_id,
            expected,
        )
        if before is None:
            version = await conn.fetchval("SELECT version FROM games WHERE id = $1", game_id)
            if version is None:
                raise GameNotFoundError(f"no game {game_id}")
            raise StaleVersionError(
                f"game {game_id} is at version {version}, not {expected}; reload and retry"
            )
        old_status, chat_id, old_winners = before
        new_version = expected + 1

        sets, params = game_updates(game_id, change, old_status, new_version)
        if sets:
            await conn.execute(
                sql(f"UPDATE games SET {', '.join(sets)} WHERE id = ?"), *params, game_id
            )
        if change.seats is not None:
            await conn.execute("DELETE FROM seats WHERE game_id = $1", game_id)
            await self._write_seats(conn, game_id, change.seats)
        if change.new_deal is not None:
            deal = change.new_deal
            await conn.execute(
                "INSERT INTO deals (game_id, deal_index, dealer, deck) VALUES ($1, $2, $3, $4)",
                game_id,
                deal.deal_index,
                deal.dealer,
                dumps(list(deal.deck)),
            )
        if change.move is not None:
            await conn.execute(
                "INSERT INTO moves (game_id, version, deal_index, move) VALUES ($1, $2, $3, $4)",
                game_id,
                new_version,
                change.move.deal_index,
                dumps(change.move.move),
            )
        seats: tuple[Seat, ...] | None = None
        if change.tally is not None:
            tally = change.tally
            await conn.execute(
                "INSERT INTO tallies (game_id, deal_index, points, penalties)"
                " VALUES ($1, $2, $3, $4)",
                game_id,
                tally.deal_index,
                dumps(list(tally.points)),
                dumps(list(tally.penalties)),
            )
            seats = await self._seats(conn, game_id)
            if len(tally.penalties) != len(seats):
                raise StorageError(
                    f"game {game_id}: tally has {len(tally.penalties)} penalties for"
                    f" {len(seats)} seats"
                )
            await self._add_stats(
                conn,
                chat_id,
                [(s, 1, tally.penalties[s.seat], 0, 0) for s in seats if s.user_id is not None],
            )
        if change.status == "finished" and old_status != "finished":
            if seats is None:
                seats = await self._seats(conn, game_id)
            winners = change.winners
            if winners is None and old_winners is not None:
                winners = loads_ints(f"games row {game_id}", "winners", old_winners)
            won = set(winners or ())
            await self._add_stats(
                conn,
                chat_id,
                [(s, 0, 0, 1, int(s.seat in won)) for s in seats if s.user_id is not None],
            )
        end = finishing_series(game_id, change, old_status)
        if end is not None:
            await run_job(conn, record_series(game_id, chat_id, end, now))
        await self._write_outbox(conn, change.outbox, now, game_id)
        game = await self._game(conn, game_id)
        assert game is not None
        return game

    async def _seats(self, conn: Conn, game_id: int) -> tuple[Seat, ...]:
        rows = await conn.fetch(
            f"SELECT {SEAT_COLUMNS} FROM seats WHERE game_id = $1 ORDER BY seat", game_id
        )
        return tuple(seat_row(row) for row in rows)

    async def _write_seats(self, conn: Conn, game_id: int, seats: Iterable[Seat]) -> None:
        await conn.executemany(
            sql(f"INSERT INTO seats ({SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"),
            [
                (game_id, s.seat, s.user_id, s.bot_level, s.name, int(s.away), s.autoplayed)
                for s in seats
            ],
        )

    async def _add_stats(
        self, conn: Conn, chat_id: int, rows: list[tuple[Seat, int, int, int, int]]
    ) -> None:
        await conn.executemany(
            sql(
                "INSERT INTO stats (chat_id, user_id, name, deals_played, penalties,"
                " series_played, series_won) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (chat_id, user_id) DO UPDATE SET name = excluded.name,"
                " deals_played = stats.deals_played + excluded.deals_played,"
                " penalties = stats.penalties + excluded.penalties,"
                " series_played = stats.series_played + excluded.series_played,"
                " series_won = stats.series_won + excluded.series_won"
            ),
            [(chat_id, s.user_id, s.name, d, p, sp, sw) for s, d, p, sp, sw in rows],
        )

    async def due_deadlines(self, now: float) -> list[Game]:
        async with self._conn() as conn:
            return await self._games(
                conn,
                "status = 'playing' AND (deadline_due_at <= ?"
                " OR (deadline_reminded = 0 AND deadline_remind_at <= ?))",
                now,
                now,
            )

    async def expired_lobbies(self, now: float) -> list[Game]:
        async with self._conn() as conn:
            return await self._games(conn, "status = 'lobby' AND lobby_expires_at <= ?", now)
