"""The terminal game, ``python -m engine play``, driven through a real subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def run_play(stdin: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_full_series_always_choosing_the_first_move() -> None:
    proc = run_play("1\n" * 2000, "--players", "2", "--level", "easy", "--seed", "5")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Your hand:" in out and "Moves:" in out and "Trump" in out
    assert "Deal 1 over." in out and "Series tally:" in out
    assert "Series over. Winner:" in out
    assert proc.stderr == ""


def test_three_players_normal_level_until_input_ends() -> None:
    proc = run_play("1\n" * 30, "--players", "3", "--level", "normal", "--seed", "2")
    assert proc.returncode == 0, proc.stderr
    assert "Bot 2 (normal)" in proc.stdout
    assert "Game left before the end. Bye!" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_bad_input_is_answered_politely() -> None:
    proc = run_play("hello\n0\n999\n\n1\nq\n", "--seed", "1", "--level", "easy")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Please type a number from 1 to") == 4
    assert "You: " in proc.stdout  # the valid "1" was played
    assert "Game left before the end. Bye!" in proc.stdout


def test_eof_at_once_exits_cleanly() -> None:
    proc = run_play("", "--seed", "1")
    assert proc.returncode == 0
    assert "Bye!" in proc.stdout
    assert proc.stderr == ""


def test_same_seed_same_game() -> None:
    first = run_play("1\n" * 2000, "--seed", "11", "--level", "easy")
    again = run_play("1\n" * 2000, "--seed", "11", "--level", "easy")
    assert first.stdout == again.stdout


def test_bad_level_is_refused() -> None:
    proc = run_play("", "--level", "godlike")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def test_replay_command_still_works() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "replay", "-"],
        input='{"format": "burkozel-record/1", "players": 2, "deals": []}',
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"totals": [0, 0]' in proc.stdout
