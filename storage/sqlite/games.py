"""Games in SQLite (mixed into :class:`storage.sqlite.Storage`): creating and finding them,
and the versioned commit that applies a change (moves, seats, deals, tallies, stats, the
series record and the outbox rows) in one transaction. The statements are storage/games.py's,
written once for both backends; the contract is storage/contract.py's."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from storage import games as jobs
from storage.errors import StorageError
from storage.jobs import Job, Step
from storage.models import Game, GameChange, OutboxOp, Seat
from storage.rows import OPEN_GAMES

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


class SqliteGames:
    """The games methods of the SQLite backend."""

    if TYPE_CHECKING:  # provided by storage.sqlite.Storage

        async def _read(self, body: Callable[[sqlite3.Connection], _T]) -> _T: ...

        async def _run_job(self, job: Job[_T], *, write: bool) -> _T: ...

    def _games(self, conn: sqlite3.Connection, where: str, params: Sequence[object]) -> list[Game]:
        return run_job(conn, jobs.read_games(where, params))

    def _game(self, conn: sqlite3.Connection, game_id: int) -> Game | None:
        return run_job(conn, jobs.read_game(game_id))

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
        job = jobs.create_game(
            chat_id, thread_id, rules, created_by, seats, lobby_expires_at, outbox, time.time()
        )
        return await self._run_job(job, write=True)

    async def get_game(self, game_id: int) -> Game | None:
        return await self._read(lambda conn: self._game(conn, game_id))

    async def open_game(self, chat_id: int, thread_id: int | None) -> Game | None:
        return await self._run_job(jobs.read_open_game(chat_id, thread_id), write=False)

    async def active_games(self) -> list[Game]:
        return await self._read(lambda conn: self._games(conn, OPEN_GAMES, ()))

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
        job = jobs.commit_game(game_id, expected_version, change, time.time())
        try:
            return await self._run_job(job, write=True)
        except sqlite3.IntegrityError as exc:
            raise StorageError(
                f"game {game_id}: change at version {expected_version} refused by a database"
                f" constraint, nothing written ({exc})"
            ) from exc

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
