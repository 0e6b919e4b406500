"""kill -9 at random moments while a child process commits moves: nothing is half written."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

from engine import burkozel
from storage import Game, Storage
from tests.support.storage_play import outbox_count

CHILD = Path(__file__).parents[1] / "support" / "storage_kill_child.py"
KILLS = 25
ENOUGH_MOVES = 20 * KILLS
OPEN = ("lobby", "playing")


async def check_database(path: Path) -> tuple[int, int]:
    """Every invariant a crash could break; returns (moves committed, finished games)."""
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
        outbox_rows = raw.execute("SELECT game_id, payload FROM outbox").fetchall()
    finally:
        raw.close()

    storage = await Storage.open(path)  # opens cleanly after the crash (WAL recovery)
    try:
        all_games = await _all_games(storage, path)
        for chat_id in (-1001, -1002, -1003):
            chat_open = [g.id for g in all_games if g.chat_id == chat_id and g.status in OPEN]
            assert len(chat_open) <= 1, "two open games in one chat"
            open_game = await storage.open_game(chat_id, None)
            assert chat_open == ([open_game.id] if open_game else [])

        per_version: Counter[tuple[int, int]] = Counter()
        lobby_sends: Counter[int] = Counter()
        for game_id, payload in outbox_rows:
            data = json.loads(payload)
            if "v" in data:
                per_version[(game_id, data["v"])] += 1
            else:
                lobby_sends[game_id] += 1

        expected_stats: dict[tuple[int, int], list[int]] = {}
        total_moves = finished = 0
        for game in all_games:
            record = await storage.export_record(game.id)
            series = burkozel.from_record(record)  # the move log replays without error
            moves = sum(len(d["moves"]) for d in record["deals"])
            # One move per commit: the version counts exactly the commits that landed.
            assert game.version == moves == len(await storage.moves(game.id))
            total_moves += moves
            assert lobby_sends[game.id] == 1, "create_game's outbox row is missing"
            for v in range(1, game.version + 1):
                assert per_version[(game.id, v)] == outbox_count(v), (game.id, v)
            assert not [k for k in per_version if k[0] == game.id and k[1] > game.version]

            # The game row equals the state rebuilt from its log.
            done = [d for d in series.deals if d.finished]
            tallies = await storage.tallies(game.id)
            assert [(t.deal_index, t.points, t.penalties) for t in tallies] == [
                (i, d.result().points, d.result().penalties) for i, d in enumerate(done)
            ]
            if game.version == 0:
                assert game.status == "lobby" and game.deadline is None
            elif series.finished:
                finished += 1
                assert game.status == "finished"
                assert game.winners == series.result().winners
                assert game.deadline is None
            else:
                assert game.status == "playing"
                assert game.first_dealer == series.first_dealer
                assert game.deadline is not None
                deal = series.current
                turn = deal.turn if deal is not None and deal.turn is not None else None
                if turn is None:
                    turn = (series.next_dealer() + 1) % series.players
                assert game.deadline.seat == turn
            for seat in game.seats:
                if seat.user_id is None:
                    continue
                row = expected_stats.setdefault((game.chat_id, seat.user_id), [0, 0, 0, 0])
                row[0] += int(series.finished)
                row[1] += int(series.finished and seat.seat in series.result().winners)
                row[2] += len(done)
                row[3] += sum(d.result().penalties[seat.seat] for d in done)

        # Stats are updated in the same transaction as the tally: they add up exactly.
        got_stats = {}
        for chat_id in {g.chat_id for g in all_games}:
            for s in await storage.chat_stats(chat_id):
                got_stats[(chat_id, s.user_id)] = [
                    s.series_played,
                    s.series_won,
                    s.deals_played,
                    s.penalties,
                ]
        assert got_stats == {k: v for k, v in expected_stats.items() if v[2] or v[0]}
        return total_moves, finished
    finally:
        await storage.close()


async def _all_games(storage: Storage, path: Path) -> list[Game]:
    raw = sqlite3.connect(path)
    try:
        ids = [row[0] for row in raw.execute("SELECT id FROM games ORDER BY id")]
    finally:
        raw.close()
    games = []
    for game_id in ids:
        game = await storage.get_game(game_id)
        assert game is not None
        games.append(game)
    return games


async def test_sigkill_at_random_moments_leaves_no_half_written_move(tmp_path: Path) -> None:
    path = tmp_path / "crash.sqlite3"
    rng = random.Random(20240611)
    progress: list[tuple[int, int]] = []
    kill = 0
    # KILLS kills at least; on a machine too busy for the child to commit enough between
    # kills, more of them (counted, not timed), up to four times as many.
    while kill < KILLS or (progress[-1][0] <= ENOUGH_MOVES and kill < 4 * KILLS):
        kill += 1
        child = subprocess.Popen(
            [sys.executable, str(CHILD), str(path), str(kill)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert child.stdout is not None
            line = await asyncio.to_thread(child.stdout.readline)
            assert line.strip() == "ready", child.stderr.read() if child.stderr else ""
            await asyncio.sleep(rng.uniform(0.02, 0.35))
            assert child.poll() is None, f"child died on its own: {child.stderr.read()}"
            os.kill(child.pid, signal.SIGKILL)
        finally:
            if child.poll() is None:
                child.kill()
            child.wait()
            for stream in (child.stdout, child.stderr):
                if stream is not None:
                    stream.close()
        assert child.returncode == -signal.SIGKILL
        progress.append(await check_database(path))

    moves = [m for m, _ in progress]
    assert moves == sorted(moves), "committed moves were lost after a kill"
    assert moves[-1] > ENOUGH_MOVES, f"the child committed too little to prove anything: {moves}"
    assert progress[-1][1] >= 1, "no series finished, so finishing was never crash-tested"
