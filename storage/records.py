"""Finished series, ratings, chat switches and lobby watchers, and a game's
record, for both backends.

Each operation is a job (storage/jobs.py): the SQL, the row decoding and the rating step
are written once here, and each backend runs the steps in its own transaction.
:class:`RecordsMixin` is the public API of both backends; :func:`record_series` and
:func:`migrate_records` run inside the commit and the chat migration of each.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from engine.registry import GAMES, game_of_rules
from storage.errors import CorruptRecordError, StorageError
from storage.jobs import Job, Rows, Step, query
from storage.models import (
    DealStart,
    Game,
    GameChange,
    LoggedMove,
    PlayerRecord,
    Rating,
    SeatResult,
    SeriesEnd,
    SeriesSummary,
)

_T = TypeVar("_T")
logger = logging.getLogger(__name__)


_SEAT_RESULT_COLUMNS = (
    "seat, user_id, bot_level, name, team, place, won, deals, points, penalties, best_deal,"
    " declarations_true, declarations_false, combinations"
)
_SUMS = (
    "COUNT(*), SUM(ss.won), SUM(ss.deals), SUM(ss.points), SUM(ss.penalties),"
    " MAX(ss.best_deal), SUM(ss.declarations_true), SUM(ss.declarations_false),"
    " SUM(ss.combinations)"
)

# A series with a computer seat: /stats keeps it apart from games between people.
_WITH_COMPUTERS = (
    "CASE WHEN EXISTS (SELECT 1 FROM series_seats b"
    " WHERE b.game_id = s.game_id AND b.bot_level IS NOT NULL) THEN 1 ELSE 0 END"
)


def finishing_series(game_id: int, change: GameChange, old_status: str) -> SeriesEnd | None:
    """The series result ``change`` records: only with status 'finished' (else
    StorageError), and only on the transition to it, so a series is rated once."""
    if change.series_end is None:
        return None
    if change.status != "finished":
        raise StorageError(f"game {game_id}: a series result needs status 'finished'")
    return change.series_end if old_status != "finished" else None


def record_series(game_id: int, chat_id: int, end: SeriesEnd, now: float) -> Job[None]:
    """Store a finished series and update the ratings of everyone in it (run inside the
    transaction of the commit that finishes it, so a series is rated exactly once)."""
    yield Step(
        "INSERT INTO series (game_id, chat_id, game, finished_at, deals, teams)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (game_id, chat_id, end.game, now, end.deals, end.teams),
    )
    yield Step(
        f"INSERT INTO series_seats (game_id, {_SEAT_RESULT_COLUMNS})"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                game_id,
                r.seat,
                r.user_id,
                r.bot_level,
                r.name,
                r.team,
                r.place,
                int(r.won),
                r.deals,
                r.points,
                r.penalties,
                r.best_deal,
                r.declarations_true,
                r.declarations_false,
                r.combinations,
            )
            for r in end.seats
        ],
        many=True,
    )
    if len({r.team for r in end.seats}) < 2:
        return  # nothing to rate against
    if any(r.bot_level is not None for r in end.seats):
        return  # /top ranks people's games only: a series with computers is not rated
    current: dict[str, Rating] = {}
    for r in end.seats:
        rows = yield Step(
            "SELECT name, mu, sigma, series FROM ratings"
            " WHERE chat_id = ? AND game = ? AND player = ?",
            (chat_id, end.game, r.player),
        )
        if rows:
            name, mu, sigma, series = rows[0]
            current[r.player] = Rating(
                end.game, r.player, str(name), float(mu), float(sigma), int(series)
            )
    try:
        new = end.rate(current)
    except Exception:
        # The series stays recorded; a rating bug must not stop the game from finishing.
        logger.exception("game %s: rating the series failed; ratings left as they were", game_id)
        return
    names = {r.player: r.name for r in end.seats}
    yield Step(
        "INSERT INTO ratings (chat_id, game, player, name, mu, sigma, series)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (chat_id, game, player) DO UPDATE SET name = excluded.name,"
        " mu = excluded.mu, sigma = excluded.sigma, series = excluded.series",
        [
            (chat_id, end.game, player, names[player], float(s.mu), float(s.sigma), s.series)
            for player, s in new.items()
        ],
        many=True,
    )


def migrate_records(old_id: int, new_id: int) -> Job[None]:
    """A group became a supergroup: its series, ratings, watchers and switches follow."""
    yield Step("UPDATE series SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
    yield Step(
        "INSERT INTO ratings (chat_id, game, player, name, mu, sigma, series)"
        " SELECT ?, game, player, name, mu, sigma, series FROM ratings WHERE chat_id = ?"
        " ON CONFLICT (chat_id, game, player) DO NOTHING",
        (new_id, old_id),
    )
    yield Step("DELETE FROM ratings WHERE chat_id = ?", (old_id,))
    yield Step(
        "INSERT INTO lobby_watchers (chat_id, user_id, created_at)"
        " SELECT ?, user_id, created_at FROM lobby_watchers WHERE chat_id = ?"
        " ON CONFLICT (chat_id, user_id) DO NOTHING",
        (new_id, old_id),
    )
    yield Step("DELETE FROM lobby_watchers WHERE chat_id = ?", (old_id,))
    yield Step(
        "UPDATE chats SET pictures = (SELECT o.pictures FROM chats o WHERE o.id = ?),"
        " stats_reset_at = (SELECT o.stats_reset_at FROM chats o WHERE o.id = ?) WHERE id = ?",
        (old_id, old_id, new_id),
    )


def _int(where: str, value: object) -> int:
    if type(value) is not int:
        raise CorruptRecordError(f"{where}: expected a whole number, not {value!r}")
    return value


def _seat_result(where: str, row: Sequence[Any]) -> SeatResult:
    name = row[3]
    if not isinstance(name, str):
        raise CorruptRecordError(f"{where}: name must be text")
    return SeatResult(
        seat=_int(where, row[0]),
        user_id=None if row[1] is None else _int(where, row[1]),
        bot_level=row[2] if isinstance(row[2], str) else None,
        name=name,
        team=_int(where, row[4]),
        place=_int(where, row[5]),
        won=bool(row[6]),
        deals=_int(where, row[7]),
        points=_int(where, row[8]),
        penalties=_int(where, row[9]),
        best_deal=_int(where, row[10]),
        declarations_true=_int(where, row[11]),
        declarations_false=_int(where, row[12]),
        combinations=_int(where, row[13]),
    )


class RecordsMixin:
    """Storage methods for stats, ratings, history, chat switches and /notify."""

    if (
        TYPE_CHECKING
    ):  # provided by each backend (storage/sqlite/__init__.py, storage/postgres/__init__.py)

        async def _run_job(self, job: Job[_T], *, write: bool) -> _T: ...

    # --- stats ---------------------------------------------------------------

    async def player_records(self, user_id: int, chat_id: int | None) -> list[PlayerRecord]:
        """The user's record per game, in one chat or (``None``) over all chats; series a
        chat finished before its /resetstats do not count."""
        where = "ss.user_id = ? AND s.finished_at > COALESCE(c.stats_reset_at, 0)"
        params: list[object] = [user_id]
        if chat_id is not None:
            where += " AND s.chat_id = ?"
            params.append(chat_id)
        rows = await self._run_job(
            query(
                f"SELECT s.game, {_WITH_COMPUTERS} AS computers, {_SUMS} FROM series_seats ss"
                " JOIN series s ON s.game_id = ss.game_id"
                " LEFT JOIN chats c ON c.id = s.chat_id"
                f" WHERE {where} GROUP BY s.game, computers ORDER BY s.game, computers",
                params,
            ),
            write=False,
        )
        where = f"records of user {user_id}"
        records = []
        for row in rows:
            sums = [_int(where, v or 0) for v in row[2:]]
            records.append(
                PlayerRecord(
                    str(row[0]),
                    series_played=sums[0],
                    series_won=sums[1],
                    deals=sums[2],
                    points=sums[3],
                    penalties=sums[4],
                    best_deal=sums[5],
                    declarations_true=sums[6],
                    declarations_false=sums[7],
                    combinations=sums[8],
                    with_computers=bool(row[1]),
                )
            )
        return records

    async def ratings(self, chat_id: int, game: str | None = None) -> list[Rating]:
        """The chat's ratings, best first (by mu - 3 sigma)."""
        # Computers' rows rated before series with computers stopped being rated.
        sql = (
            "SELECT game, player, name, mu, sigma, series FROM ratings"
            " WHERE chat_id = ? AND player NOT LIKE 'ai:%'"
        )
        params: list[object] = [chat_id]
        if game is not None:
            sql += " AND game = ?"
            params.append(game)
        rows = await self._run_job(query(sql, params), write=False)
        result = []
        for row in rows:
            if not all(isinstance(v, int | float) for v in row[3:5]):
                raise CorruptRecordError(f"ratings row (chat {chat_id}, {row[1]}): bad mu/sigma")
            result.append(
                Rating(
                    str(row[0]),
                    str(row[1]),
                    str(row[2]),
                    float(row[3]),
                    float(row[4]),
                    _int("ratings row", row[5]),
                )
            )
        result.sort(key=lambda r: (-r.ordinal, r.player))
        return result

    async def recent_series(self, chat_id: int, limit: int = 10) -> list[SeriesSummary]:
        """The chat's last finished series, newest first, each with its seats."""

        def job() -> Job[tuple[Rows, Rows]]:
            series = yield Step(
                "SELECT game_id, chat_id, game, finished_at, deals FROM series"
                " WHERE chat_id = ? ORDER BY finished_at DESC, game_id DESC LIMIT ?",
                (chat_id, limit),
            )
            seats = yield Step(
                f"SELECT game_id, {_SEAT_RESULT_COLUMNS} FROM series_seats WHERE game_id IN"
                " (SELECT game_id FROM series WHERE chat_id = ?"
                " ORDER BY finished_at DESC, game_id DESC LIMIT ?) ORDER BY game_id, seat",
                (chat_id, limit),
            )
            return series, seats

        series_rows, seat_rows = await self._run_job(job(), write=False)
        by_game: dict[int, list[SeatResult]] = {}
        for row in seat_rows:
            by_game.setdefault(row[0], []).append(
                _seat_result(f"series_seats row (game {row[0]})", row[1:])
            )
        return [
            SeriesSummary(
                game_id=_int("series row", row[0]),
                chat_id=_int("series row", row[1]),
                game=str(row[2]),
                finished_at=float(row[3]),
                deals=_int("series row", row[4]),
                seats=tuple(by_game.get(row[0], ())),
            )
            for row in series_rows
        ]

    async def series_result(self, game_id: int) -> SeriesSummary | None:
        def job() -> Job[tuple[Rows, Rows]]:
            series = yield Step(
                "SELECT game_id, chat_id, game, finished_at, deals FROM series WHERE game_id = ?",
                (game_id,),
            )
            seats = yield Step(
                f"SELECT {_SEAT_RESULT_COLUMNS} FROM series_seats WHERE game_id = ? ORDER BY seat",
                (game_id,),
            )
            return series, seats

        series_rows, seat_rows = await self._run_job(job(), write=False)
        if not series_rows:
            return None
        row = series_rows[0]
        where = f"series row {game_id}"
        return SeriesSummary(
            game_id=_int(where, row[0]),
            chat_id=_int(where, row[1]),
            game=str(row[2]),
            finished_at=float(row[3]),
            deals=_int(where, row[4]),
            seats=tuple(_seat_result(where, r) for r in seat_rows),
        )

    async def last_played_game(self, chat_id: int, thread_id: int | None = None) -> int | None:
        """The chat's newest game with at least one finished deal (an open game in
        ``thread_id`` first), for /export."""
        rows = await self._run_job(
            query(
                "SELECT g.id FROM games g WHERE g.chat_id = ?"
                " AND EXISTS (SELECT 1 FROM tallies t WHERE t.game_id = g.id)"
                " ORDER BY CASE WHEN g.status IN ('lobby', 'playing')"
                " AND COALESCE(g.thread_id, 0) = ? THEN 0 ELSE 1 END, g.updated_at DESC,"
                " g.id DESC LIMIT 1",
                (chat_id, thread_id or 0),
            ),
            write=False,
        )
        return _int("games row", rows[0][0]) if rows else None

    async def reset_chat_stats(self, chat_id: int) -> None:
        """/resetstats: the chat's ratings and stats start again; game records stay."""
        now = time.time()

        def job() -> Job[None]:
            yield Step("DELETE FROM ratings WHERE chat_id = ?", (chat_id,))
            yield Step("DELETE FROM stats WHERE chat_id = ?", (chat_id,))
            yield Step(
                "INSERT INTO chats (id, stats_reset_at) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET stats_reset_at = excluded.stats_reset_at",
                (chat_id, now),
            )

        await self._run_job(job(), write=True)

    # --- chat switches -------------------------------------------------------

    async def set_chat_pictures(self, chat_id: int, on: bool) -> None:
        await self._run_job(
            query(
                "INSERT INTO chats (id, pictures) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET pictures = excluded.pictures",
                (chat_id, int(on)),
            ),
            write=True,
        )

    async def chat_pictures(self, chat_id: int) -> bool:
        """Whether series results in this chat carry a picture (on unless switched off)."""
        rows = await self._run_job(
            query("SELECT pictures FROM chats WHERE id = ?", (chat_id,)), write=False
        )
        return bool(rows[0][0]) if rows else True

    # --- /notify ---------------------------------------------------------------

    async def toggle_lobby_watch(self, chat_id: int, user_id: int) -> bool:
        """Switch the user's "tell me when the next lobby opens here"; True if now on."""
        now = time.time()

        def job() -> Job[bool]:
            removed = yield Step(
                "DELETE FROM lobby_watchers WHERE chat_id = ? AND user_id = ? RETURNING user_id",
                (chat_id, user_id),
            )
            if removed:
                return False
            yield Step(
                "INSERT INTO lobby_watchers (chat_id, user_id, created_at) VALUES (?, ?, ?)",
                (chat_id, user_id, now),
            )
            return True

        return await self._run_job(job(), write=True)

    async def take_lobby_watchers(self, chat_id: int) -> list[int]:
        """The users waiting for a lobby in this chat; they are told once, so this forgets
        them (in the same transaction)."""
        rows = await self._run_job(
            query("DELETE FROM lobby_watchers WHERE chat_id = ? RETURNING user_id", (chat_id,)),
            write=True,
        )
        return sorted(int(r[0]) for r in rows)


def game_record(
    game: Game, deals: Sequence[DealStart], moves: Sequence[LoggedMove]
) -> dict[str, Any]:
    """The game as its engine's record, in the ``format`` of the game its rule set is for
    (``engine.registry``); ``rules`` holds the engine's switches only. Each move goes to
    its deal; a move of a deal with no deck, or a game no longer registered, is a corrupt
    record."""
    by_deal: dict[int, list[dict[str, Any]]] = {d.deal_index: [] for d in deals}
    for move in moves:
        if move.deal_index not in by_deal:
            raise CorruptRecordError(
                f"game {game.id}: a move belongs to deal {move.deal_index}, which has no deck"
            )
        by_deal[move.deal_index].append(move.move)
    name = game_of_rules(game.rules)
    if name not in GAMES:
        raise CorruptRecordError(f"game {game.id}: its rules name {name!r}, no registered game")
    rules = {k: v for k, v in game.rules.items() if k != "game"}
    return {
        "format": GAMES[name].record_format,
        "players": len(game.seats),
        "rules": rules,
        "deals": [
            {"dealer": d.dealer, "deck": list(d.deck), "moves": by_deal[d.deal_index]}
            for d in deals
        ],
    }
