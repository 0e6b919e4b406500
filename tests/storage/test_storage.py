"""Storage round trips, migrations, version checks and decoding.

The contract tests (those taking ``db``) run against both backends: real SQLite files and
a real PostgreSQL server (tests/conftest.py starts a throw-away one, or skips loudly).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import aiosqlite
import pytest

import engine
import storage.postgres.migrations as pg_migrations
import storage.sqlite.migrations as migrations
from engine import burkozel
from storage import (
    SCHEMA_VERSION,
    UNSET,
    Backend,
    Chat,
    CorruptRecordError,
    Deadline,
    DealStart,
    DealTally,
    GameChange,
    GameExistsError,
    GameNotFoundError,
    LoggedMove,
    MessageRef,
    NewerDatabaseError,
    OutboxOp,
    Seat,
    SentOp,
    StaleVersionError,
    Storage,
    StorageError,
    User,
    UserStats,
    open_storage,
)
from storage.copy import _tables as copy_tables
from tests.support.storage_play import new_game, next_change, play_to_end, series_of

SEATS = (Seat(0, 11, None, "Ann"), Seat(1, None, "easy", "Bot"), Seat(2, 12, None, "Bob"))
DECK = tuple(engine.card_codes(engine.shuffled_deck(7)))


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[Storage]:
    storage = await Storage.open(tmp_path / "bot.sqlite3")
    yield storage
    await storage.close()


def _tables(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as raw:
        return raw.execute(
            "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name"
        ).fetchall()


# --- opening and migrations -------------------------------------------------


async def test_open_sets_wal_foreign_keys_busy_timeout_and_full_sync(sqlite_db: Storage) -> None:
    conn = sqlite_db._conn
    assert (await conn.execute_fetchall("PRAGMA journal_mode"))[0][0] == "wal"
    assert (await conn.execute_fetchall("PRAGMA foreign_keys"))[0][0] == 1
    assert (await conn.execute_fetchall("PRAGMA busy_timeout"))[0][0] >= 1000
    assert (await conn.execute_fetchall("PRAGMA synchronous"))[0][0] == 2  # FULL


async def test_open_logs_the_sqlite_library_version(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="storage.sqlite"):
        storage = await Storage.open(tmp_path / "x.sqlite3")
        await storage.close()
    assert any(sqlite3.sqlite_version in r.getMessage() for r in caplog.records)


async def test_migrations_build_an_empty_file_and_a_rerun_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "fresh.sqlite3"
    storage = await Storage.open(path)
    await storage.close()
    schema = _tables(path)
    names = {name for name, _ in schema}
    assert {"chats", "users", "games", "seats", "deals", "moves", "tallies"} <= names
    assert {"messages", "stats", "outbox", "schema_migrations"} <= names
    with sqlite3.connect(path) as raw:
        versions = [r[0] for r in raw.execute("SELECT version FROM schema_migrations")]
        assert versions == list(range(1, SCHEMA_VERSION + 1))
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION

    async with aiosqlite.connect(path, isolation_level=None) as conn:
        assert await migrations.migrate(conn, path) == []
    storage = await Storage.open(path)
    await storage.close()
    assert _tables(path) == schema
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == len(versions)


async def test_a_failing_migration_leaves_neither_its_tables_nor_its_bookkeeping_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.sqlite3"
    storage = await Storage.open(path)
    await storage.close()
    broken = ("CREATE TABLE half_done (x INTEGER)", "THIS IS NOT SQL")
    monkeypatch.setattr(migrations, "MIGRATIONS", (*migrations.MIGRATIONS, broken))
    async with aiosqlite.connect(path, isolation_level=None) as conn:
        with pytest.raises(sqlite3.OperationalError):
            await migrations.migrate(conn, path)
        assert not conn.in_transaction
    assert "half_done" not in {name for name, _ in _tables(path)}
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == (
            SCHEMA_VERSION
        )


async def test_a_database_from_a_newer_schema_is_refused_and_left_untouched(
    tmp_path: Path,
) -> None:
    path = tmp_path / "newer.sqlite3"
    storage = await Storage.open(path)
    await storage.create_game(1, None, {}, 11, SEATS, None)
    await storage.close()
    with sqlite3.connect(path) as raw:
        raw.execute("INSERT INTO schema_migrations VALUES (?, 0)", (SCHEMA_VERSION + 1,))
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        raw.commit()
        # Fold the WAL into the file so hashing the file covers the whole database.
        assert raw.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    before = hashlib.sha256(path.read_bytes()).hexdigest()

    with pytest.raises(NewerDatabaseError, match=r"newer version of the bot") as info:
        await Storage.open(path)
    assert f"schema version {SCHEMA_VERSION + 1}" in str(info.value)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert not path.with_name(path.name + "-wal").exists()  # not even switched to WAL
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


async def test_both_backends_have_the_same_tables_and_columns(
    tmp_path: Path, pg_shared_url: str
) -> None:
    """Each backend has its own migration list: a table or column added to one must be
    added to the other (bookkeeping and PostgreSQL's card selections aside)."""
    shapes = []
    for url in (f"sqlite:{tmp_path / 'bot.sqlite3'}", pg_shared_url):
        backend = await open_storage(url)
        try:
            shapes.append({t: sorted(cols) for t, cols in (await copy_tables(backend)).items()})
        finally:
            await backend.close()
    sqlite_shape, pg_shape = shapes
    assert {"series", "series_seats", "ratings", "lobby_watchers"} <= set(sqlite_shape)
    assert pg_shape == sqlite_shape


# --- chats, users ---------------------------------------------------------------


async def test_chat_round_trip_keeps_language_and_rules_across_upserts(db: Backend) -> None:
    assert await db.get_chat(-5) is None
    assert await db.upsert_chat(-5, "Cards") == Chat(-5, "Cards", None, {}, None)
    await db.set_chat_language(-5, "en")
    await db.set_chat_rules(-5, {"max_lead": 4, "note": "тест"})
    assert await db.upsert_chat(-5, "Cards!") == Chat(
        -5, "Cards!", "en", {"max_lead": 4, "note": "тест"}, None
    )
    assert await db.get_chat(-5) == Chat(-5, "Cards!", "en", {"max_lead": 4, "note": "тест"}, None)


async def test_user_round_trip_keeps_started_across_upserts(db: Backend) -> None:
    assert await db.get_user(7) is None
    assert await db.upsert_user(7, "Ann", "ann", "ru") == User(7, "Ann", "ann", "ru", False)
    await db.set_user_started(7, True)
    assert await db.upsert_user(7, "Anna", None, None) == User(7, "Anna", None, None, True)
    await db.set_user_started(7, False)
    assert await db.get_user(7) == User(7, "Anna", None, None, False)


# --- games ------------------------------------------------------------------------


async def test_create_game_round_trips_every_field_and_its_outbox(db: Backend) -> None:
    op = OutboxOp(-5, "send", {"text": "Lobby", "message_thread_id": 9}, role="lobby")
    game = await db.create_game(-5, 9, {"max_lead": 3}, 11, SEATS, 1234.5, (op,))
    assert (game.chat_id, game.thread_id, game.status, game.version) == (-5, 9, "lobby", 0)
    assert game.rules == {"max_lead": 3} and game.seats == SEATS
    assert (game.created_by, game.first_dealer, game.deadline) == (11, None, None)
    assert (game.lobby_expires_at, game.winners) == (1234.5, None)
    assert await db.get_game(game.id) == game
    assert await db.open_game(-5, 9) == game
    assert await db.open_game(-5, None) is None
    assert await db.active_games() == [game]
    assert await db.games_of_user(12) == [game]
    assert await db.games_of_user(99) == []
    assert await db.get_game(game.id + 1) is None
    (item,) = await db.pending(now=10**10)
    assert (item.chat_id, item.method, item.payload, item.role) == (-5, "send", op.payload, "lobby")
    assert item.game_id == game.id  # filled in: the caller could not know the new id


async def test_only_one_open_game_per_chat_and_thread(db: Backend) -> None:
    first = await db.create_game(-5, None, {}, 11, SEATS, None)
    with pytest.raises(GameExistsError) as info:
        await db.create_game(-5, None, {}, 12, SEATS, None)
    assert info.value.game == first
    other_thread = await db.create_game(-5, 3, {}, 12, SEATS, None)
    with pytest.raises(GameExistsError) as info:
        await db.create_game(-5, 3, {}, 12, SEATS, None)
    assert info.value.game == other_thread
    await db.create_game(-6, None, {}, 12, SEATS, None)
    assert await db.outbox_size() == 0

    await db.commit(first.id, 0, GameChange(status="cancelled"))
    again = await db.create_game(-5, None, {}, 12, SEATS, None)
    assert again.id != first.id and again.status == "lobby"


async def test_the_unique_index_itself_refuses_a_second_open_game(tmp_path: Path) -> None:
    path = tmp_path / "idx.sqlite3"
    storage = await Storage.open(path)
    await storage.create_game(-5, None, {}, 11, SEATS, None)
    await storage.close()
    with sqlite3.connect(path) as raw, pytest.raises(sqlite3.IntegrityError):
        raw.execute(
            "INSERT INTO games (chat_id, thread_id, status, rules, created_by, created_at,"
            " updated_at) VALUES (-5, NULL, 'playing', '{}', 1, 0, 0)"
        )


async def test_commit_round_trips_every_field_of_a_change(db: Backend) -> None:
    game = await db.create_game(-5, None, {}, 11, SEATS, 99.0)
    seats = (Seat(0, 11, None, "Ann", away=True, autoplayed=2), Seat(1, 12, None, "Bob"))
    deadline = Deadline(1, 500.0, 450.0)
    move = {"seat": 1, "cards": [DECK[0]]}
    game = await db.commit(
        game.id,
        0,
        GameChange(
            status="playing",
            seats=seats,
            first_dealer=0,
            new_deal=DealStart(0, 0, DECK),
            move=LoggedMove(0, move),
            deadline=deadline,
            lobby_expires_at=None,
            outbox=(OutboxOp(-5, "edit", {"message_id": 3}, game.id, "table"),),
        ),
    )
    assert (game.version, game.status, game.seats, game.first_dealer) == (1, "playing", seats, 0)
    assert (game.deadline, game.lobby_expires_at) == (deadline, None)
    assert await db.get_game(game.id) == game
    assert await db.deals(game.id) == [DealStart(0, 0, DECK)]
    assert await db.moves(game.id) == [LoggedMove(0, move)]

    # Unset fields stay as they were; deadline=None clears it.
    game = await db.commit(game.id, 1, GameChange(deadline=Deadline(0, 9.0, None, True)))
    assert (game.version, game.status, game.seats) == (2, "playing", seats)
    assert game.deadline == Deadline(0, 9.0, None, True)
    game = await db.commit(
        game.id,
        2,
        GameChange(
            tally=DealTally(0, (70, 50), (0, 2)),
            status="finished",
            winners=(0,),
            deadline=None,
            lobby_expires_at=UNSET,
        ),
    )
    assert (game.version, game.status, game.winners, game.deadline) == (3, "finished", (0,), None)
    assert await db.tallies(game.id) == [DealTally(0, (70, 50), (0, 2))]
    assert await db.moves(game.id) == [LoggedMove(0, move)]  # moves only when a move was given
    assert await db.active_games() == []


async def test_state_version_follows_every_change_but_a_deadline_alone(db: Backend) -> None:
    """Game.state_version (a hand's keyboard drawn since is current): a move, a start or
    a seat change sets it to the new version; a reminder (the deadline and its messages
    alone) keeps it. Catching up from a version before such a reminder takes the moves
    logged since; from before a change of more than the deadline it cannot (None)."""
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    assert game.state_version == 0
    started = await db.commit(
        game.id, 0, GameChange(status="playing", first_dealer=0, new_deal=DealStart(0, 0, DECK))
    )
    assert (started.version, started.state_version) == (1, 1)
    move = {"seat": 0, "cards": [DECK[0]]}
    moved = await db.commit(
        game.id, 1, GameChange(move=LoggedMove(0, move), deadline=Deadline(2, 500.0, 450.0))
    )
    assert (moved.version, moved.state_version) == (2, 2)
    ping = OutboxOp(12, "send", {"text": "hurry"}, game.id, "ping:12")
    reminded = await db.commit(
        game.id, 2, GameChange(deadline=Deadline(2, 500.0, 450.0, True), outbox=(ping,))
    )
    assert (reminded.version, reminded.state_version) == (3, 2)
    assert await db.get_game(game.id) == reminded
    assert await db.catch_up(game.id, 2) == (reminded, [])
    assert await db.catch_up(game.id, 1) == (reminded, [LoggedMove(0, move)])
    assert await db.catch_up(game.id, 0) is None  # the start logged no move
    reseated = await db.commit(game.id, 3, GameChange(seats=reminded.seats))
    assert (reseated.version, reseated.state_version) == (4, 4)
    assert await db.catch_up(game.id, 2) is None


async def test_stale_version_is_refused_and_changes_nothing(db: Backend) -> None:
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    game = await db.commit(game.id, 0, GameChange(status="playing", new_deal=DealStart(0, 0, DECK)))
    size = await db.outbox_size()
    with pytest.raises(StaleVersionError, match="version 1, not 0"):
        await db.commit(
            game.id,
            0,
            GameChange(
                status="cancelled",
                seats=(),
                move=LoggedMove(0, {"seat": 0, "cards": ["6S"]}),
                tally=DealTally(0, (1, 2, 3), (0, 0, 0)),
                outbox=(OutboxOp(-5, "send", {"text": "x"}),),
            ),
        )
    assert await db.get_game(game.id) == game
    assert await db.moves(game.id) == []
    assert await db.tallies(game.id) == []
    assert await db.outbox_size() == size
    assert await db.chat_stats(-5) == []
    with pytest.raises(GameNotFoundError):
        await db.commit(game.id + 100, 0, GameChange())


async def test_a_commit_failing_half_way_rolls_everything_back(db: Backend) -> None:
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    with pytest.raises(StorageError, match="constraint"):
        await db.commit(
            game.id,
            0,
            GameChange(
                status="playing",
                seats=SEATS[:2],
                outbox=(OutboxOp(-5, "send", {"text": "x"}),),
                # deal 0 was never started: the move log's foreign key refuses it
                move=LoggedMove(0, {"seat": 0, "cards": ["6S"]}),
            ),
        )
    assert await db.get_game(game.id) == game
    assert await db.outbox_size() == 0
    # The connection is usable again: no transaction was left open.
    assert (await db.commit(game.id, 0, GameChange(status="playing"))).version == 1


async def test_a_tally_and_a_finished_series_update_chat_stats(db: Backend) -> None:
    await db.upsert_user(12, "Bobby", None, None)  # the users table's name wins
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    game = await db.commit(game.id, 0, GameChange(new_deal=DealStart(0, 0, DECK)))
    game = await db.commit(game.id, 1, GameChange(tally=DealTally(0, (60, 0, 60), (0, 6, 0))))
    game = await db.commit(game.id, 2, GameChange(new_deal=DealStart(1, 0, DECK)))
    game = await db.commit(
        game.id,
        3,
        GameChange(tally=DealTally(1, (20, 70, 30), (6, 0, 4)), status="finished", winners=(2,)),
    )
    # A later commit on a finished game must not count the series twice.
    await db.commit(game.id, 4, GameChange(status="finished"))
    assert await db.chat_stats(-5) == [
        UserStats(12, "Bobby", 1, 1, 2, 4),
        UserStats(11, "Ann", 1, 0, 2, 6),
    ]
    assert await db.chat_stats(-6) == []


async def test_due_deadlines_and_expired_lobbies(db: Backend) -> None:
    lobby = await db.create_game(-1, None, {}, 11, SEATS, 100.0)
    await db.create_game(-2, None, {}, 11, SEATS, None)
    due = await db.create_game(-3, None, {}, 11, SEATS, None)
    due = await db.commit(due.id, 0, GameChange(status="playing", deadline=Deadline(0, 50.0, None)))
    remind = await db.create_game(-4, None, {}, 11, SEATS, None)
    remind = await db.commit(
        remind.id, 0, GameChange(status="playing", deadline=Deadline(0, 500.0, 40.0))
    )
    reminded = await db.create_game(-7, None, {}, 11, SEATS, None)
    await db.commit(
        reminded.id, 0, GameChange(status="playing", deadline=Deadline(0, 500.0, 40.0, True))
    )
    assert await db.expired_lobbies(99.0) == []
    assert await db.expired_lobbies(100.0) == [lobby]
    assert await db.due_deadlines(39.0) == []
    assert await db.due_deadlines(45.0) == [remind]
    assert await db.due_deadlines(60.0) == [due, remind]
    await db.commit(due.id, 1, GameChange(status="abandoned"))
    assert await db.due_deadlines(60.0) == [remind]


# --- move log and records -------------------------------------------------------


async def test_export_of_a_finished_game_replays_to_the_stored_tallies(db: Backend) -> None:
    rng = random.Random(5)
    game = await play_to_end(db, await new_game(db, rng, -5), rng)
    assert game.status == "finished"
    record = await db.export_record(game.id)
    assert record["format"] == burkozel.FORMAT and record["players"] == len(game.seats)
    report = burkozel.replay(record)
    tallies = await db.tallies(game.id)
    assert len(tallies) == len(report.deals) >= 1
    assert [t.penalties for t in tallies] == [d.penalties for d in report.deals]
    assert [t.points for t in tallies] == [d.points for d in report.deals]
    assert report.finished and game.winners == report.winners
    totals = [sum(t.penalties[s] for t in tallies) for s in range(len(game.seats))]
    assert tuple(totals) == report.totals
    assert game.version == sum(len(d["moves"]) for d in record["deals"])


async def test_an_unfinished_game_exports_a_record_that_rebuilds_the_live_state(
    db: Backend,
) -> None:
    rng = random.Random(9)
    game = await new_game(db, rng, -5)
    series = series_of(await db.export_record(game.id), game, rng)
    for _ in range(40):
        game = await db.commit(game.id, game.version, next_change(game, series, rng))
    rebuilt = burkozel.from_record(await db.export_record(game.id))
    assert burkozel.to_record(rebuilt) == burkozel.to_record(series)
    assert rebuilt.current is not None and rebuilt.current.view(0) == series.current.view(0)
    with pytest.raises(GameNotFoundError):
        await db.export_record(game.id + 1)


# --- messages, outbox ---------------------------------------------------------------


async def test_message_refs_round_trip(db: Backend) -> None:
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    assert await db.get_message(game.id, "table") is None
    await db.set_message(game.id, "table", -5, 100)
    await db.set_message(game.id, "hand:11", 11, 7)
    await db.set_message(game.id, "table", -5, 101)
    assert await db.get_message(game.id, "table") == MessageRef(game.id, "table", -5, 101)
    assert await db.game_messages(game.id) == [
        MessageRef(game.id, "hand:11", 11, 7),
        MessageRef(game.id, "table", -5, 101),
    ]
    await db.forget_message(game.id, "table")
    assert await db.game_messages(game.id) == [MessageRef(game.id, "hand:11", 11, 7)]


async def test_outbox_enqueue_pending_retry_and_done(db: Backend) -> None:
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    await db.enqueue(
        (
            OutboxOp(-5, "send", {"text": "table"}, game.id, "table"),
            OutboxOp(11, "send", {"text": "hi"}),
        )
    )
    table, hello = await db.pending(now=10**10)
    assert (table.method, table.attempts, table.last_error) == ("send", 0, None)
    assert (hello.chat_id, hello.game_id, hello.role) == (11, None, None)
    assert await db.pending(now=10**10, limit=1) == [table]
    assert await db.pending(now=0) == []

    await db.outbox_retry(table.id, 2 * 10**10, "429 Too Many Requests")
    assert await db.pending(now=10**10) == [hello]
    (retried,) = [i for i in await db.pending(now=3 * 10**10) if i.id == table.id]
    assert (retried.attempts, retried.not_before) == (1, 2 * 10**10)
    assert retried.last_error == "429 Too Many Requests"
    # A flood wait is pacing, not a failure: it does not use up a try.
    await db.outbox_retry(table.id, 3 * 10**10, "flood", count_attempt=False)
    (waited,) = [i for i in await db.pending(now=4 * 10**10) if i.id == table.id]
    assert (waited.attempts, waited.not_before) == (1, 3 * 10**10)

    await db.outbox_done(table.id, message_id=555)  # records the game's table message
    assert await db.get_message(game.id, "table") == MessageRef(game.id, "table", -5, 555)
    await db.outbox_done(table.id, message_id=666)  # a repeat is a no-op
    assert await db.get_message(game.id, "table") == MessageRef(game.id, "table", -5, 555)
    await db.outbox_done(hello.id, message_id=9)  # one-off: nothing to record
    assert await db.outbox_size() == 0


async def test_outbox_reopen_releases_a_held_group_and_resends_its_tables(db: Backend) -> None:
    """The bot back in a group: what was held goes now, and the tables the group never
    saw change come as new messages (one per table), in the order they were queued."""
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    other = await db.create_game(-6, None, {}, 11, SEATS, None)
    later = 10**10
    await db.enqueue(
        (
            OutboxOp(-5, "edit", {"text": "deal 1, move 1"}, game.id, "table"),
            OutboxOp(-5, "edit", {"text": "deal 1 is over"}, game.id, "table"),
            OutboxOp(-5, "send", {"text": "deal 2"}, game.id, "table:2"),
            OutboxOp(-5, "edit", {"text": "deal 2, move 1"}, game.id, "table:2"),
            OutboxOp(-5, "edit", {"text": "lobby"}, game.id, "lobby"),
            OutboxOp(11, "edit", {"text": "hand"}, game.id, "hand:11"),
            OutboxOp(-6, "edit", {"text": "another group"}, other.id, "table"),
        )
    )
    held = [i for i in await db.pending(now=later) if i.chat_id == -5]
    await db.outbox_retry(held[0].id, later + 300, "bot not in the group", count_attempt=False)
    await db.outbox_reopen(-5, later)
    due = [(i.method, i.payload["text"]) for i in await db.pending(now=later, limit=100)]
    assert due == [
        ("send", "deal 1 is over"),
        ("send", "deal 2"),
        ("edit", "deal 2, move 1"),
        ("edit", "lobby"),
        ("edit", "hand"),
        ("edit", "another group"),
    ]


async def test_outbox_done_logs_the_operation_telegram_took_for_the_next_senders_pacing(
    db: Backend,
) -> None:
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    await db.enqueue(
        (
            OutboxOp(-5, "send", {"text": "table"}, game.id, "table"),
            OutboxOp(11, "send", {"text": "hi"}),
            OutboxOp(-5, "edit", {"text": "table 2"}, game.id, "table"),
        )
    )
    table, hello, edit = await db.pending(now=10**10)
    await db.outbox_done(table.id, message_id=555, sent=SentOp(-5, 1000.5))
    await db.outbox_done(hello.id, sent=SentOp(11, 1000.25))
    await db.outbox_done(edit.id)  # answered without a request to Telegram: not logged
    # A row a newer edit superseded while in flight: Telegram took its operation all
    # the same, and the message it sent is still the game's.
    await db.outbox_done(table.id, message_id=556, sent=SentOp(-5, 1001.0))
    assert await db.outbox_size() == 0
    assert await db.get_message(game.id, "table") == MessageRef(game.id, "table", -5, 555)
    assert await db.sent_ops(since=0) == [
        SentOp(11, 1000.25),
        SentOp(-5, 1000.5),
        SentOp(-5, 1001.0),
    ]
    assert await db.sent_ops(since=1000.5) == [SentOp(-5, 1001.0)]
    # Telegram ids pass 2^31 (supergroups: -100...).
    await db.outbox_done(10**9, sent=SentOp(-1001234567890, 1002.0))
    assert await db.sent_ops(since=1001.0) == [SentOp(-1001234567890, 1002.0)]
    # What a restarted sender counts as maybe in flight when the previous one died.
    await db.log_sent_ops([SentOp(-5, 1003.0), SentOp(11, 1003.5)])
    await db.log_sent_ops([])
    assert await db.sent_ops(since=1002.0) == [SentOp(-5, 1003.0), SentOp(11, 1003.5)]
    assert await db.prune_sent_ops(before=1001.0) == 2
    assert await db.sent_ops(since=0) == [
        SentOp(-5, 1001.0),
        SentOp(-1001234567890, 1002.0),
        SentOp(-5, 1003.0),
        SentOp(11, 1003.5),
    ]


@pytest.fixture(params=["sqlite", "postgresql"])
async def new_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A database that does not exist yet, on either backend."""
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path / 'new.sqlite3'}"
        return
    cluster = request.getfixturevalue("pg_cluster")
    url = await cluster.new_database()
    yield url
    await cluster.drop_database(url)


async def test_a_database_from_before_the_sent_ops_log_opens_with_its_outbox(
    new_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Schema 6 (before migration 7's sent_ops): the bot opens it, its pending outbox is
    kept, and the operations sent from it are logged from then on."""
    url = new_url
    with monkeypatch.context() as old_code:
        old_code.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:6])
        old_code.setattr(pg_migrations, "PG_MIGRATIONS", pg_migrations.PG_MIGRATIONS[:6])
        old = await open_storage(url)
        await old.enqueue((OutboxOp(-5, "send", {"text": "queued before the upgrade"}),))
        with pytest.raises(Exception, match="sent_ops"):
            await old.sent_ops(since=0)
        await old.close()
    db = await open_storage(url)
    try:
        (queued,) = await db.pending(now=10**10)
        assert queued.payload == {"text": "queued before the upgrade"}
        assert await db.sent_ops(since=0) == []
        await db.outbox_done(queued.id, sent=SentOp(-5, 1000.0))
        assert await db.sent_ops(since=0) == [SentOp(-5, 1000.0)]
    finally:
        await db.close()


async def test_outbox_drop_superseded_keeps_only_the_newest_edit_per_game_message(
    db: Backend,
) -> None:
    ops = (
        OutboxOp(-5, "edit", {"n": 1}, 1, "table"),
        OutboxOp(-5, "send", {"n": 2}, 1, "table"),
        OutboxOp(-5, "edit", {"n": 3}, 1, "hand:11"),
        OutboxOp(-5, "edit", {"n": 4}, 1, "table"),
        OutboxOp(-5, "edit", {"n": 5}, 2, "table"),
        OutboxOp(-5, "edit", {"n": 6}, None, None),
        OutboxOp(-5, "edit", {"n": 7}, None, None),
        OutboxOp(-5, "edit", {"n": 8}, 1, "table"),
    )
    await db.enqueue(ops)
    assert await db.outbox_drop_superseded() == 2
    assert [i.payload["n"] for i in await db.pending(now=10**10)] == [2, 3, 5, 6, 7, 8]
    assert await db.outbox_drop_superseded() == 0


async def test_r8_an_edit_with_a_milestone_is_replaced_only_by_one_showing_it_too(
    db: Backend,
) -> None:
    """A hand showing a finished trick (milestone "1.3") is not coalesced into the next
    lead's edit, which no longer shows it (else plays never reached a player)."""
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    hand = "hand:11"
    await db.enqueue(
        (
            OutboxOp(11, "edit", {"n": 1}, game.id, hand),
            OutboxOp(11, "edit", {"n": 2}, game.id, hand, "1.3"),
            OutboxOp(11, "edit", {"n": 3}, game.id, hand, "1.3"),  # a selection redrawn
            OutboxOp(11, "edit", {"n": 4}, game.id, hand),  # the next lead
            OutboxOp(11, "edit", {"n": 5}, game.id, hand),
            OutboxOp(11, "edit", {"n": 6}, game.id, hand, "1.4"),
            OutboxOp(11, "edit", {"n": 7}, game.id, "hand:12", "1.4"),  # another message
        )
    )
    assert await db.outbox_drop_superseded() == 4
    assert [i.payload["n"] for i in await db.pending(now=10**10)] == [3, 6, 7]
    # Committed with a change (PostgreSQL writes those with its own statement), likewise.
    change = GameChange(
        outbox=(
            OutboxOp(11, "edit", {"n": 8}, game.id, hand),
            OutboxOp(11, "edit", {"n": 9}, game.id, hand, "1.5"),
            OutboxOp(11, "edit", {"n": 10}, game.id, hand),
        )
    )
    await db.commit(game.id, game.version, change)
    # 8 goes (6 and 9 show what 10 does not); so does 3: two newer tricks wait to be shown
    # on that hand (MILESTONES_KEPT), and play that outruns the chat's pace must not leave
    # the hand ever further behind the game.
    assert await db.outbox_drop_superseded() == 2
    assert [i.payload["n"] for i in await db.pending(now=10**10)] == [6, 7, 9, 10]


async def test_migrate_chat_moves_games_messages_outbox_and_stats(db: Backend) -> None:
    await db.upsert_chat(-5, "Old group")
    await db.set_chat_language(-5, "en")
    await db.set_chat_rules(-5, {"max_lead": 4})
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    await db.set_message(game.id, "table", -5, 10)
    await db.set_message(game.id, "hand:11", 11, 20)
    await db.enqueue((OutboxOp(-5, "edit", {"message_id": 10}, game.id, "table"),))
    await db.enqueue((OutboxOp(11, "send", {"text": "dm"}),))
    game = await db.commit(game.id, 0, GameChange(new_deal=DealStart(0, 0, DECK)))
    await db.commit(game.id, 1, GameChange(tally=DealTally(0, (1, 0, 0), (0, 6, 6))))
    # The new chat already has a stats row for Ann: the two are added up.
    other = await db.create_game(-100, None, {}, 11, SEATS, None)
    other = await db.commit(other.id, 0, GameChange(new_deal=DealStart(0, 0, DECK)))
    await db.commit(other.id, 1, GameChange(tally=DealTally(0, (0, 1, 0), (6, 0, 6))))
    await db.commit(other.id, 2, GameChange(status="cancelled"))

    await db.migrate_chat(-5, -100)

    assert await db.get_chat(-5) == Chat(-5, "Old group", "en", {"max_lead": 4}, -100)
    assert await db.get_chat(-100) == Chat(-100, "Old group", "en", {"max_lead": 4}, None)
    moved = await db.get_game(game.id)
    assert moved is not None and moved.chat_id == -100
    assert await db.open_game(-100, None) == moved
    assert await db.open_game(-5, None) is None
    assert await db.get_message(game.id, "table") == MessageRef(game.id, "table", -100, 10)
    assert await db.get_message(game.id, "hand:11") == MessageRef(game.id, "hand:11", 11, 20)
    assert sorted(i.chat_id for i in await db.pending(now=10**10)) == [-100, 11]
    assert await db.chat_stats(-5) == []
    assert {s.user_id: (s.deals_played, s.penalties) for s in await db.chat_stats(-100)} == {
        11: (2, 6),
        12: (2, 12),
    }


async def test_migrate_chat_refuses_when_both_chats_have_an_open_game_and_changes_nothing(
    db: Backend,
) -> None:
    old = await db.create_game(-5, None, {}, 11, SEATS, None)
    new = await db.create_game(-100, None, {}, 11, SEATS, None)
    await db.enqueue((OutboxOp(-5, "send", {"text": "x"}),))
    with pytest.raises(StorageError, match="both have an open game"):
        await db.migrate_chat(-5, -100)
    assert await db.open_game(-5, None) == old
    assert await db.open_game(-100, None) == new
    assert [i.chat_id for i in await db.pending(now=10**10)] == [-5]
    assert await db.get_chat(-5) is None


# --- corrupt rows ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "call", "message"),
    [
        ("UPDATE games SET rules = '{not json'", "get_game", r"games row 1: column rules"),
        ("UPDATE games SET rules = '[1, 2]'", "get_game", r"must hold a JSON object"),
        ("UPDATE games SET winners = '[\"a\"]'", "get_game", r"whole numbers"),
        ("UPDATE seats SET user_id = 'x'", "get_game", r"seats row .*user_id"),
        ("UPDATE moves SET move = 'nope'", "moves", r"moves row \(game 1, version 1\)"),
        ("UPDATE deals SET deck = '{}'", "export_record", r"card codes"),
        ("UPDATE tallies SET penalties = 'x'", "tallies", r"tallies row"),
        ("UPDATE outbox SET payload = '{'", "payloads", r"outbox row 1: column payload"),
        ("UPDATE chats SET rules = ']'", "get_chat", r"chats row -5"),
    ],
)
async def test_a_row_that_cannot_be_decoded_raises_corrupt_record_error(
    tmp_path: Path, sql: str, call: str, message: str
) -> None:
    path = tmp_path / "corrupt.sqlite3"
    storage = await Storage.open(path)
    await storage.upsert_chat(-5, "Cards")
    game = await storage.create_game(-5, None, {}, 11, SEATS, None)
    await storage.enqueue((OutboxOp(-5, "send", {"text": "x"}),))
    await storage.commit(
        game.id,
        0,
        GameChange(
            new_deal=DealStart(0, 0, DECK),
            move=LoggedMove(0, {"seat": 1, "cards": [DECK[0]]}),
            tally=DealTally(0, (1, 2, 3), (0, 0, 0)),
            winners=(0,),
        ),
    )
    await storage.close()
    with sqlite3.connect(path) as raw:
        raw.execute(sql)

    storage = await Storage.open(path)
    try:
        args = {"get_game": (1,), "moves": (1,), "export_record": (1,), "tallies": (1,)}
        args |= {"get_chat": (-5,)}
        with pytest.raises(CorruptRecordError, match=message):
            if call == "payloads":  # decoded when the sender reads it, not when it looks
                [item.payload for item in await storage.pending(10**10)]
            else:
                await getattr(storage, call)(*args[call])
        assert await storage.outbox_size() == 1  # the storage still works afterwards
    finally:
        await storage.close()


# --- cancellation ---------------------------------------------------------------------


async def test_a_cancelled_commit_leaves_no_transaction_open(db: Backend) -> None:
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    for attempt in range(20):
        task = asyncio.create_task(
            db.commit(game.id, game.version, GameChange(outbox=(OutboxOp(-5, "send", {}),)))
        )
        for _ in range(attempt % 7):
            await asyncio.sleep(0)
        task.cancel()
        try:
            game = await task
        except asyncio.CancelledError:
            fresh = await db.get_game(game.id)
            assert fresh is not None
            game = fresh
        # Whatever happened, the version and the outbox agree: the commit is all or nothing.
        assert await db.outbox_size() == game.version
    game = await db.commit(game.id, game.version, GameChange())
    if isinstance(db, Storage):
        assert not db._conn.in_transaction


async def test_a_lobby_changes_its_rules_and_a_started_game_refuses_to(db: Backend) -> None:
    """The lobby's creator may change the rules before Start; a series never."""
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    game = await db.commit(game.id, 0, GameChange(rules={"teams": "pairs"}))
    assert game.rules == {"teams": "pairs"} and (await db.get_game(game.id)) == game
    game = await db.commit(game.id, 1, GameChange(status="playing", new_deal=DealStart(0, 0, DECK)))
    with pytest.raises(StorageError, match="cannot change"):
        await db.commit(game.id, 2, GameChange(rules={}))
    assert await db.get_game(game.id) == game


async def test_outbox_turns_give_each_chats_next_row_in_the_order_chats_go(db: Backend) -> None:
    """Per chat: its oldest due answer (a row of no game), else its head; a chat whose
    head waits waits whole. Across chats: games first, then groups' answers, then private
    chats' answers, oldest head first; read a page at a time."""
    now = 10**10
    await db.enqueue(
        (
            OutboxOp(-5, "edit", {"text": "table A, move 1"}, 1, "table"),
            OutboxOp(-5, "send", {"text": "the group's answer"}),
            OutboxOp(-6, "edit", {"text": "table B, move 1"}, 2, "table"),
            OutboxOp(11, "send", {"text": "Ann's answer"}),
            OutboxOp(12, "send", {"text": "Bob's answer, retried"}),
            OutboxOp(12, "send", {"text": "Bob's next answer"}),
            OutboxOp(-7, "send", {"text": "table C"}, 3, "table"),
            OutboxOp(-6, "edit", {"text": "table B, move 2"}, 2, "table"),
        )
    )
    retried = next(i for i in await db.pending(now) if i.chat_id == 12)
    await db.outbox_retry(retried.id, now + 5, "502 Bad Gateway")

    first = await db.outbox_turns(now, limit=2)
    second = await db.outbox_turns(now, limit=2, after=first.last)
    turns = [*first.turns, *second.turns]
    assert [t.item.payload["text"] for t in turns] == [
        "table B, move 1",
        "table C",
        "the group's answer",
        "Ann's answer",
    ]
    assert [t.newer_edit for t in turns] == [True, False, False, False]
    assert (await db.outbox_turns(now, limit=2, after=second.last)).turns == []
    assert first.next_due == now + 5
    assert [t.item.payload["text"] for t in (await db.outbox_turns(now + 5, 10)).turns][-1] == (
        "Bob's answer, retried"
    )


async def test_outbox_pings_are_the_due_ping_rows_of_the_chats_named(db: Backend) -> None:
    now = 10**10
    await db.enqueue(
        (
            OutboxOp(11, "send", {"text": "🔔"}, 1, "ping:11"),
            OutboxOp(11, "edit", {"text": "hand"}, 1, "hand:11"),
            OutboxOp(12, "send", {"text": "🔔"}, 1, "ping:12"),
            OutboxOp(11, "delete", {}, 1, "ping:11"),
        )
    )
    pings = await db.outbox_pings([11], now)
    assert [(i.chat_id, i.method) for i in pings] == [(11, "send"), (11, "delete")]
    assert await db.outbox_pings([11, 12], 0) == []
    assert await db.outbox_pings([], now) == []
