"""A game's history in SQLite (mixed into :class:`storage.sqlite.Storage`): its deals and
move log, the catch-up a cache needs, the deal tallies, the exported record, and a
chat's stats. The contract is storage/contract.py's."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from storage.errors import GameNotFoundError
from storage.models import DealStart, DealTally, Game, LoggedMove, UserStats
from storage.records import game_record
from storage.rows import deal_row, move_row, only_moves_since, stats_row, tally_row

_T = TypeVar("_T")


class SqliteHistory:
    """The move log, tallies, records and stats methods of the SQLite backend."""

    if TYPE_CHECKING:  # provided by storage.sqlite.Storage

        async def _read(self, body: Callable[[sqlite3.Connection], _T]) -> _T: ...

        def _game(self, conn: sqlite3.Connection, game_id: int) -> Game | None: ...

    # --- move log / records --------------------------------------------------

    async def deals(self, game_id: int) -> list[DealStart]:
        def body(conn: sqlite3.Connection) -> list[DealStart]:
            return self._deals(conn, game_id)

        return await self._read(body)

    def _deals(self, conn: sqlite3.Connection, game_id: int) -> list[DealStart]:
        rows = conn.execute(
            "SELECT deal_index, dealer, deck FROM deals WHERE game_id = ? ORDER BY deal_index",
            (game_id,),
        ).fetchall()
        return [deal_row(game_id, row) for row in rows]

    async def moves(self, game_id: int) -> list[LoggedMove]:
        def body(conn: sqlite3.Connection) -> list[LoggedMove]:
            return self._moves(conn, game_id)

        return await self._read(body)

    async def catch_up(self, game_id: int, version: int) -> tuple[Game, list[LoggedMove]] | None:
        """The game and the moves logged after ``version``, in one snapshot; None if the
        game is gone or some change since was neither a move nor, after the last of them,
        a change of the deadline alone (a copy at ``version`` cannot be brought up to date
        by replaying moves)."""

        def body(conn: sqlite3.Connection) -> tuple[Game, list[LoggedMove]] | None:
            game = self._game(conn, game_id)
            if game is None:
                return None
            rows = conn.execute(
                "SELECT version, deal_index, move FROM moves WHERE game_id = ? AND version > ?"
                " ORDER BY version",
                (game_id, version),
            ).fetchall()
            if not only_moves_since(version, [row[0] for row in rows], game):
                return None
            return game, [move_row(game_id, row) for row in rows]

        return await self._read(body)

    def _moves(self, conn: sqlite3.Connection, game_id: int) -> list[LoggedMove]:
        rows = conn.execute(
            "SELECT version, deal_index, move FROM moves WHERE game_id = ? ORDER BY version",
            (game_id,),
        ).fetchall()
        return [move_row(game_id, row) for row in rows]

    async def tallies(self, game_id: int) -> list[DealTally]:
        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = conn.execute(
                "SELECT deal_index, points, penalties FROM tallies WHERE game_id = ?"
                " ORDER BY deal_index",
                (game_id,),
            ).fetchall()
            return rows

        rows = await self._read(body)
        return [tally_row(game_id, row) for row in rows]

    async def export_record(self, game_id: int) -> dict[str, Any]:
        """The game as its engine's record (storage.records.game_record; the engine replays it).

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
        return game_record(game, deals, moves)

    # --- stats ---------------------------------------------------------------

    async def chat_stats(self, chat_id: int) -> list[UserStats]:
        """Per-user statistics of a chat: most series won first, then fewest penalties."""

        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = conn.execute(
                "SELECT s.user_id, COALESCE(NULLIF(u.name, ''), s.name), s.series_played,"
                " s.series_won, s.deals_played, s.penalties"
                " FROM stats s LEFT JOIN users u ON u.id = s.user_id WHERE s.chat_id = ?"
                " ORDER BY s.series_won DESC, s.penalties ASC, s.user_id",
                (chat_id,),
            ).fetchall()
            return rows

        rows = await self._read(body)
        return [stats_row(chat_id, row) for row in rows]
