"""Stats and ratings: per-seat results, places, teams, and the stored stats
and openskill ratings after scripted series, checked against values the test computes
itself from the stored records (tallies and seats), not through the code under test.

The storage tests (those taking ``db``, tests/conftest.py) run against both backends."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from stats.ratings import Entrant, Skill, rate
from stats.summary import higher_is_better, places, series_end, teams_of
from storage import Backend, GameChange, Seat, StorageError
from tests.support.stats import CHAT, engine_deals, play_series

ANN, BOB, CAT, DAN = (
    Seat(0, 11, None, "Ann"),
    Seat(1, 12, None, "Bob <b>"),
    Seat(2, 13, None, "Cat"),
    Seat(3, 14, None, "Dan"),
)
HARD = Seat(1, None, "hard", "🤖 Computer 1 (hard)")


class Independent:
    """The expected numbers, from stored tallies and seats only, with openskill called
    directly: ranks are each team's penalty total (lower is better, ties share)."""

    def __init__(self) -> None:
        self.model = PlackettLuce()
        self.ratings: dict[str, tuple[float, float, int]] = {}

    def add(self, seats: Sequence[Seat], penalties: Sequence[Sequence[int]], pairs: bool) -> None:
        totals = [sum(p[s.seat] for p in penalties) for s in seats]
        groups = [[0, 2], [1, 3]] if pairs else [[s.seat] for s in seats]
        keys = [f"u{s.user_id}" if s.user_id else f"ai:{s.bot_level}" for s in seats]
        teams = [
            [
                self.model.create_rating(list(self.ratings.get(keys[i], (25.0, 25 / 3, 0))[:2]))
                for i in g
            ]
            for g in groups
        ]
        ordered = sorted({totals[g[0]] for g in groups})
        ranks = [float(ordered.index(totals[g[0]])) for g in groups]
        rated = self.model.rate(teams, ranks=ranks)
        for g, team in zip(groups, rated, strict=True):
            for i, r in zip(g, team, strict=True):
                series = self.ratings.get(keys[i], (0, 0, 0))[2] + 1
                self.ratings[keys[i]] = (r.mu, r.sigma, series)


async def test_stats_and_ratings_after_two_and_three_player_series_match_an_independent_count(
    db: Backend,
) -> None:
    games = [
        (await play_series(db, (ANN, BOB), engine_deals(2, 1)), (ANN, BOB), False),
        (await play_series(db, (ANN, BOB, CAT), engine_deals(3, 2)), (ANN, BOB, CAT), False),
        (await play_series(db, (BOB, ANN), engine_deals(2, 3)), (BOB, ANN), False),
    ]
    await check_against_stored_records(db, games)


async def test_r14_a_tie_for_the_fewest_penalties_shares_first_place_and_both_win(
    db: Backend,
) -> None:
    seats = (ANN, BOB, CAT)
    # Ann and Bob tie on 4 (R14: both win); Cat reaches 12.
    deals = [((40, 50, 30), (2, 0, 4)), ((50, 40, 30), (0, 2, 4)), ((30, 30, 60), (2, 2, 4))]
    game_id = await play_series(db, seats, deals)
    summary = await db.series_result(game_id)
    assert summary is not None
    assert [(s.place, s.won) for s in summary.seats] == [(0, True), (0, True), (1, False)]
    ratings = {r.player: r for r in await db.ratings(CHAT)}
    assert ratings["u11"].mu == pytest.approx(ratings["u12"].mu)
    assert ratings["u13"].mu < ratings["u11"].mu
    await check_against_stored_records(db, [(game_id, seats, False)])


async def test_b5_pairs_are_rated_as_teams_from_the_rule_set(db: Backend) -> None:
    seats = (ANN, BOB, CAT, DAN)
    # B5: penalties go to the pair and appear on both partners (0+2 vs 1+3).
    deals = [
        ((30, 20, 40, 30), (0, 2, 0, 2)),
        ((10, 50, 20, 40), (4, 0, 4, 0)),
        ((40, 10, 50, 20), (0, 4, 0, 4)),
        ((35, 25, 35, 25), (0, 6, 0, 6)),
    ]
    game_id = await play_series(db, seats, deals, rules={"teams": "pairs"})
    summary = await db.series_result(game_id)
    assert summary is not None
    assert [s.team for s in summary.seats] == [0, 1, 0, 1]
    ratings = {r.player: r for r in await db.ratings(CHAT)}
    # Partners get the same update; the pair with fewer penalties goes up.
    assert ratings["u11"].mu == pytest.approx(ratings["u13"].mu)
    assert ratings["u12"].mu == pytest.approx(ratings["u14"].mu)
    assert ratings["u11"].mu > 25 > ratings["u12"].mu
    await check_against_stored_records(db, [(game_id, seats, True)])


async def test_a_series_with_a_computer_is_kept_apart_in_records_and_not_rated(
    db: Backend,
) -> None:
    """/stats keeps games against computers apart from people's; /top ranks people's
    games only, so a series with a computer player rates nobody."""
    people = await play_series(db, (ANN, BOB), engine_deals(2, 4))
    await play_series(db, (ANN, HARD), engine_deals(2, 5))
    await play_series(db, (ANN, HARD), engine_deals(2, 6), chat=11)  # in Ann's private chat
    ratings = {r.player: r for r in await db.ratings(CHAT)}
    assert set(ratings) == {"u11", "u12"} and ratings["u11"].series == 1
    assert await db.ratings(11) == []
    with_people, with_computers = await db.player_records(11, CHAT)
    assert (with_people.with_computers, with_computers.with_computers) == (False, True)
    assert (with_people.series_played, with_computers.series_played) == (1, 1)
    everywhere = await db.player_records(11, None)
    assert [(r.with_computers, r.series_played) for r in everywhere] == [(False, 1), (True, 2)]
    # Bob played people only; the people's record is the one series with Bob.
    (bob,) = await db.player_records(12, CHAT)
    assert not bob.with_computers
    tallies = await db.tallies(people)
    assert with_people.deals == len(tallies)
    assert with_people.penalties == sum(t.penalties[0] for t in tallies)


async def check_against_stored_records(
    db: Backend, games: Sequence[tuple[int, Sequence[Seat], bool]]
) -> None:
    expected = Independent()
    per_user: dict[int, dict[str, int]] = {}
    for game_id, _, pairs in games:
        game = await db.get_game(game_id)
        assert game is not None and game.status == "finished"
        tallies = await db.tallies(game_id)
        penalties = [t.penalties for t in tallies]
        expected.add(game.seats, penalties, pairs)
        totals = [sum(p[s.seat] for p in penalties) for s in game.seats]
        for seat in game.seats:
            if seat.user_id is None:
                continue
            row = per_user.setdefault(
                seat.user_id,
                dict.fromkeys(("series", "won", "deals", "points", "penalties", "best"), 0),
            )
            row["series"] += 1
            row["won"] += int(seat.seat in (game.winners or ()))
            assert (seat.seat in (game.winners or ())) == (totals[seat.seat] == min(totals))
            row["deals"] += len(tallies)
            row["points"] += sum(t.points[seat.seat] for t in tallies)
            row["penalties"] += totals[seat.seat]
            row["best"] = max(row["best"], *(t.points[seat.seat] for t in tallies))
    for user_id, row in per_user.items():
        (record,) = await db.player_records(user_id, CHAT)
        assert record.game == "burkozel"
        got = (
            record.series_played,
            record.series_won,
            record.deals,
            record.points,
            record.penalties,
            record.best_deal,
        )
        assert got == (
            row["series"],
            row["won"],
            row["deals"],
            row["points"],
            row["penalties"],
            row["best"],
        )
        assert (record.declarations_true, record.declarations_false, record.combinations) == (
            0,
            0,
            0,
        )
    stored = {r.player: r for r in await db.ratings(CHAT)}
    assert set(stored) == set(expected.ratings)
    for player, (mu, sigma, series) in expected.ratings.items():
        assert stored[player].mu == pytest.approx(mu, abs=1e-9)
        assert stored[player].sigma == pytest.approx(sigma, abs=1e-9)
        assert stored[player].series == series
    ordinals = [r.ordinal for r in await db.ratings(CHAT)]
    assert ordinals == sorted(ordinals, reverse=True)


async def test_a_series_is_recorded_and_rated_once_and_only_with_status_finished(
    db: Backend,
) -> None:
    game_id = await play_series(db, (ANN, BOB), engine_deals(2, 8))
    game = await db.get_game(game_id)
    assert game is not None
    end = series_end({}, game.seats, [(60, 60)], [(2, 0)], (1,))
    await db.commit(game_id, game.version, GameChange(status="finished", series_end=end))
    assert all(r.series == 1 for r in await db.ratings(CHAT))
    assert len(await db.recent_series(CHAT)) == 1
    other = await db.create_game(CHAT, None, {}, 11, (ANN, BOB), None)
    with pytest.raises(StorageError, match="finished"):
        await db.commit(other.id, 0, GameChange(series_end=end))
    assert len(await db.recent_series(CHAT)) == 1


async def test_reset_starts_stats_and_ratings_again_but_keeps_the_records(db: Backend) -> None:
    first = await play_series(db, (ANN, BOB), engine_deals(2, 9))
    await play_series(db, (ANN, BOB), engine_deals(2, 10), chat=-200)
    await db.reset_chat_stats(CHAT)
    assert await db.ratings(CHAT) == []
    assert await db.player_records(11, CHAT) == []
    assert await db.chat_stats(CHAT) == []
    assert [s.game_id for s in await db.recent_series(CHAT)] == [first]  # history stays
    assert (await db.export_record(first))["deals"]  # so does the record
    # Another chat is untouched; the DM view (all chats) counts only what still counts.
    assert len(await db.ratings(-200)) == 2
    (everywhere,) = await db.player_records(11, None)
    assert everywhere.series_played == 1
    second = await play_series(db, (ANN, BOB), engine_deals(2, 11))
    (record,) = await db.player_records(11, CHAT)
    assert record.series_played == 1
    assert all(r.series == 1 for r in await db.ratings(CHAT))
    assert [s.game_id for s in await db.recent_series(CHAT)] == [second, first]


async def test_lobby_watchers_toggle_and_are_told_once(db: Backend) -> None:
    assert await db.toggle_lobby_watch(CHAT, 11) is True
    assert await db.toggle_lobby_watch(CHAT, 12) is True
    assert await db.toggle_lobby_watch(CHAT, 12) is False  # a second /notify turns it off
    assert await db.take_lobby_watchers(CHAT) == [11]
    assert await db.take_lobby_watchers(CHAT) == []


async def test_pictures_are_on_until_switched_off_and_follow_a_chat_migration(
    db: Backend,
) -> None:
    assert await db.chat_pictures(CHAT) is True
    await db.set_chat_pictures(CHAT, False)
    assert await db.chat_pictures(CHAT) is False
    game_id = await play_series(db, (ANN, BOB), engine_deals(2, 12))
    await db.toggle_lobby_watch(CHAT, 11)
    await db.migrate_chat(CHAT, -1009)
    assert await db.chat_pictures(-1009) is False
    assert [s.game_id for s in await db.recent_series(-1009)] == [game_id]
    assert len(await db.ratings(-1009)) == 2 and await db.ratings(CHAT) == []
    assert await db.take_lobby_watchers(-1009) == [11]


# --- pure functions --------------------------------------------------------------


def test_places_share_ties_and_put_winners_first() -> None:
    assert places((0, 1, 2), (4, 4, 12), (0, 1), higher=False) == (0, 0, 1)
    assert places((0, 1, 2, 3), (3, 12, 7, 7), (0,), higher=False) == (0, 2, 1, 1)
    assert places((0, 1, 0, 1), (2, 12, 2, 12), (0, 2), higher=False) == (0, 1, 0, 1)
    # B4 credits and Bura robber series: the bigger total is better.
    assert places((0, 1, 2), (12, 4, 8), (0,), higher=True) == (0, 2, 1)
    assert higher_is_better({"scoring": "winner_takes"}) and higher_is_better(
        {"series": "robber_11"}
    )
    assert not higher_is_better({})


def test_teams_come_from_the_rule_set() -> None:
    assert teams_of({"teams": "pairs"}, 4) == (0, 1, 0, 1)  # B5: partners opposite
    assert teams_of({}, 4) == (0, 1, 2, 3)
    assert teams_of({"teams": "pairs"}, 3) == (0, 1, 2)  # B5 needs exactly 4


def test_declarations_and_combinations_are_counted_from_the_moves() -> None:
    seats = (ANN, BOB)
    end = series_end(
        {"game": "bura"},
        seats,
        [(31, 10), (20, 40)],
        [(0, 2), (4, 0)],
        (1,),
        [
            [{"seat": 0, "declare": True}],
            [{"seat": 0, "declare": True}, {"seat": 1, "show": "bura"}],
        ],
    )
    assert end.game == "bura"
    assert (end.seats[0].declarations_true, end.seats[0].declarations_false) == (1, 1)
    assert end.seats[1].combinations == 1


@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=4),
    st.lists(st.integers(0, 30), min_size=4, max_size=4),
)
def test_rating_moves_the_best_up_and_the_worst_down(
    place_list: list[int], start: list[int]
) -> None:
    if len(set(place_list)) < 2:
        return
    entrants = [Entrant(f"p{i}", i, p) for i, p in enumerate(place_list)]
    current = {f"p{i}": Skill(mu=20 + start[i] / 3) for i in range(len(place_list))}
    new = rate(entrants, current)
    best, worst = min(place_list), max(place_list)
    for i, p in enumerate(place_list):
        after, before = new[f"p{i}"], current[f"p{i}"]
        assert after.series == 1 and after.sigma < before.sigma
        # Only a sole winner or loser moves for sure: a strong player who merely ties
        # with weaker ones for first (or last) did worse (better) than expected.
        if p == best and place_list.count(best) == 1:
            assert after.mu > before.mu
        if p == worst and place_list.count(worst) == 1:
            assert after.mu < before.mu


async def test_a_rating_failure_still_finishes_and_records_the_series(
    db: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stats.ratings

    def broken(*_: object) -> None:
        raise ValueError("boom")

    monkeypatch.setattr(stats.ratings, "rate", broken)
    game_id = await play_series(db, (ANN, BOB), engine_deals(2, 13))
    game = await db.get_game(game_id)
    assert game is not None and game.status == "finished"
    assert await db.series_result(game_id) is not None
    assert await db.ratings(CHAT) == []


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4), st.integers(0, 10_000))
def test_r14_random_series_summaries_add_up_and_place_the_winners_first(
    players: int, seed: int
) -> None:
    deals = engine_deals(players, seed)
    seats = [Seat(i, 100 + i, None, f"P{i}") for i in range(players)]
    totals = [sum(d[1][s] for d in deals) for s in range(players)]
    winners = tuple(s for s, t in enumerate(totals) if t == min(totals))
    end = series_end({}, seats, [d[0] for d in deals], [d[1] for d in deals], winners)
    assert end.deals == len(deals)
    for r in end.seats:
        assert r.penalties == totals[r.seat]
        assert r.points == sum(d[0][r.seat] for d in deals)
        assert r.best_deal == max(d[0][r.seat] for d in deals)
        assert r.won == (r.seat in winners) == (r.place == 0)
        # A place is one more than the number of distinct better totals (dense ranking).
        assert r.place == len({t for t in totals if t < totals[r.seat]})
    assert sum(r.points for r in end.seats) == 120 * len(deals)  # R12
