"""PostgreSQL commits a plain move in one statement (storage/postgres/writes.py
``commit_one``) and everything else through the commit written once for both backends
(storage/games.py ``commit_game``): the two must leave the same game behind."""

from __future__ import annotations

import dataclasses
import random

import pytest

import storage.postgres.games as pg_games
from storage import Backend, Game, open_storage
from tests.support.storage_play import new_game, next_change, series_of


def _comparable(game: Game) -> Game:
    # The lobby clock of each game is its own until the first change sets both alike.
    lobby = None if game.lobby_expires_at is None else 0.0
    return dataclasses.replace(game, id=0, thread_id=None, created_at=0.0, lobby_expires_at=lobby)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_one_statement_move_leaves_what_the_general_commit_leaves(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    db: Backend = await open_storage(pg_url)
    try:
        rng = random.Random(seed)
        # Two games alike, in two threads of one chat: the same changes go to both.
        fast = await new_game(db, random.Random(seed), chat_id=-5, thread_id=1)
        general = await new_game(db, random.Random(seed), chat_id=-5, thread_id=2)
        assert _comparable(fast) == _comparable(general)
        series = series_of(await db.export_record(fast.id), fast, rng)
        plain_moves = 0
        while fast.status in ("lobby", "playing"):
            change = next_change(fast, series, rng)
            plain_moves += pg_games.simple_change(change)
            fast = await db.commit(fast.id, fast.version, change)
            with monkeypatch.context() as patch:
                patch.setattr(pg_games, "simple_change", lambda _change: False)
                general = await db.commit(general.id, general.version, change)
            assert _comparable(fast) == _comparable(general)
        assert plain_moves > 10  # the one-statement path was really taken
        for read in (db.deals, db.moves, db.tallies, db.game_messages):
            assert await read(fast.id) == await read(general.id)
        queued = await db.pending(now=2**40, limit=10_000)
        assert [(i.method, i.payload, i.role) for i in queued if i.game_id == fast.id] == [
            (i.method, i.payload, i.role) for i in queued if i.game_id == general.id
        ]
    finally:
        await db.close()
