"""One deal: R3 dealing, R4 first lead, R5-R7 beating and claimants, R9-R12, views, errors."""

from __future__ import annotations

import random

import pytest

from engine import DECK, Card, GameOverError, IllegalMoveError, Suit
from engine.burkozel import Action, Deal, penalties_for
from engine.tricks import covers
from tests.support.burkozel import (
    assert_views_private,
    build_deck,
    cards_in_play,
    move,
    random_deal,
)

C = Card.parse


def cs(codes: str) -> set[Card]:
    return {C(x) for x in codes.split()}


def snapshot(deal: Deal) -> object:
    return (
        tuple(deal.view(s) for s in range(deal.players)),
        tuple(deal.hand(s) for s in range(deal.players)),
        tuple(deal._stock),
        tuple(deal.points),
        tuple(tuple(w) for w in deal.won_cards),
        tuple(deal.history),
        deal.turn,
        deal.claimant,
        deal.legal_actions(),
    )


def two_player_example() -> Deal:
    """R7 worked example: clubs trump, seat 0 leads."""
    deck = build_deck(2, 1, [["10H", "KH", "7S", "8S"], ["AH", "QH", "6C", "9D"]], "JC")
    return Deal.start(2, deck, dealer=1)


# --- R3 dealing ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("dealer", [0, 1, 3])
def test_r3_dealing_order(players: int, dealer: int) -> None:
    dealer %= players
    deal = Deal.start(players, DECK, dealer)
    first = (dealer + 1) % players
    for k in range(players):
        seat = (first + k) % players
        # one card per round, starting after the dealer, 4 rounds
        assert deal.hand(seat) == tuple(DECK[rnd * players + k] for rnd in range(4))
    dealt = 4 * players
    assert deal.trump_card is DECK[dealt]
    assert deal.trump is DECK[dealt].suit
    # the turned card lies at the bottom of the stock: stock = rest, top down, then trump
    assert deal._stock == [*DECK[dealt + 1 :], DECK[dealt]]
    assert deal.stock_size == 36 - dealt
    view = deal.view(0)
    assert view.trump_card is DECK[dealt] and view.trump_card_in_stock
    assert view.trump_card_drawn_by is None and view.stock_size == 36 - dealt


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r3_r10_stock_drawn_in_order_trump_card_last(players: int) -> None:
    deck = tuple(random.Random(players).sample(DECK, 36))
    deal = Deal.start(players, deck, 0)
    expected_stock = [*deck[4 * players + 1 :], deck[4 * players]]
    rng = random.Random(1)
    while not deal.finished:
        before = [set(deal.hand(s)) for s in range(players)]
        trick = deal.apply(rng.choice(deal.legal_actions()))
        if trick is None:
            continue
        winner = trick.winner
        drawn: list[tuple[int, Card]] = []
        # R10: winner first, then clockwise, one card per round
        rounds = max(len(p.cards) for p in trick.plays)
        for _ in range(rounds):
            for k in range(players):
                seat = (winner + k) % players
                if expected_stock:
                    drawn.append((seat, expected_stock.pop(0)))
        for seat in range(players):
            new = set(deal.hand(seat)) - before[seat]
            assert new == {c for s, c in drawn if s == seat}
        if expected_stock:
            assert deal.view(0).trump_card_in_stock
        elif drawn and drawn[-1][1] is deck[4 * players]:
            assert deal.view(0).trump_card_drawn_by == drawn[-1][0]
    assert deal.stock_size == 0 and not expected_stock


# --- R4 first lead -----------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r4_first_lead_is_after_dealer(players: int) -> None:
    for dealer in range(players):
        deal = Deal.start(players, DECK, dealer)
        assert deal.turn == deal.leader == (dealer + 1) % players
        assert deal.view(dealer).turn == (dealer + 1) % players
        assert all(m.seat == deal.turn and m.is_lead for m in deal.legal_actions())


# --- R5 beating one card -----------------------------------------------------------------


@pytest.mark.parametrize(
    "card, other, beats",
    [
        ("7H", "6H", True),  # higher of the same suit
        ("6H", "7H", False),
        ("10H", "KH", True),  # ten above king
        ("KH", "10H", False),
        ("AH", "10H", True),
        ("6C", "AH", True),  # any trump over a non-trump
        ("AH", "6C", False),  # a trump only by a higher trump
        ("7C", "6C", True),
        ("6C", "7C", False),
        ("AS", "6H", False),  # another plain suit never beats
        ("6H", "6H", False),
    ],
)
def test_r5_beating(card: str, other: str, beats: bool) -> None:
    assert C(card).beats(C(other), Suit.CLUBS) is beats


# --- R6 lead -----------------------------------------------------------------------------


def r6_deal() -> Deal:
    deck = build_deck(2, 1, [["6H", "7H", "8H", "9H"], ["AS", "KS", "QS", "JS"]], "10D")
    return Deal.start(2, deck, dealer=1)


@pytest.mark.parametrize("codes", ["6H", "6H 7H", "6H 7H 9H"])
def test_r6_lead_one_to_three_of_a_suit(codes: str) -> None:
    deal = r6_deal()
    assert move(0, codes) in deal.legal_actions()
    deal.apply(move(0, codes))
    assert deal.turn == 1 and deal.lead_size() == len(codes.split())


def test_r6_lead_of_four_refused() -> None:
    deal = r6_deal()
    assert all(len(m.cards) <= 3 for m in deal.legal_actions())
    with pytest.raises(IllegalMoveError, match=r"at most 3 cards \(R6\)"):
        deal.apply(move(0, "6H 7H 8H 9H"))


def test_r6_lead_of_mixed_suits_refused() -> None:
    deck = build_deck(2, 1, [["6H", "7H", "8S", "9H"], ["AS", "KS", "QS", "JS"]], "10D")
    deal = Deal.start(2, deck, dealer=1)
    with pytest.raises(IllegalMoveError, match=r"one suit \(R6\)"):
        deal.apply(move(0, "6H 8S"))
    assert move(0, "6H 8S") not in deal.legal_actions()
    assert len(deal.legal_actions()) == 4 + 3 + 1  # singles, three pairs, one triple of hearts


def test_r6_lead_not_more_than_smallest_other_hand() -> None:
    # Hands stay equal in the base game (R10), so make an uneven table by hand.
    deal = r6_deal()
    deal._hands[1] = deal._hands[1][:2]
    with pytest.raises(IllegalMoveError, match=r"smallest hand, 2 \(R6\)"):
        deal.apply(move(0, "6H 7H 8H"))
    assert all(len(m.cards) <= 2 for m in deal.legal_actions())
    deal.apply(move(0, "6H 7H"))


def test_r6_late_in_the_deal_leads_shrink_with_the_hands() -> None:
    rng = random.Random(5)
    deal = Deal.start(2, tuple(rng.sample(DECK, 36)), 0)
    while not deal.finished:
        if deal.table == () and len(deal.hand(deal.turn or 0)) < 3:
            sizes = {len(m.cards) for m in deal.legal_actions()}
            assert max(sizes) <= len(deal.hand(deal.turn or 0))
        deal.apply(rng.choice(deal.legal_actions()))


# --- R7 answers and claimants ------------------------------------------------------------


def test_r7_worked_example_partial_cover_keeps_claimant() -> None:
    deal = two_player_example()
    deal.apply(move(0, "10H KH"))
    # A♥ beats 10♥ but Q♥ does not beat K♥: it cannot be declared a beat ...
    with pytest.raises(IllegalMoveError, match="do not beat every claimant card"):
        deal.apply(move(1, "AH QH", True))
    assert move(1, "AH QH", True) not in deal.legal_actions()
    # ... and as a discard the leader keeps the trick.
    trick = deal.apply(move(1, "AH QH", False))
    assert trick is not None and trick.winner == 0
    assert trick.points == 10 + 4 + 11 + 3
    assert deal.points == [28, 0] and deal.turn == 0


def test_r7_worked_example_trump_cover_takes_trick() -> None:
    deal = two_player_example()
    deal.apply(move(0, "10H KH"))
    assert move(1, "AH 6C", True) in deal.legal_actions()
    trick = deal.apply(move(1, "AH 6C", True))
    assert trick is not None and trick.winner == 1
    assert deal.points == [0, 25] and deal.turn == 1 and deal.leader == 1


def test_r7_beat_is_a_matching_not_the_order_played() -> None:
    # Lead 6♥ A♥; answer 6♣ 7♥: in order 7♥ would face A♥, but 7♥→6♥, 6♣→A♥ covers.
    deck = build_deck(2, 1, [["6H", "AH", "7S", "8S"], ["6C", "7H", "9D", "10D"]], "JC")
    deal = Deal.start(2, deck, dealer=1)
    deal.apply(move(0, "6H AH"))
    assert covers((C("6C"), C("7H")), (C("6H"), C("AH")), Suit.CLUBS)
    assert covers((C("7H"), C("6C")), (C("6H"), C("AH")), Suit.CLUBS)
    trick = deal.apply(move(1, "6C 7H", True))
    assert trick is not None and trick.winner == 1


def test_r7_covers_needs_every_card_beaten() -> None:
    claim = (C("6H"), C("AH"))
    assert not covers((C("7H"), C("8H")), claim, Suit.CLUBS)  # nothing beats A♥
    assert not covers((C("6C"), C("7S")), claim, Suit.CLUBS)
    assert not covers((C("6C"),), claim, Suit.CLUBS)
    assert covers((C("6C"), C("7C")), claim, Suit.CLUBS)


def test_r7_discard_always_legal_even_if_it_could_beat() -> None:
    deal = two_player_example()
    deal.apply(move(0, "10H KH"))
    assert move(1, "AH 6C", False) in deal.legal_actions()
    trick = deal.apply(move(1, "AH 6C", False))
    assert trick is not None and trick.winner == 0


def test_r7_answer_with_exactly_as_many_cards() -> None:
    deal = two_player_example()
    deal.apply(move(0, "10H KH"))
    for codes in ["AH", "AH QH 6C"]:
        with pytest.raises(IllegalMoveError, match=r"exactly 2 card\(s\) \(R7\)"):
            deal.apply(move(1, codes, False))
    assert {len(m.cards) for m in deal.legal_actions()} == {2}
    # no obligation to follow suit: 9♦ with a heart is fine as a discard
    assert move(1, "QH 9D", False) in deal.legal_actions()


def three_player_chain() -> Deal:
    deck = build_deck(
        3,
        2,
        [["9H", "6S", "7S", "8S"], ["10H", "6D", "7D", "8D"], ["KH", "AH", "9S", "10S"]],
        "6C",
    )
    return Deal.start(3, deck, dealer=2)


def test_r7_three_players_next_must_beat_new_claimant() -> None:
    deal = three_player_chain()
    deal.apply(move(0, "9H"))
    assert deal.claimant == 0
    deal.apply(move(1, "10H", True))
    assert deal.claimant == 1 and deal.view(2).claimant == 1
    # K♥ beats the led 9♥ but not the new claimant's 10♥
    with pytest.raises(IllegalMoveError, match="do not beat"):
        deal.apply(move(2, "KH", True))
    assert move(2, "KH", True) not in deal.legal_actions()
    assert move(2, "AH", True) in deal.legal_actions()
    trick = deal.apply(move(2, "AH", True))
    assert trick is not None and trick.winner == 2
    assert deal.points == [0, 0, 0 + 10 + 11]


def test_r7_three_players_discard_after_beat_keeps_new_claimant() -> None:
    deal = three_player_chain()
    deal.apply(move(0, "9H"))
    deal.apply(move(1, "10H", True))
    trick = deal.apply(move(2, "AH", False))
    assert trick is not None and trick.winner == 1


def test_r7_three_players_discard_does_not_change_claimant() -> None:
    deal = three_player_chain()
    deal.apply(move(0, "9H"))
    deal.apply(move(1, "10H", False))  # could beat, discards
    assert deal.claimant == 0
    trick = deal.apply(move(2, "KH", True))  # K♥ only has to beat 9♥ now
    assert trick is not None and trick.winner == 2


def test_r7_four_players_claimant_chain() -> None:
    deck = build_deck(
        4,
        0,
        [
            ["AS", "6C", "7D", "8D"],  # seat 0 answers last
            ["7S", "8S", "9D", "10D"],  # seat 1 leads
            ["9S", "10S", "JD", "QD"],  # seat 2 beats
            ["JS", "QS", "KD", "AD"],  # seat 3 could beat 7♠ 8♠, not 9♠ 10♠
        ],
        "7C",
    )
    deal = Deal.start(4, deck, dealer=0)
    assert deal.turn == 1
    deal.apply(move(1, "7S 8S"))
    deal.apply(move(2, "9S 10S", True))
    assert deal.claimant == 2
    with pytest.raises(IllegalMoveError, match="do not beat"):
        deal.apply(move(3, "JS QS", True))
    deal.apply(move(3, "JS QS", False))
    assert deal.claimant == 2
    assert move(0, "AS 6C", True) in deal.legal_actions()
    deal.apply(move(0, "AS 6C", True))
    assert deal.claimant is None  # the trick is complete and taken
    assert deal.last_trick is not None and deal.last_trick.winner == 0
    # R9: the claimant takes every card on the table; R11: and leads next
    assert deal.points == [10 + 11 + 2 + 3, 0, 0, 0]
    assert sorted(deal.won_cards[0]) == sorted(cs("7S 8S 9S 10S JS QS AS 6C"))
    assert deal.turn == 0 and deal.leader == 0 and deal.table == ()
    assert [p.declared_beat for p in deal.last_trick.plays] == [None, True, False, True]


# --- R9 - R11 ------------------------------------------------------------------------------


def test_r10_draw_order_winner_first_then_clockwise() -> None:
    deck = build_deck(
        3,
        2,
        [["9H", "7H", "7S", "8S"], ["10H", "6D", "7D", "8D"], ["KH", "8H", "9S", "10S"]],
        "6C",
        ["JH", "JS", "JD", "QH", "QS", "QD"],
    )
    deal = Deal.start(3, deck, dealer=2)
    deal.apply(move(0, "9H 7H"))
    deal.apply(move(1, "10H 6D", False))
    deal.apply(move(2, "KH 8H", True))  # K♥>9♥, 8♥>7♥: seat 2 claims
    assert deal.last_trick is not None and deal.last_trick.winner == 2
    # seat 2 draws first, then 0, then 1; round after round up to 4
    assert set(deal.hand(2)) == cs("9S 10S JH QH")
    assert set(deal.hand(0)) == cs("7S 8S JS QS")
    assert set(deal.hand(1)) == cs("7D 8D JD QD")
    assert deal.stock_size == 36 - 12 - 6
    assert deal.turn == 2  # R11


def test_r10_trump_card_drawn_last() -> None:
    rng = random.Random(3)
    deck = tuple(rng.sample(DECK, 36))
    deal = Deal.start(2, deck, 1)
    while deal.stock_size > 0:
        assert deal.trump_card not in [c for s in range(2) for c in deal.hand(s)]
        assert deal.view(0).trump_card_in_stock
        deal.apply(rng.choice(deal.legal_actions()))
    holder = deal.view(1).trump_card_drawn_by
    assert holder is not None and not deal.view(0).trump_card_in_stock
    assert deal.trump_card in deal.hand(holder) or deal.trump_card in deal.view(0).seen_cards


def test_r11_deal_ends_when_hands_are_empty() -> None:
    deal = random_deal(Deal.start(3, DECK, 0), random.Random(4))
    assert deal.finished and deal.turn is None
    assert deal.hand_sizes() == (0, 0, 0) and deal.stock_size == 0
    assert deal.legal_actions() == []
    with pytest.raises(GameOverError, match="the deal is over"):
        deal.apply(Action(0, (C("AS"),)))
    result = deal.result()
    assert deal.last_trick is not None and result.last_trick == deal.last_trick.winner


def test_r12_points_sum_to_120_and_count_card_points() -> None:
    for players in (2, 3, 4):
        deal = random_deal(Deal.start(players, DECK, 1), random.Random(players))
        result = deal.result()
        assert sum(result.points) == 120
        for seat in range(players):
            assert result.points[seat] == sum(c.points for c in deal.won_cards[seat])
        assert result.penalties == penalties_for(result.points)


def test_result_before_the_end_is_an_error() -> None:
    with pytest.raises(GameOverError, match="still being played"):
        Deal.start(2, DECK, 0).result()


# --- R13 penalties -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "points, penalties",
    [
        ((80, 40), (0, 2)),  # the R13 table
        ((95, 25), (0, 4)),
        ((120, 0), (0, 6)),
        ((60, 60), (0, 0)),
        ((40, 80), (2, 0)),
        ((89, 31), (0, 2)),  # 2 players: threshold 31
        ((90, 30), (0, 4)),
        ((40, 40, 40), (0, 0, 0)),  # three-player tie
        ((79, 21, 20), (0, 2, 4)),  # 3 players: threshold 21
        ((120, 0, 0), (0, 6, 6)),
        ((50, 50, 20), (0, 0, 4)),
        ((60, 21, 20, 19), (0, 2, 4, 4)),  # 4 players: threshold 21
        ((0, 60, 60, 0), (6, 0, 0, 6)),
        ((30, 30, 30, 30), (0, 0, 0, 0)),
    ],
)
def test_r13_penalty_table(points: tuple[int, ...], penalties: tuple[int, ...]) -> None:
    assert penalties_for(points) == penalties


# --- illegal moves -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, reason",
    [
        (move(1, "AH"), "it is seat 0's turn, not seat 1's"),
        (move(0, "AS"), "seat 0 does not hold AS"),
        (move(0, "10H 10H"), "the same card is played twice"),
        (Action(0, ()), "needs at least one card"),
        (move(0, "10H 7S"), "one suit"),
        (move(0, "10H", True), "a lead is neither a beat nor a discard"),
        (move(0, "10H", False), "a lead is neither a beat nor a discard"),
    ],
)
def test_illegal_lead_refused_and_changes_nothing(bad: Action, reason: str) -> None:
    deal = two_player_example()
    before = snapshot(deal)
    with pytest.raises(IllegalMoveError, match=reason):
        deal.apply(bad)
    assert snapshot(deal) == before
    deal.apply(move(0, "10H KH"))  # still playable afterwards


@pytest.mark.parametrize(
    "bad, reason",
    [
        (move(1, "AH QH"), "declared a beat or a discard"),
        (move(1, "AH QH", True), "do not beat every claimant card"),
        (move(1, "AH", True), "exactly 2"),
        (move(1, "10H KH", False), "does not hold 10H, KH"),
        (move(0, "7S 8S", False), "seat 1's turn"),
    ],
)
def test_illegal_answer_refused_and_changes_nothing(bad: Action, reason: str) -> None:
    deal = two_player_example()
    deal.apply(move(0, "10H KH"))
    before = snapshot(deal)
    with pytest.raises(IllegalMoveError, match=reason):
        deal.apply(bad)
    assert snapshot(deal) == before


def test_every_legal_move_is_accepted_and_others_checked() -> None:
    rng = random.Random(11)
    deal = Deal.start(3, tuple(rng.sample(DECK, 36)), 2)
    while not deal.finished:
        legal = deal.legal_actions()
        for m in legal:
            deal.check(m)
        deal.apply(rng.choice(legal))


def test_start_refuses_bad_table() -> None:
    with pytest.raises(IllegalMoveError, match="2 to 4 players"):
        Deal.start(5, DECK, 0)
    with pytest.raises(IllegalMoveError, match="dealer must be a seat from 0 to 2"):
        Deal.start(3, DECK, 3)


# --- views ---------------------------------------------------------------------------------


def test_view_shows_own_hand_and_open_table_only() -> None:
    deal = two_player_example()
    assert_views_private(deal)
    v0 = deal.view(0)
    assert set(v0.hand) == cs("10H KH 7S 8S")
    assert v0.hand_sizes == (4, 4) and v0.stock_size == 36 - 8
    assert v0.trump is Suit.CLUBS and v0.trump_card == C("JC")
    deal.apply(move(0, "10H KH"))
    v1 = deal.view(1)
    assert [p.cards for p in v1.table] == [(C("10H"), C("KH"))]  # R8: table is open
    assert set(v1.hand) == cs("AH QH 6C 9D")
    assert not set(v1.hand) & set(deal.hand(0))
    assert_views_private(deal)
    with pytest.raises(IllegalMoveError, match="no seat 2"):
        deal.view(2)


def test_view_points_follow_tricks() -> None:
    deal = two_player_example()
    deal.apply(move(0, "10H KH"))
    deal.apply(move(1, "AH 6C", True))
    assert deal.view(0).points == (0, 25)
    assert deal.view(0).last_trick == deal.last_trick
    assert deal.view(0).trick_number == 1


def test_same_deck_same_moves_same_deal() -> None:
    rng = random.Random(8)
    deck = tuple(rng.sample(DECK, 36))
    first = random_deal(Deal.start(4, deck, 3), rng)
    again = Deal.start(4, deck, 3).replay(first.history)
    assert again.result() == first.result()
    assert [again.view(s) for s in range(4)] == [first.view(s) for s in range(4)]
    assert cards_in_play(again) and sorted(cards_in_play(again)) == list(DECK)
