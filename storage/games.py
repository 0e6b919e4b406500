"""Creating a game and committing a change to it, written once for both backends as jobs
(storage/jobs.py): the statements, their order and the checks are here, and each backend
runs the steps inside its own transaction. PostgreSQL also has a one-statement path for a
plain move (storage/postgres/writes.py ``commit_one``); tests/storage/test_storage.py holds
it equal to :func:`commit_game`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from storage.errors import GameExistsError, GameNotFoundError, StaleVersionError, StorageError
from storage.jobs import Job, Rows, Step
from storage.models import OUTBOX_METHODS, Game, GameChange, OutboxOp, Seat
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

# (seat, deals played, penalties, series played, series won) added to one user's stats.
StatsRow = tuple[Seat, int, int, int, int]


def games_from_rows(rows: Iterable[Sequence[Any]]) -> list[Game]:
    """Games from rows of game columns then seat columns (NULLs: no seat), in any order:
    the games come by id, each with its seats by number."""
    width = GAME_COLUMNS.count(",") + 1
    columns: dict[Any, list[Any]] = {}
    seats: dict[Any, list[Seat]] = {}
    for row in rows:
        values = list(row)
        columns[values[0]] = values[:width]
        seats.setdefault(values[0], [])
        if values[width] is not None:
            seats[values[0]].append(seat_row(values[width:]))
    return [
        game_row(columns[game_id], tuple(sorted(seats[game_id], key=lambda s: s.seat)))
        for game_id in sorted(columns)
    ]


def read_games(where: str, params: Sequence[object]) -> Job[list[Game]]:
    """The games matching ``where`` (a literal of the caller's, on games columns; values
    go through ``params``) with their seats, by id: one statement, one snapshot."""
    rows = yield Step(
        # "games." qualifies the first column, id (seats has none of the others).
        f"SELECT games.{GAME_COLUMNS}, {SEAT_COLUMNS} FROM games"
        # No ORDER BY: sorting by id tempts SQLite's planner to walk the whole table in
        # rowid order (finished games too) instead of using the partial indexes.
        f" LEFT JOIN seats ON seats.game_id = games.id WHERE {where}",
        params,
    )
    return games_from_rows(rows)


def read_game(game_id: int) -> Job[Game | None]:
    games = yield from read_games("games.id = ?", (game_id,))
    return games[0] if games else None


def read_open_game(chat_id: int, thread_id: int | None) -> Job[Game | None]:
    # The expression matches the partial unique index, so this is an index lookup.
    games = yield from read_games(
        f"chat_id = ? AND COALESCE(thread_id, 0) = ? AND {OPEN_GAMES}", (chat_id, thread_id or 0)
    )
    return games[0] if games else None


def write_seats(game_id: int, seats: Iterable[Seat]) -> Step:
    return Step(
        f"INSERT INTO seats ({SEAT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (game_id, s.seat, s.user_id, s.bot_level, s.name, int(s.away), s.autoplayed)
            for s in seats
        ],
        many=True,
    )


def write_outbox(ops: Iterable[OutboxOp], now: float, game_id: int | None = None) -> Job[None]:
    """Queue ``ops`` in their order (outbox ids keep a chat's operations in order); an op
    without a game gets ``game_id``."""
    rows = []
    for op in ops:
        if op.method not in OUTBOX_METHODS:
            raise StorageError(f"unknown outbox method {op.method!r}")
        game = op.game_id if op.game_id is not None else game_id
        rows.append((op.chat_id, op.method, dumps(op.payload), game, op.role, op.milestone, now))
    if rows:
        yield Step(
            "INSERT INTO outbox (chat_id, method, payload, game_id, role, milestone,"
            " not_before, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(*row, now) for row in rows],
            many=True,
        )


def add_stats(chat_id: int, rows: Sequence[StatsRow]) -> Step:
    """Add (deals, penalties, series played, series won) per seated user."""
    return Step(
        "INSERT INTO stats (chat_id, user_id, name, deals_played, penalties, series_played,"
        " series_won) VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (chat_id, user_id) DO UPDATE SET name = excluded.name,"
        " deals_played = stats.deals_played + excluded.deals_played,"
        " penalties = stats.penalties + excluded.penalties,"
        " series_played = stats.series_played + excluded.series_played,"
        " series_won = stats.series_won + excluded.series_won",
        [(chat_id, s.user_id, s.name, d, p, sp, sw) for s, d, p, sp, sw in rows],
        many=True,
    )


def create_game(
    chat_id: int,
    thread_id: int | None,
    rules: dict[str, Any],
    created_by: int,
    seats: tuple[Seat, ...],
    lobby_expires_at: float | None,
    outbox: tuple[OutboxOp, ...],
    now: float,
) -> Job[Game]:
    """A new game in the lobby at version 0 (see storage/contract.py ``create_game``)."""
    existing = yield from read_open_game(chat_id, thread_id)
    if existing is not None:
        raise GameExistsError(existing)
    rows = yield Step(
        "INSERT INTO games (chat_id, thread_id, status, rules, version, created_by,"
        " created_at, updated_at, lobby_expires_at)"
        " VALUES (?, ?, 'lobby', ?, 0, ?, ?, ?, ?) RETURNING id",
        (chat_id, thread_id, dumps(rules), created_by, now, now, lobby_expires_at),
    )
    game_id = int(rows[0][0])
    yield write_seats(game_id, seats)
    yield from write_outbox(outbox, now, game_id)
    game = yield from read_game(game_id)
    assert game is not None
    return game


def commit_game(game_id: int, expected: int, change: GameChange, now: float) -> Job[Game]:
    """Apply ``change`` to the game at version ``expected`` and return it at
    ``expected + 1`` (see storage/contract.py ``commit``)."""
    # The compare-and-set that makes concurrent writers safe, across processes too (a
    # second writer waits for the first's lock, then finds the version moved). RETURNING
    # gives columns this statement does not set: the row as it was before the change.
    before: Rows = yield Step(
        "UPDATE games SET version = version + 1, updated_at = ? WHERE id = ? AND version = ?"
        " RETURNING status, chat_id, winners",
        (now, game_id, expected),
    )
    if not before:
        found = yield Step("SELECT version FROM games WHERE id = ?", (game_id,))
        if not found:
            raise GameNotFoundError(f"no game {game_id}")
        raise StaleVersionError(
            f"game {game_id} is at version {found[0][0]}, not {expected}; reload and retry"
        )
    old_status, chat_id, old_winners = before[0]
    new_version = expected + 1

    sets, params = game_updates(game_id, change, old_status, new_version)
    if sets:
        # Column names are literals of game_updates; only values are parameters.
        yield Step(f"UPDATE games SET {', '.join(sets)} WHERE id = ?", (*params, game_id))
    if change.seats is not None:
        yield Step("DELETE FROM seats WHERE game_id = ?", (game_id,))
        yield write_seats(game_id, change.seats)
    if change.new_deal is not None:
        deal = change.new_deal
        yield Step(
            "INSERT INTO deals (game_id, deal_index, dealer, deck) VALUES (?, ?, ?, ?)",
            (game_id, deal.deal_index, deal.dealer, dumps(list(deal.deck))),
        )
    if change.move is not None:
        yield Step(
            "INSERT INTO moves (game_id, version, deal_index, move) VALUES (?, ?, ?, ?)",
            (game_id, new_version, change.move.deal_index, dumps(change.move.move)),
        )

    seats: tuple[Seat, ...] | None = None
    if change.tally is not None:
        tally = change.tally
        yield Step(
            "INSERT INTO tallies (game_id, deal_index, points, penalties) VALUES (?, ?, ?, ?)",
            (game_id, tally.deal_index, dumps(list(tally.points)), dumps(list(tally.penalties))),
        )
        seats = yield from _seats(game_id)
        if len(tally.penalties) != len(seats):
            raise StorageError(
                f"game {game_id}: tally has {len(tally.penalties)} penalties for {len(seats)} seats"
            )
        # Stats count every deal as it is tallied…
        yield add_stats(
            chat_id,
            [(s, 1, tally.penalties[s.seat], 0, 0) for s in seats if s.user_id is not None],
        )
    if change.status == "finished" and old_status != "finished":
        # …and a series once, on its transition to finished.
        if seats is None:
            seats = yield from _seats(game_id)
        winners = change.winners
        if winners is None and old_winners is not None:
            winners = loads_ints(f"games row {game_id}", "winners", old_winners)
        won = set(winners or ())
        yield add_stats(
            chat_id, [(s, 0, 0, 1, int(s.seat in won)) for s in seats if s.user_id is not None]
        )
    end = finishing_series(game_id, change, old_status)
    if end is not None:
        yield from record_series(game_id, chat_id, end, now)
    yield from write_outbox(change.outbox, now, game_id)
    game = yield from read_game(game_id)
    assert game is not None
    return game


def _seats(game_id: int) -> Job[tuple[Seat, ...]]:
    rows = yield Step(
        f"SELECT {SEAT_COLUMNS} FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
    )
    return tuple(seat_row(row) for row in rows)
