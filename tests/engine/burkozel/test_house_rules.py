"""Part B house rules (B1-B5), named by rule id."""

from __future__ import annotations

import json
import random

import pytest

from engine import DECK, IllegalMoveError, parse_cards
from engine.burkozel import (
    Action,
    Deal,
    DealResult,
    Rules,
    Series,
    penalties_for,
    replay,
    report,
    to_record,
)
from engine.burkozel.scoring import score_deal
from tests.support.burkozel import (
    after_first_trick,
    all_legal,
    assert_views_private,
    build_deck,
    move,
    random_series,
)

CLOSED = Rules(discards="closed")


# --- B1 closed discards ------------------------------------------------------


def test_b1_closed_discard_seen_only_by_its_owner_until_the_deal_is_scored() -> None:
    deck = build_deck(
        3, 2, [["7S", "8S", "9S", "6D"], ["KD", "QD", "JH", "10H"], ["AS", "7H", "8H", "9H"]], "6C"
    )
    deal = Deal.start(3, deck, 2, CLOSED)
    deal.apply(move(0, "7S"))
    deal.apply(move(1, "KD", False))  # face down
    owner, other = deal.view(1), deal.view(2)
    assert owner.table[1].cards == parse_cards(["KD"])
    assert other.table[1].cards == () and other.table[1].face_down == 1
    assert parse_cards(["KD"])[0] not in other.seen_cards
    assert other.points is None
    deal.apply(move(2, "AS", True))
    leader = deal.view(0)
    assert leader.last_trick is not None
    assert leader.last_trick.plays[1].cards == () and leader.last_trick.points == 11
    assert deal.view(1).last_trick.plays[1].cards == parse_cards(["KD"])  # type: ignore[union-attr]
    assert leader.known_points == (0, 0, 11) and deal.points == [0, 0, 15]
    assert_views_private(deal)
    group = deal.public_view()  # the group's table: nobody's closed discard, no hand
    assert group.hand == () and group.last_trick is not None
    assert group.last_trick.plays[1].cards == () and group.last_trick.plays[1].face_down == 1
    assert parse_cards(["KD"])[0] not in group.seen_cards and group.points is None
    rng = random.Random(1)
    while not deal.finished:
        deal.apply(rng.choice(deal.legal_actions()))
    end = deal.view(0)  # scored: every trick is shown
    assert end.points == tuple(deal.points) and sum(end.known_points) == 120
    assert parse_cards(["KD"])[0] in end.seen_cards


def test_b1_open_discards_are_seen_by_all_r8() -> None:
    deck = build_deck(2, 1, [["7S", "8S", "9S", "6D"], ["KD", "QD", "JH", "10H"]], "6C")
    deal = Deal.start(2, deck, 1)
    deal.apply(move(0, "7S"))
    deal.apply(move(1, "KD", False))
    assert deal.view(0).last_trick.plays[1].cards == parse_cards(["KD"])  # type: ignore[union-attr]


# --- B2 max lead 4 -------------------------------------------------------------

FOUR = Rules(max_lead=4)


def test_b2_no_lead_of_four_in_the_first_trick() -> None:
    deck = build_deck(2, 1, [["6H", "7H", "8H", "9H"], ["KD", "QD", "JS", "10S"]], "6C")
    deal = Deal.start(2, deck, 1, FOUR)
    assert max(len(m.cards) for m in deal.legal_actions()) == 3
    with pytest.raises(IllegalMoveError, match="at most 3 cards from the second trick"):
        deal.apply(move(0, "6H 7H 8H 9H"))


def test_b2_lead_of_four_from_the_second_trick_answered_with_four() -> None:
    deal = after_first_trick([["6H", "7H", "8H", "9H"], ["KD", "QD", "JS", "10S"]], "6C", FOUR)
    four = move(0, "6H 7H 8H 9H")
    assert four in deal.legal_actions()
    deal.apply(four)
    assert {len(m.cards) for m in deal.legal_actions()} == {4}
    with pytest.raises(IllegalMoveError, match="exactly 4"):
        deal.apply(move(1, "KD", False))


def test_b2_four_must_be_one_suit_and_base_stays_three() -> None:
    deal = after_first_trick([["6H", "7H", "8H", "9S"], ["KD", "QD", "JS", "10S"]], "6C", FOUR)
    with pytest.raises(IllegalMoveError, match="one suit"):
        deal.apply(move(0, "6H 7H 8H 9S"))
    base = after_first_trick([["6H", "7H", "8H", "9H"], ["KD", "QD", "JS", "10S"]], "6C", Rules())
    with pytest.raises(IllegalMoveError, match="at most 3 cards"):
        base.apply(move(0, "6H 7H 8H 9H"))


# --- B3 elimination --------------------------------------------------------------

ELIM = Rules(series_end="elimination")


def test_b3_dealing_and_turns_skip_seats_that_are_out() -> None:
    series = Series(4, ELIM, first_dealer=3)
    series.results.append(DealResult((0, 0, 0, 0), (0, 12, 0, 0), 1))
    assert series.seats_in() == (0, 2, 3) and not series.finished
    # The taker (seat 1) is out: seat 2 leads, the dealer is seat 0 (seat 1 skipped).
    assert series.next_dealer() == 0
    deal = series.start_deal(tuple(random.Random(3).sample(DECK, 36)))
    assert deal.dealer == 0 and deal.leader == 2 and deal.turn == 2
    assert deal.hand_sizes() == (4, 0, 4, 4) and deal.stock_size == 36 - 12
    with pytest.raises(IllegalMoveError, match="not playing"):
        deal.apply(Action(1, (DECK[0],)))
    rng = random.Random(5)
    while not deal.finished:
        assert deal.turn != 1
        series.apply(rng.choice(deal.legal_actions()))
    result = deal.result()
    assert result.points[1] == 0 and result.penalties[1] == 0 and sum(result.points) == 120
    # three still in: the threshold is 21 (R13 for three)
    expected = penalties_for([result.points[s] for s in (0, 2, 3)])
    assert tuple(result.penalties[s] for s in (0, 2, 3)) == expected


def test_b3_threshold_of_the_number_still_in() -> None:
    pens, _ = score_deal((95, 0, 0, 25), ELIM, (0, 3))
    assert pens == (0, 0, 0, 4)  # two still in: 25 is below 31
    pens, _ = score_deal((95, 0, 0, 25), Rules(), (0, 1, 2, 3))
    assert pens == (0, 6, 6, 2)


def test_b3_several_drop_out_at_once_and_the_last_one_wins() -> None:
    series = Series(3, ELIM)
    series.results.append(DealResult((0, 0, 0), (0, 12, 14), 2))
    assert series.finished and series.result().winners == (0,)
    assert series.eliminated_after(0) == (1, 2)


def test_b3_elimination_in_the_middle_of_a_four_player_series_down_to_the_last() -> None:
    for seed in range(40):
        series = random_series(4, seed, rules=ELIM)
        sizes = [len(d.seats_in) for d in series.deals]
        if 3 in sizes and 2 in sizes:
            break
    else:
        raise AssertionError("no seed gave 4 -> 3 -> 2 seats")
    assert series.finished and len(series.seats_in()) == 1
    assert series.result().winners == series.seats_in()
    dropped: set[int] = set()
    for d, deal in enumerate(series.deals):
        assert set(deal.seats_in).isdisjoint(dropped)
        assert all(not deal.hand(s) and deal.points[s] == 0 for s in dropped)
        dropped |= set(series.eliminated_after(d))
    assert dropped == set(range(4)) - set(series.seats_in())
    out = replay(json.loads(json.dumps(to_record(series))))
    assert [tuple(d.eliminated or ()) for d in out.deals] == [
        series.eliminated_after(d) for d in range(len(series.deals))
    ]
    assert sum(len(d.eliminated or ()) for d in out.deals) == 3


# --- B4 winner takes -------------------------------------------------------------

TAKES = Rules(scoring="winner_takes")


@pytest.mark.parametrize(
    "points, credits",
    [
        ((80, 40), (2, 0)),
        ((95, 25), (4, 0)),
        ((120, 0), (6, 0)),
        ((60, 60), (0, 0)),
        ((30, 80, 10), (0, 6, 0)),
        ((50, 50, 20), (0, 0, 0)),
    ],
)
def test_b4_winner_credited_per_loser(points: tuple[int, ...], credits: tuple[int, ...]) -> None:
    assert score_deal(points, TAKES, range(len(points)))[0] == credits


def test_b4_credits_doubled_after_a_tie_never_more() -> None:
    series = Series(2, TAKES)
    assert series.next_stakes() == 1
    series.results.append(DealResult((60, 60), (0, 0), 0, tied=True))
    assert series.next_stakes() == 2
    series.results.append(DealResult((60, 60), (0, 0), 0, tied=True))
    assert series.next_stakes() == 2  # x2, never x4
    deal = series.start_deal(tuple(random.Random(2).sample(DECK, 36)))
    assert deal.stakes == 2
    rng = random.Random(2)
    while not deal.finished:
        series.apply(rng.choice(deal.legal_actions()))
    result = deal.result()
    single, tied = score_deal(result.points, TAKES, (0, 1))
    assert not tied and result.penalties == tuple(2 * c for c in single) and max(single) > 0
    assert series.next_stakes() == 1


def test_b4_doubled_deal_from_a_real_tie() -> None:
    points, tied = score_deal((60, 60), TAKES, (0, 1), stakes=1)
    assert points == (0, 0) and tied
    assert score_deal((80, 40), TAKES, (0, 1), stakes=2)[0] == (4, 0)


def test_b4_first_to_12_credited_wins() -> None:
    series = Series(3, TAKES)
    series.results += [DealResult((0,) * 3, (6, 0, 0), 0), DealResult((0,) * 3, (0, 4, 0), 0)]
    assert not series.finished
    series.results.append(DealResult((0,) * 3, (6, 0, 0), 0))
    assert series.result() == series.result().__class__((12, 4, 0), True, (0,))


def test_b4_series_played_to_the_end() -> None:
    series = random_series(3, 7, rules=TAKES)
    result = series.result()
    assert result.finished and max(result.totals) >= 12
    assert result.winners == tuple(
        s for s, t in enumerate(result.totals) if t == max(result.totals)
    )
    for r in series.results:  # a deal credits at most one seat
        assert sum(1 for c in r.penalties if c) <= 1


# --- B5 pairs ----------------------------------------------------------------------

PAIRS = Rules(teams="pairs")


def test_b5_partners_pool_scores_with_two_player_thresholds() -> None:
    # pair 0+2 has 80, pair 1+3 has 40: 40 >= 31 gives 2 to each of seats 1 and 3
    assert score_deal((50, 20, 30, 20), PAIRS, range(4)) == ((0, 2, 0, 2), False)
    # pair 1+3 with 25 pays 4 (below 31, though 25 would reach 21)
    assert score_deal((50, 5, 45, 20), PAIRS, range(4))[0] == (0, 4, 0, 4)
    assert score_deal((0, 60, 0, 60), PAIRS, range(4))[0] == (6, 0, 6, 0)
    assert score_deal((30, 30, 30, 30), PAIRS, range(4)) == ((0, 0, 0, 0), True)
    both = Rules(teams="pairs", scoring="winner_takes")
    assert score_deal((50, 20, 30, 20), both, range(4))[0] == (2, 0, 2, 0)


def test_b5_pairs_series_partners_totals_move_together() -> None:
    series = random_series(4, 11, rules=PAIRS)
    result = series.result()
    assert result.finished
    for r in series.results:
        assert r.penalties[0] == r.penalties[2] and r.penalties[1] == r.penalties[3]
        pooled = penalties_for([r.points[0] + r.points[2], r.points[1] + r.points[3]])
        assert (r.penalties[0], r.penalties[1]) == pooled
    assert result.winners in ((0, 2), (1, 3), (0, 1, 2, 3))
    assert report(series).deals[0].outcome is None  # B6 off: no outcome field


def test_b5_reports_each_seats_own_points() -> None:
    series = random_series(4, 12, deals=1, rules=PAIRS)
    out = replay(json.loads(json.dumps(to_record(series))))
    assert out.deals[0].points == tuple(series.deals[0].points)
    assert sum(out.deals[0].points) == 120


def test_b5_and_b6_and_b1_and_b2_together() -> None:
    rules = Rules(teams="pairs", combinations="on", discards="closed", max_lead=4)
    series = random_series(4, 3, rules=rules)
    assert series.finished
    out = replay(json.loads(json.dumps(to_record(series))))
    assert out == report(series)
    assert {d.outcome for d in out.deals} <= {"played", "bura", "moscow"}


def test_every_move_offered_is_for_a_seat_that_may_act() -> None:
    deal = after_first_trick(
        [["7S", "8D", "9D", "9H"], ["6H", "7H", "10H", "AH"]], "6C", Rules(combinations="on")
    )
    assert {m.seat for m in all_legal(deal)} == {0, 1}


def test_b3_dealer_is_the_seat_still_in_before_the_leader() -> None:
    series = Series(4, ELIM, first_dealer=2)
    series.results.append(DealResult((0, 0, 0, 0), (12, 0, 0, 0), 1))
    # Seat 1 took the last trick and leads; seat 0 before it is out, so seat 3 deals.
    assert series.next_dealer() == 3
    deal = series.start_deal(tuple(random.Random(4).sample(DECK, 36)))
    assert (deal.dealer, deal.leader, deal.seats_in) == (3, 1, (1, 2, 3))
    with pytest.raises(IllegalMoveError, match=r"dealer must be seat 3 \(R4\)"):
        series.deals.pop()
        series.start_deal(DECK, dealer=0)


def test_b4_most_credits_win_and_ties_share() -> None:
    # One deal credits one side, so a shared top is the B5 pair's.
    series = Series(4, Rules(scoring="winner_takes", teams="pairs"))
    series.results += [
        DealResult((0,) * 4, (0, 8, 0, 8), 0),
        DealResult((0,) * 4, (12, 0, 12, 0), 0),
    ]
    assert series.finished and series.result().winners == (0, 2)
