"""Game records (burkozel-record/1): writing, replaying, and refusing bad records."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from engine import DECK, RecordError
from engine.burkozel import FORMAT, Series, from_record, replay, report, to_record
from tests.support.burkozel import random_series


def finished_record(players: int = 3, seed: int = 2) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(json.dumps(to_record(random_series(players, seed))))
    assert len(record["deals"]) >= 2
    return record


def test_record_shape() -> None:
    series = random_series(3, seed=2, deals=2)
    record = to_record(series)
    assert record["format"] == FORMAT == "burkozel-record/1"
    assert record["players"] == 3 and record["rules"] == {}
    for deal, data in zip(series.deals, record["deals"], strict=True):
        assert data["dealer"] == deal.dealer
        assert data["deck"] == [c.code() for c in deal.deck] and len(data["deck"]) == 36
        assert data["moves"][0] == {
            "seat": (deal.dealer + 1) % 3,
            "cards": [c.code() for c in deal.history[0].cards],
        }
        answers = data["moves"][1:3]
        assert all(type(m["beat"]) is bool for m in answers)
    json.dumps(record)  # plain JSON


def test_replay_report_of_a_finished_series() -> None:
    series = random_series(4, seed=3)
    result = replay(to_record(series)).to_json()
    assert result["finished"] is True
    assert result["totals"] == list(series.totals)
    assert result["winners"] == list(series.result().winners)
    assert len(result["deals"]) == len(series.deals)
    for data, res in zip(result["deals"], series.results, strict=True):
        assert data == {
            "points": list(res.points),
            "penalties": list(res.penalties),
            "last_trick": res.last_trick,
            "complete": True,
        }


def test_incomplete_deal_reports_points_so_far() -> None:
    record = finished_record()
    record["deals"] = record["deals"][:2]
    record["deals"][1]["moves"] = record["deals"][1]["moves"][:7]
    result = replay(record).to_json()
    last = result["deals"][1]
    assert last["penalties"] is None and last["complete"] is False
    assert sum(last["points"]) < 120
    assert result["finished"] is False and result["winners"] == []
    assert result["deals"][0]["complete"] is True
    # points so far are those of the tricks taken in the first 7 moves
    series = from_record(record)
    assert last["points"] == series.deals[1].points


def test_incomplete_deal_with_no_moves() -> None:
    record = finished_record()
    record["deals"] = record["deals"][:1]
    record["deals"][0]["moves"] = []
    last = replay(record).to_json()["deals"][0]
    assert last == {"points": [0, 0, 0], "penalties": None, "last_trick": None, "complete": False}


def test_later_deal_may_omit_dealer() -> None:
    record = finished_record()
    for data in record["deals"][1:]:
        del data["dealer"]
    assert replay(record) == replay(finished_record())


def test_empty_series_record() -> None:
    record = to_record(Series(2))
    assert record["deals"] == []
    assert replay(record).to_json() == {
        "deals": [],
        "totals": [0, 0],
        "finished": False,
        "winners": [],
    }


def refused(record: object) -> RecordError:
    with pytest.raises(RecordError) as info:
        from_record(record)
    return info.value


def test_missing_dealer_on_first_deal() -> None:
    record = finished_record()
    del record["deals"][0]["dealer"]
    err = refused(record)
    assert (err.deal, err.move) == (0, None)
    assert str(err) == "deal 0: the first deal needs a dealer"


def test_dealer_contradicting_r4() -> None:
    record = finished_record()
    expected = record["deals"][1]["dealer"]
    record["deals"][1]["dealer"] = (expected + 1) % 3
    err = refused(record)
    assert (err.deal, err.move) == (1, None)
    assert f"dealer must be seat {expected} (R4)" in str(err)


def test_answer_without_beat() -> None:
    record = finished_record()
    del record["deals"][1]["moves"][2]["beat"]
    err = refused(record)
    assert (err.deal, err.move) == (1, 2)
    assert str(err).startswith("deal 1, move 2: ")
    assert "declared a beat or a discard" in str(err)


def test_lead_with_beat() -> None:
    record = finished_record()
    record["deals"][0]["moves"][3]["beat"] = True
    err = refused(record)
    assert (err.deal, err.move) == (0, 3)
    assert "a lead is neither a beat nor a discard" in str(err)


def test_bad_card_code_in_a_move() -> None:
    record = finished_record()
    record["deals"][1]["moves"][4]["cards"][0] = "11H"
    err = refused(record)
    assert (err.deal, err.move) == (1, 4)
    assert "bad card code '11H'" in str(err)


def test_bad_card_code_in_the_deck() -> None:
    record = finished_record()
    record["deals"][0]["deck"][5] = "ZZ"
    err = refused(record)
    assert (err.deal, err.move) == (0, None)
    assert "bad card code 'ZZ'" in str(err)


def test_short_deck() -> None:
    record = finished_record()
    record["deals"][0]["deck"].pop()
    assert "36 cards, got 35" in str(refused(record))


def test_illegal_move() -> None:
    record = finished_record()
    moves = record["deals"][0]["moves"]
    moves[1]["seat"] = moves[0]["seat"]  # seat plays twice in a row
    err = refused(record)
    assert (err.deal, err.move) == (0, 1)
    assert "turn" in str(err)


def test_card_not_held() -> None:
    record = finished_record()
    deal = record["deals"][0]
    moves = deal["moves"]
    held = set(deal["deck"][:12])
    foreign = next(c for c in deal["deck"][13:] if c not in held)
    moves[0]["cards"] = [foreign]
    err = refused(record)
    assert (err.deal, err.move) == (0, 0)
    assert f"does not hold {foreign}" in str(err)


def test_moves_after_the_deal_ended() -> None:
    record = finished_record()
    extra = copy.deepcopy(record["deals"][0]["moves"][-1])
    record["deals"][0]["moves"].append(extra)
    n = len(record["deals"][0]["moves"]) - 1
    err = refused(record)
    assert (err.deal, err.move) == (0, n)
    assert "already over" in str(err)


def test_deal_after_an_unfinished_deal() -> None:
    record = finished_record()
    record["deals"][0]["moves"].pop()
    err = refused(record)
    assert (err.deal, err.move) == (1, None)
    assert "previous deal is not finished" in str(err)


def test_deal_after_the_series_finished() -> None:
    record = finished_record()
    record["deals"].append({"deck": [c.code() for c in DECK], "moves": []})
    err = refused(record)
    assert err.deal == len(record["deals"]) - 1 and err.move is None
    assert "series was already over" in str(err)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.update(format="burkozel-record/2"), "format must be 'burkozel-record/1'"),
        (lambda r: r.update(players=5), "2 to 4 players"),
        (lambda r: r.update(players="3"), "players must be a whole number"),
        (lambda r: r.update(deals={}), "deals must be a list"),
        (lambda r: r.update(rules={"teams": "pairs"}), "teams 'pairs' needs exactly 4 players"),
        (lambda r: r.update(rules={"discards": "shut"}), "rule 'discards' cannot be 'shut'"),
        (lambda r: r.update(rules={"colour": "red"}), "unknown rule switch 'colour'"),
        (lambda r: r["deals"][0].update(moves=None), "moves must be a list"),
        (lambda r: r["deals"][0].update(dealer="1"), "dealer must be a whole number"),
        (lambda r: r["deals"][1].update(deck="AS"), "deck must be a list of card codes"),
        (lambda r: r["deals"][0]["moves"].__setitem__(0, [1]), "a move must be an object"),
        (lambda r: r["deals"][0]["moves"][0].update(cards=[]), "non-empty list"),
        (lambda r: r["deals"][0]["moves"][0].update(seat=None), "seat must be a whole number"),
        (lambda r: r["deals"][0]["moves"][1].update(beat="yes"), "beat must be true or false"),
        (lambda r: r["deals"][0]["moves"][0].update(note="x"), "unknown move key 'note'"),
    ],
)
def test_malformed_records(change: Any, message: str) -> None:
    record = finished_record()
    change(record)
    assert message in str(refused(record))


def test_record_must_be_an_object() -> None:
    assert str(refused([])) == "record: a record must be a JSON object"


def test_replay_equals_report_for_several_series() -> None:
    for players in (2, 3, 4):
        for seed in range(3):
            series = random_series(players, seed)
            record = json.loads(json.dumps(to_record(series)))
            assert replay(record) == report(series)
            assert to_record(from_record(record)) == record


def test_deal_must_be_an_object() -> None:
    record = finished_record()
    record["deals"][0] = 5
    err = refused(record)
    assert str(err) == "deal 0: a deal must be an object"
    record = finished_record()
    record["deals"][1] = []
    assert str(refused(record)) == "deal 1: a deal must be an object"
