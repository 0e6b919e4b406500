"""Games in PostgreSQL (mixed into :class:`storage.postgres.PgStorage`): creating and finding
them, and the versioned commit: storage/games.py's statements, written once for both
backends, or one statement for a plain move (storage/postgres/writes.py). The contract is
storage/contract.py's."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg

from storage import games as jobs
from storage.errors import GameExistsError, GameNotFoundError, StaleVersionError, StorageError
from storage.jobs import Job
from storage.models import Game, GameChange, OutboxOp, Seat
from storage.postgres.instances import PgInstances
from storage.postgres.writes import Conn, commit_one, run_job, simple_change
from storage.rows import OPEN_GAMES
from storage.updates import DuplicateUpdateError, pending_claim

_T = TypeVar("_T")


class PgGames(PgInstances):
    """The games methods of the PostgreSQL backend."""

    if TYPE_CHECKING:  # provided by storage.postgres.PgStorage

        async def _run_job(self, job: Job[_T], *, write: bool) -> _T: ...

    async def _games(self, conn: Conn, where: str, *params: object) -> list[Game]:
        return await run_job(conn, jobs.read_games(where, params))

    async def _game(self, conn: Conn, game_id: int) -> Game | None:
        return await run_job(conn, jobs.read_game(game_id))

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
        job = jobs.create_game(
            chat_id, thread_id, rules, created_by, seats, lobby_expires_at, outbox, time.time()
        )
        try:
            return await self._run_job(job, write=True)
        except asyncpg.UniqueViolationError:
            # Another instance opened a game here between our check and our insert.
            existing = await self.open_game(chat_id, thread_id)
            if existing is None:
                raise
            raise GameExistsError(existing) from None

    async def get_game(self, game_id: int) -> Game | None:
        async with self._conn() as conn:
            return await self._game(conn, game_id)

    async def open_game(self, chat_id: int, thread_id: int | None) -> Game | None:
        async with self._conn() as conn:
            return await run_job(conn, jobs.read_open_game(chat_id, thread_id))

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
            job = jobs.commit_game(game_id, expected_version, change, time.time())
            return await self._run_job(job, write=True)
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
