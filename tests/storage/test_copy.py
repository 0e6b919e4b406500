"""``python -m storage copy``: a whole database moves SQLite -> PostgreSQL -> SQLite and the
running games go on on the copy (real PostgreSQL; skipped loudly without a server)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import burkozel
from stats.summary import series_end
from storage import (
    Backend,
    GameChange,
    OutboxOp,
    PgStorage,
    Seat,
    Storage,
    StorageError,
    open_storage,
)
from storage.copy import copy_database
from tests.support.storage_play import new_game, next_change, play_to_end, series_of


async def snapshot(db: Backend, game_ids: list[int]) -> list[object]:
    """What a player could ever see of the games, and what is still to be sent."""
    shown: list[object] = []
    for game_id in game_ids:
        game = await db.get_game(game_id)
        assert game is not None
        shown += [game, await db.export_record(game_id), await db.tallies(game_id)]
        shown += [await db.game_messages(game_id), await db.chat_stats(game.chat_id)]
    shown += [await db.pending(now=10**12, limit=10_000), await db.get_chat(-5)]
    shown.append(await db.get_user(100))
    # The records: series, their seats, ratings, the chat switches.
    for chat in (-5, -6, -8):
        shown += [await db.recent_series(chat), await db.ratings(chat)]
        shown += [await db.chat_pictures(chat), await db.player_records(100, chat)]
    shown.append(await db.player_records(100, None))
    return shown


async def finish_rated_series(db: Backend, chat_id: int) -> int:
    """A series finished as the bot finishes one: recorded and rated in its last commit."""
    seats = (Seat(0, 100, None, "Ann <&>"), Seat(1, None, "hard", "Computer"))
    game = await db.create_game(chat_id, None, {}, 100, seats, None)
    end = series_end({}, seats, [(60, 60)], [(2, 0)], (1,))
    await db.commit(game.id, 0, GameChange(status="finished", winners=(1,), series_end=end))
    return game.id


async def test_copy_to_postgresql_and_back_keeps_everything_and_games_go_on(
    tmp_path: Path, pg_url: str
) -> None:
    rng = random.Random(15)
    source_url = f"sqlite:{tmp_path / 'src.sqlite3'}"
    src = await open_storage(source_url)
    await src.upsert_chat(-5, "Cards <&>")
    await src.upsert_user(100, "Ann", "ann", "en")
    running = await new_game(src, rng, -5)
    series = series_of(await src.export_record(running.id), running, rng)
    for _ in range(25):
        running = await src.commit(running.id, running.version, next_change(running, series, rng))
    await src.set_message(running.id, "table", -5, 77)
    finished = await play_to_end(src, await new_game(src, rng, -6), rng)
    await src.enqueue((OutboxOp(100, "send", {"text": "still to send"}),))
    rated = [await finish_rated_series(src, -8), await finish_rated_series(src, -6)]
    await src.reset_chat_stats(-6)  # the first -6 series no longer counts in its stats
    rated.append(await finish_rated_series(src, -6))
    await src.set_chat_pictures(-5, False)
    assert await src.toggle_lobby_watch(-5, 100)
    ids = [running.id, finished.id]
    before = await snapshot(src, ids)
    await src.close()

    counts = await copy_database(source_url, pg_url)
    assert counts["games"] == 5 and counts["moves"] > 25 and counts["outbox"] > 0
    assert (counts["series"], counts["series_seats"], counts["lobby_watchers"]) == (3, 6, 1)

    pg = await open_storage(pg_url)
    assert isinstance(pg, PgStorage)
    try:
        assert await snapshot(pg, ids) == before
        # The running game goes on on the copy, from the same state, to its end.
        series = series_of(await pg.export_record(running.id), running, rng)
        game = running
        while game.status == "playing":
            game = await pg.commit(game.id, game.version, next_change(game, series, rng))
        report = burkozel.replay(await pg.export_record(game.id))
        assert report.finished and report.winners == game.winners
        # New rows get new ids after the copied ones.
        fresh = await pg.create_game(-7, None, {}, 1, running.seats, None)
        assert fresh.id > max(ids + rated)
        after = await snapshot(pg, [*ids, fresh.id])
    finally:
        await pg.close()

    # And back into a new SQLite file.
    back_url = f"sqlite:{tmp_path / 'back.sqlite3'}"
    await copy_database(pg_url, back_url)
    back = await open_storage(back_url)
    assert isinstance(back, Storage)
    try:
        assert await snapshot(back, [*ids, fresh.id]) == after
        game = await back.commit(fresh.id, 0, GameChange(status="cancelled"))
        assert game.version == 1
        assert await back.take_lobby_watchers(-5) == [100]  # /notify survived both copies
    finally:
        await back.close()


async def test_copy_refuses_a_target_that_is_not_empty(tmp_path: Path, pg_url: str) -> None:
    src_url = f"sqlite:{tmp_path / 'a.sqlite3'}"
    dst_url = f"sqlite:{tmp_path / 'b.sqlite3'}"
    for url, chat in ((src_url, -1), (dst_url, -2)):
        db = await open_storage(url)
        await db.upsert_chat(chat, "x")
        await db.close()
    with pytest.raises(StorageError, match=r"not empty: chats \(1 rows\)"):
        await copy_database(src_url, dst_url)
    dst = await open_storage(dst_url)
    try:
        assert await dst.get_chat(-1) is None  # nothing copied
    finally:
        await dst.close()
    # From the command line: one line and status 2, for a PostgreSQL target as well.
    await copy_database(src_url, pg_url)
    done = subprocess.run(
        [sys.executable, "-m", "storage", "copy", dst_url, pg_url],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("copy failed: the target database is not empty")
    assert done.stderr.count("\n") == 1
    bad = subprocess.run(
        [sys.executable, "-m", "storage", "copy", "mysql://x", dst_url],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (bad.returncode, bad.stderr.split(":")[0]) == (2, "SRC_URL is invalid")
