"""Records and replay with Part B/C switches: new move kinds, outcome, eliminated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import RecordError
from engine.burkozel import Action, Rules, from_record, replay, report, to_record
from tests.support.burkozel import after_first_trick, shown_series
from tests.support.cli import run


def record_with(moves_extra: list[dict[str, Any]]) -> dict[str, Any]:
    """A two-player record at the second trick (seat 1 holds бура), plus ``moves_extra``."""
    rules = Rules(combinations="on")
    deal = after_first_trick([["7S", "8D", "9D", "9H"], ["AC", "KC", "QC", "JC"]], "6C", rules)
    record = {
        "format": "burkozel-record/1",
        "players": 2,
        "rules": {"combinations": "on"},
        "deals": [
            {
                "dealer": 1,
                "deck": [c.code() for c in deal.deck],
                "moves": [m.to_json() for m in deal.history] + moves_extra,
            }
        ],
    }
    return json.loads(json.dumps(record))


def test_show_move_in_a_record_replays_with_outcome() -> None:
    record = record_with([{"seat": 0, "cards": ["7S"]}, {"seat": 1, "show": "bura"}])
    out = replay(record).to_json()
    assert out["deals"][0]["outcome"] == "bura"
    assert out["deals"][0]["penalties"] == [4, 0] and out["deals"][0]["complete"] is True
    assert out["deals"][0]["last_trick"] == 0 and out["totals"] == [4, 0]
    assert out["deals"][0]["shown_by"] == 1  # whose combination won (C1)
    series = from_record(record)
    assert to_record(series) == record
    assert series.deals[0].history[-1] == Action(1, (), show="bura")


def test_replay_names_the_seat_whose_moscow_beat_the_shown_bura() -> None:
    """The record's move says who showed (seat 1's бура); the replay
    says whose combination won the deal (seat 2's Москва, C2), and only where one did."""
    moscow = ["AS", "AD", "AH", "AC"]
    record = to_record(shown_series([["7S", "8D", "9D", "9H"], ["KC", "QC", "JC", "10C"], moscow]))
    assert record["deals"][0]["moves"][-1] == {"seat": 1, "show": "bura"}
    out = replay(json.loads(json.dumps(record))).to_json()
    assert (out["deals"][0]["outcome"], out["deals"][0]["shown_by"]) == ("moscow", 2)
    assert "shown_by" not in replay(record_with([])).to_json()["deals"][0]


def test_incomplete_deal_outcome() -> None:
    out = replay(record_with([])).to_json()
    assert out["deals"][0]["outcome"] == "incomplete" and out["deals"][0]["penalties"] is None


def test_played_outcome_and_base_output_unchanged() -> None:
    record = record_with([{"seat": 0, "cards": ["7S"]}, {"seat": 1, "cards": ["AC"], "beat": True}])
    series = from_record(record)
    while series.current is not None:
        series.apply(series.current.legal_actions()[0])
    assert report(series).to_json()["deals"][0]["outcome"] in ("played", "bura", "moscow")
    record["rules"] = {}
    del record["deals"][0]["moves"][2:]
    base = replay(record).to_json()["deals"][0]
    assert set(base) == {"points", "penalties", "last_trick", "complete"}


def test_stop_move_round_trips() -> None:
    rules = Rules(combinations="on")
    deal = after_first_trick([["7S", "8D", "9D", "9H"], ["6H", "7H", "10H", "AH"]], "6C", rules)
    stop = Action(1, deal.hand(1), stop=True)
    assert Action.from_json(stop.to_json()) == stop
    assert stop.to_json()["stop"] is True


@pytest.mark.parametrize(
    "extra, message",
    [
        ([{"seat": 1, "show": "bura"}], "holder's turn"),
        ([{"seat": 0, "cards": ["7S"]}, {"seat": 1, "show": "moscow"}], "does not hold Москва"),
        ([{"seat": 0, "cards": ["7S"]}, {"seat": 1, "show": "royal"}], "a show is"),
        ([{"seat": 0, "cards": ["7S"]}, {"seat": 1, "show": "bura", "cards": ["AC"]}], "a show is"),
        ([{"seat": 0, "cards": ["7S"], "stop": True}], "rightful leader's own lead"),
        ([{"seat": 0, "cards": ["7S"], "stop": "yes"}], "stop must be true or false"),
    ],
)
def test_bad_combination_moves_are_refused(extra: list[dict[str, Any]], message: str) -> None:
    record = record_with(extra)
    with pytest.raises(RecordError, match=message) as info:
        replay(record)
    assert info.value.deal == 0 and info.value.move == 1 + len(extra)


@pytest.mark.parametrize(
    "rules, message",
    [
        ({"colour": "red"}, "unknown rule switch 'colour'"),
        ({"max_lead": 5}, "rule 'max_lead' cannot be 5"),
        ({"series_end": "elimination", "scoring": "winner_takes"}, "needs scoring 'penalty'"),
        ({"teams": "pairs"}, "teams 'pairs' needs exactly 4 players"),
    ],
)
def test_cli_unknown_or_impossible_switch_exits_2(
    rules: dict[str, Any], message: str, tmp_path: Path
) -> None:
    record = record_with([])
    record["rules"] = rules
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    proc = run("replay", str(path))
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_cli_prints_outcome(tmp_path: Path) -> None:
    record = record_with([{"seat": 0, "cards": ["7S"]}, {"seat": 1, "show": "bura"}])
    proc = run("replay", "-", stdin=json.dumps(record))
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["deals"][0]["outcome"] == "bura"


def test_cli_play_refuses_impossible_rules() -> None:
    proc = run("play", "--players", "3", "--rules", "teams=pairs")
    assert proc.returncode == 2
    assert "teams 'pairs' needs exactly 4 players, not 3 (B5)" in proc.stderr


def test_cli_play_with_house_rules_quits_cleanly() -> None:
    proc = run(
        "play", "--players", "4", "--level", "easy", "--seed", "5",
        "--rules", "teams=pairs", "combinations=on", "discards=closed",
        stdin="1\n1\nq\n",
    )  # fmt: skip
    assert proc.returncode == 0 and "Game left before the end" in proc.stdout
