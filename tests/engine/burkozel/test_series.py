"""A series: R4 dealer and leader in later deals, R13 tallies, R14 end and shared wins."""

from __future__ import annotations

import pytest

from engine import DECK, GameOverError, IllegalMoveError
from engine.burkozel import DealResult, Series
from tests.support.burkozel import random_series


def test_r4_later_deal_leader_took_last_trick_dealer_before() -> None:
    for players in (2, 3, 4):
        series = random_series(players, seed=players, deals=1)
        taker = series.results[-1].last_trick
        assert series.deals[0].last_trick is not None
        assert series.deals[0].last_trick.winner == taker
        assert series.next_dealer() == (taker - 1) % players
        deal = series.start_deal(DECK)
        assert deal.dealer == (taker - 1) % players
        assert deal.turn == deal.leader == taker


def test_r4_first_deal_dealer_given() -> None:
    series = Series(3, first_dealer=2)
    assert series.next_dealer() == 2
    assert series.start_deal(DECK).turn == 0


def test_r4_dealer_contradicting_r4_is_an_error() -> None:
    series = random_series(3, seed=1, deals=1)
    expected = series.next_dealer()
    wrong = (expected + 1) % 3
    with pytest.raises(
        IllegalMoveError, match=rf"dealer must be seat {expected} \(R4\), not {wrong}"
    ):
        series.start_deal(DECK, wrong)
    assert len(series.deals) == 1 and series.current is None
    assert series.start_deal(DECK, expected).dealer == expected


def test_first_deal_dealer_must_match_series() -> None:
    with pytest.raises(IllegalMoveError, match="dealer must be seat 1"):
        Series(2, first_dealer=1).start_deal(DECK, 0)


def test_cannot_start_a_deal_while_one_is_played() -> None:
    series = Series(2)
    series.start_deal(DECK)
    with pytest.raises(GameOverError, match="current deal is not finished"):
        series.start_deal(DECK)


def test_apply_without_a_deal_is_an_error() -> None:
    with pytest.raises(GameOverError, match="no deal is being played"):
        Series(2).apply(Series(2).start_deal(DECK).legal_actions()[0])


def test_bad_series() -> None:
    with pytest.raises(IllegalMoveError, match="2 to 4 players"):
        Series(1)
    with pytest.raises(IllegalMoveError, match="dealer must be a seat"):
        Series(2, first_dealer=2)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_r14_series_ends_after_the_deal_reaching_12(players: int, seed: int) -> None:
    series = random_series(players, seed)
    assert series.finished
    totals = [0] * players
    for i, result in enumerate(series.results):
        assert result.points == tuple(series.deals[i].points)
        totals = [t + p for t, p in zip(totals, result.penalties, strict=True)]
        last = i == len(series.results) - 1
        assert (max(totals) >= 12) is last  # ends as soon as someone has 12 or more
    final = series.result()
    assert final.totals == tuple(totals) and final.finished
    assert final.winners == tuple(s for s in range(players) if totals[s] == min(totals))
    with pytest.raises(GameOverError, match="the series is over"):
        series.start_deal(DECK)


def with_results(players: int, penalties: list[tuple[int, ...]]) -> Series:
    series = Series(players)
    for p in penalties:
        series.results.append(DealResult((0,) * players, p, 0))
    return series


def test_r14_not_finished_below_12() -> None:
    result = with_results(2, [(0, 4), (0, 4), (2, 0), (0, 2)]).result()
    assert result.totals == (2, 10) and not result.finished and result.winners == ()


def test_r14_exactly_12_ends() -> None:
    result = with_results(2, [(0, 6), (0, 6)]).result()
    assert result.totals == (0, 12) and result.finished and result.winners == (0,)


def test_r14_shared_win() -> None:
    result = with_results(3, [(0, 0, 6), (0, 0, 6), (2, 2, 0)]).result()
    assert result.totals == (2, 2, 12) and result.finished and result.winners == (0, 1)
    result = with_results(4, [(0, 6, 0, 6), (2, 6, 2, 4)]).result()
    assert result.totals == (2, 12, 2, 10) and result.winners == (0, 2)


def test_r14_fewest_wins_even_past_12() -> None:
    result = with_results(3, [(0, 6, 4), (4, 0, 6), (2, 0, 4)]).result()
    assert result.totals == (6, 6, 14) and result.winners == (0, 1)


def test_r13_penalties_accumulate_in_play() -> None:
    series = random_series(4, seed=9, deals=3)
    assert series.totals == tuple(sum(r.penalties[s] for r in series.results) for s in range(4))
    assert all(sum(r.points) == 120 for r in series.results)
    assert random_series(4, seed=9, deals=3).results == series.results
