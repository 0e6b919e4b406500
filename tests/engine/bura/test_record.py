"""Bura records (``bura-record/1``) and ``python -m engine replay`` for them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.bura.record import FORMAT, from_record, replay, to_record
from engine.bura.rules import Rules
from engine.cards import DECK
from engine.errors import RecordError
from engine.registry import game_for_record, replay_json
from tests.support.bura import bura_deck, random_series
from tests.support.cli import failure, run


def codes(deck: Any) -> list[str]:
    return [c.code() for c in deck]


def declared_record() -> dict[str, Any]:
    return {
        "format": FORMAT,
        "players": 2,
        "rules": {"molodka": "out_of_turn"},
        "deals": [
            {
                "dealer": 0,
                "deck": codes(bura_deck(2, 0, ["7S 6D AH", "10H 6H KS"], "8C", "QD JD")),
                "moves": [
                    {"seat": 1, "cards": ["10H", "6H"]},
                    {"seat": 0, "cards": ["AH", "7S"], "beat": False},
                    {"seat": 1, "cards": ["KS"]},
                    {"seat": 0, "cards": ["6D"], "beat": False},
                    {"seat": 1, "declare": True},
                ],
            }
        ],
    }


def test_a_false_declaration_has_no_winner_and_4_for_the_declarer() -> None:
    out = replay(declared_record()).to_json()["deals"][0]
    assert out == {
        "outcome": "false_declaration",
        "winner": None,
        "points": [0, 25],
        "stakes": 1,
        "penalties": [0, 4],
        "complete": True,
    }


def test_void_from_the_deal_has_no_moves_and_the_same_dealer_deals_again() -> None:
    void_deck = codes(bura_deck(2, 1, ["AC KC 7C", "8S 9D JS"], "10C"))
    data = declared_record()
    first = data["deals"][0]
    data["deals"] = [{"dealer": 1, "deck": void_deck, "moves": []}, {**first, "dealer": 1}]
    data["deals"][1]["deck"] = codes(bura_deck(2, 1, ["10H 6H KS", "7S 6D AH"], "8C", "QD JD"))
    for move in data["deals"][1]["moves"]:
        move["seat"] = 1 - move["seat"]
    out = replay(data).to_json()
    assert [d["outcome"] for d in out["deals"]] == ["void", "false_declaration"]
    assert out["deals"][0] == {
        "outcome": "void",
        "winner": None,
        "points": [0, 0],
        "stakes": 1,
        "penalties": [0, 0],
        "complete": True,
    }
    data["deals"][1]["dealer"] = 0
    with pytest.raises(RecordError, match=r"deal 1: dealer must be seat 1 \(D1, D9\), not 0"):
        replay(data)


def test_an_unfinished_deal_is_incomplete() -> None:
    data = declared_record()
    data["deals"][0]["moves"] = data["deals"][0]["moves"][:3]
    deal = replay(data).to_json()["deals"][0]
    assert deal["outcome"] == "incomplete" and deal["complete"] is False
    assert deal["winner"] is None and deal["penalties"] is None


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_random_series_round_trip(players: int, seed: int) -> None:
    rules = Rules(
        molodka=("out_of_turn", "off")[seed % 2],
        moscow=("off", "on")[seed // 2],
        series=("penalty_12", "robber_11", "robber_21")[seed % 3],
        dave="on" if players == 2 and seed % 2 else "off",
        discards=("closed", "open")[seed % 2],
        same_rank_leads=("off", "on")[seed // 2],
    )
    series = random_series(players, seed, rules)
    data = json.loads(json.dumps(to_record(series)))
    again = from_record(data)
    assert to_record(again) == data
    assert replay(data) == replay(data)
    assert [d.result() for d in again.deals] == [d.result() for d in series.deals]
    assert again.totals == series.totals


def test_the_registry_tells_games_apart_by_format() -> None:
    assert game_for_record(declared_record()).name == "bura"
    assert game_for_record({"format": "burkozel-record/1"}).name == "burkozel"
    with pytest.raises(RecordError, match="format must be 'burkozel-record/1' or 'bura-record/1'"):
        replay_json({"format": "chess"})


def test_cli_replays_bura(tmp_path: Path) -> None:
    path = tmp_path / "bura.json"
    data = to_record(random_series(3, 7))
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = run("replay", str(path))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out == replay(data).to_json()
    assert set(out["deals"][0]) == {
        "outcome",
        "winner",
        "points",
        "stakes",
        "penalties",
        "complete",
    }


def _change(path: list[Any], value: Any) -> Any:
    def apply(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return apply


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            _change(["deals", 0, "moves", 1, "beat"], True),
            "error: deal 0, move 1: these cards do not beat every claimant card (R7)",
        ),
        (
            _change(["deals", 0, "moves", 0, "stop"], True),
            "error: deal 0, move 0: the rightful leader leads in turn; «Стоп!» is for another seat (D7)",
        ),
        (
            _change(["deals", 0, "moves", 4], {"seat": 0, "declare": True}),
            "error: deal 0, move 4: only seat 1, who took the trick, may declare (D5)",
        ),
        (
            _change(["deals", 0, "moves", 4], {"seat": 1, "dave": True}),
            "error: deal 0, move 4: даве is switched off (D11)",
        ),
        (
            _change(["deals", 0, "moves", 4], {"seat": 1, "show": "bura"}),
            "error: deal 0, move 4: seat 1 does not hold бура, three trumps (D6)",
        ),
        (
            _change(["rules", "target"], "41"),
            "error: record: rule 'target' cannot be '41' (choose '31', '31_50')",
        ),
        (
            _change(["deals", 0, "deck"], codes(DECK)[:35]),
            "error: deal 0: a deck has 36 cards, got 35",
        ),
        (
            _change(["players"], 5),
            "error: record: Bura is for 2 to 4 players",
        ),
    ],
)
def test_cli_errors_name_deal_move_and_reason(change: Any, expected: str, tmp_path: Path) -> None:
    data = declared_record()
    change(data)
    assert failure(data, tmp_path) == expected


def test_burkozel_records_still_replay(tmp_path: Path) -> None:
    from tests.support.cli import record

    data = record()
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = run("replay", str(path))
    assert proc.returncode == 0 and "last_trick" in proc.stdout
