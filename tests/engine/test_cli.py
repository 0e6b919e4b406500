"""``python -m engine replay FILE|-`` run as a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import DECK, parse_cards
from engine.burkozel import Action, Deal, replay
from tests.support.cli import failure, record, run


def test_replay_file_prints_one_json_object(tmp_path: Path) -> None:
    data = record()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = run("replay", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert len(proc.stdout.strip().splitlines()) == 1
    out = json.loads(proc.stdout)
    assert set(out) == {"deals", "totals", "finished", "winners"}
    assert out == replay(data).to_json()
    assert out["finished"] is True and max(out["totals"]) >= 12
    assert out["winners"] == [s for s, t in enumerate(out["totals"]) if t == min(out["totals"])]
    for deal in out["deals"]:
        assert set(deal) == {"points", "penalties", "last_trick", "complete"}
        assert deal["complete"] is True and sum(deal["points"]) == 120
        assert len(deal["penalties"]) == 2


def test_replay_stdin() -> None:
    data = record(seed=5, players=4)
    proc = run("replay", "-", stdin=json.dumps(data))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == replay(data).to_json()


def test_incomplete_deal_has_null_penalties() -> None:
    data = record(players=3)
    data["deals"] = data["deals"][:1]
    data["deals"][0]["moves"] = data["deals"][0]["moves"][:5]
    proc = run("replay", "-", stdin=json.dumps(data))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["deals"][0]["penalties"] is None and out["deals"][0]["complete"] is False
    assert out["finished"] is False and out["winners"] == [] and out["totals"] == [0, 0, 0]


def test_deal_after_series_finished_is_an_error(tmp_path: Path) -> None:
    data = record()
    data["deals"].append({"deck": [c.code() for c in DECK], "moves": []})
    line = failure(data, tmp_path)
    assert (
        line
        == f"error: deal {len(data['deals']) - 1}: the series was already over before this deal"
    )


def test_illegal_move(tmp_path: Path) -> None:
    data = record()
    moves = data["deals"][1]["moves"]
    moves[3]["seat"] = 1 - moves[3]["seat"]
    line = failure(data, tmp_path)
    assert line.startswith("error: deal 1, move 3: it is seat ")
    assert "turn" in line


def test_declared_beat_that_does_not_cover(tmp_path: Path) -> None:
    data = record()
    deal = data["deals"][0]
    # find a discard that could not have been declared a beat: replace it by a beat
    state = Deal.start(2, parse_cards(deal["deck"]), deal["dealer"])
    for i, m in enumerate(deal["moves"]):
        move = Action.from_json(m)
        if move.beat is False and Action(move.seat, move.cards, True) not in state.legal_actions():
            m["beat"] = True
            line = failure(data, tmp_path)
            assert (
                line == f"error: deal 0, move {i}: these cards do not beat every claimant card (R7)"
            )
            return
        state.apply(move)
    pytest.skip("no non-covering discard in this record")


@pytest.mark.parametrize(
    "change, expected",
    [
        (
            lambda r: r["deals"][0]["moves"][2]["cards"].__setitem__(0, "1H"),
            "error: deal 0, move 2: bad card code '1H': unknown rank '1'",
        ),
        (
            lambda r: r["deals"][0].pop("dealer"),
            "error: deal 0: the first deal needs a dealer",
        ),
        (
            lambda r: r["deals"][1]["moves"][1].pop("beat"),
            "error: deal 1, move 1: an answer must be declared a beat or a discard (R7)",
        ),
        (
            lambda r: r["deals"][1]["moves"][0].update(beat=False),
            "error: deal 1, move 0: a lead is neither a beat nor a discard",
        ),
        (
            lambda r: r["deals"][0]["deck"].__setitem__(0, "10X"),
            "error: deal 0: bad card code '10X': unknown suit 'X'",
        ),
        (
            lambda r: r.update(format="chess"),
            "error: record: format must be 'burkozel-record/1' or 'bura-record/1'",
        ),
    ],
)
def test_errors_name_deal_move_and_reason(change: Any, expected: str, tmp_path: Path) -> None:
    data = record()
    change(data)
    assert failure(data, tmp_path) == expected


def test_bad_json(tmp_path: Path) -> None:
    line = failure('{"format": "burkozel-record/1", "players": 2,', tmp_path)
    assert line.startswith("error: record: not JSON")


def test_bad_json_on_stdin() -> None:
    proc = run("replay", "-", stdin="not json at all")
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "not JSON" in proc.stderr


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(b'{"format": "\xff\xfe"}')
    proc = run("replay", str(path))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "error: record: not UTF-8 text (byte 12)\n"


def test_missing_file(tmp_path: Path) -> None:
    proc = run("replay", str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "cannot read" in proc.stderr


def test_usage_error() -> None:
    proc = run()
    assert proc.returncode == 2 and "usage" in proc.stderr
