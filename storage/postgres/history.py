"""A game's history in PostgreSQL (mixed into :class:`storage.postgres.PgStorage`), as
storage/sqlite/history.py keeps it for SQLite. The contract is storage/contract.py's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from storage.errors import GameNotFoundError
from storage.games import games_from_rows
from storage.models import DealStart, DealTally, Game, LoggedMove, UserStats
from storage.postgres.instances import PgInstances
from storage.postgres.writes import Conn
from storage.records import game_record
from storage.rows import (
    GAME_COLUMNS,
    SEAT_COLUMNS,
    deal_row,
    move_row,
    only_moves_since,
    stats_row,
    tally_row,
)

_T = TypeVar("_T")


class PgHistory(PgInstances):
    """The move log, tallies, records and stats methods of the PostgreSQL backend."""

    if TYPE_CHECKING:  # provided by storage.postgres.PgStorage

        async def _read(self, body: Callable[[Conn], Awaitable[_T]]) -> _T: ...

        async def _game(self, conn: Conn, game_id: int) -> Game | None: ...

    # --- move log / records --------------------------------------------------

    async def deals(self, game_id: int) -> list[DealStart]:
        async with self._conn() as conn:
            return await self._deals(conn, game_id)

    async def _deals(self, conn: Conn, game_id: int) -> list[DealStart]:
        rows = await conn.fetch(
            "SELECT deal_index, dealer, deck FROM deals WHERE game_id = $1 ORDER BY deal_index",
            game_id,
        )
        return [deal_row(game_id, row) for row in rows]

    async def moves(self, game_id: int) -> list[LoggedMove]:
        async with self._conn() as conn:
            return await self._moves(conn, game_id)

    async def catch_up(self, game_id: int, version: int) -> tuple[Game, list[LoggedMove]] | None:
        """As :meth:`storage.sqlite.Storage.catch_up`: one statement (one snapshot, one round
        trip) for an instance whose cached game another instance has moved on."""
        async with self._conn() as conn:
            rows = await conn.fetch(
                f"SELECT games.{GAME_COLUMNS}, {SEAT_COLUMNS}, m.versions, m.deals, m.moves"
                " FROM games LEFT JOIN seats ON seats.game_id = games.id,"
                " LATERAL (SELECT array_agg(version ORDER BY version) AS versions,"
                " array_agg(deal_index ORDER BY version) AS deals,"
                " array_agg(move ORDER BY version) AS moves"
                " FROM moves WHERE game_id = games.id AND version > $2) AS m"
                " WHERE games.id = $1 ORDER BY seats.seat",
                game_id,
                version,
            )
        if not rows:
            return None
        (game,) = games_from_rows(row[:-3] for row in rows)
        versions, deals, moves = rows[0][-3:]
        if not only_moves_since(version, list(versions or ()), game):
            return None
        return game, [
            move_row(game_id, row)
            for row in zip(versions or (), deals or (), moves or (), strict=True)
        ]

    async def _moves(self, conn: Conn, game_id: int) -> list[LoggedMove]:
        rows = await conn.fetch(
            "SELECT version, deal_index, move FROM moves WHERE game_id = $1 ORDER BY version",
            game_id,
        )
        return [move_row(game_id, row) for row in rows]

    async def tallies(self, game_id: int) -> list[DealTally]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT deal_index, points, penalties FROM tallies WHERE game_id = $1"
                " ORDER BY deal_index",
                game_id,
            )
        return [tally_row(game_id, row) for row in rows]

    async def export_record(self, game_id: int) -> dict[str, Any]:
        """The game as its engine's record (storage.records.game_record), read in one snapshot."""

        async def body(conn: Conn) -> tuple[Game, list[DealStart], list[LoggedMove]]:
            game = await self._game(conn, game_id)
            if game is None:
                raise GameNotFoundError(f"no game {game_id}")
            return game, await self._deals(conn, game_id), await self._moves(conn, game_id)

        game, deals, moves = await self._read(body)
        return game_record(game, deals, moves)

    # --- stats ---------------------------------------------------------------

    async def chat_stats(self, chat_id: int) -> list[UserStats]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT s.user_id, COALESCE(NULLIF(u.name, ''), s.name), s.series_played,"
                " s.series_won, s.deals_played, s.penalties"
                " FROM stats s LEFT JOIN users u ON u.id = s.user_id WHERE s.chat_id = $1"
                " ORDER BY s.series_won DESC, s.penalties ASC, s.user_id",
                chat_id,
            )
        return [stats_row(chat_id, row) for row in rows]
