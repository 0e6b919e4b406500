"""The engine's command line (``python -m engine``) run as a user runs it, and records to
give it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine.burkozel import to_record
from tests.support.burkozel import random_series

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def record(seed: int = 4, players: int = 2) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(to_record(random_series(players, seed))))
    return data


def failure(data: object, tmp_path: Path) -> str:
    """Replay ``data`` (a record, or raw text) from a file; return its one-line error."""
    path = tmp_path / "record.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    proc = run("replay", str(path))
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]
