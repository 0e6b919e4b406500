"""Bura (RULES.md Part D): one test or more per rule id and per switch value."""

from __future__ import annotations

import pytest

from engine.bura.actions import Dave, DaveReply, Declare, Lead, Show
from engine.bura.deal import Deal
from engine.bura.rules import Rules
from engine.bura.series import Series, deal_penalties, series_over
from engine.cards import parse_cards
from engine.errors import IllegalMoveError, RuleSetError
from tests.support.bura import answer, bura_deck, cards_in_play, declare, lead

NO_MOLODKA = Rules(molodka="off")


def start(
    hands: list[str],
    trump: str,
    stock: str = "",
    rules: Rules = NO_MOLODKA,
    players: int = 2,
    dealer: int = 0,
    stakes: int = 1,
) -> Deal:
    deal = Deal.start(
        players, bura_deck(players, dealer, hands, trump, stock), dealer, rules, stakes
    )
    assert not deal.finished, "the test deck must not be void from the deal"
    return deal


def codes(cards: object) -> list[str]:
    return sorted(c.code() for c in cards)  # type: ignore[attr-defined]


# --- D1 deal ------------------------------------------------------------------


def test_d1_three_rounds_from_the_seat_after_the_dealer_trump_to_the_bottom() -> None:
    deal = start(["7S 9D JH", "KS QD 6H", "8S 10D AC"], "QC", players=3, dealer=1)
    # dealt one card per round starting with seat 2 (after dealer 1)
    assert [c.code() for c in deal.deck[:9]] == [
        "8S",
        "7S",
        "KS",
        "10D",
        "9D",
        "QD",
        "AC",
        "JH",
        "6H",
    ]
    assert deal.trump_card.code() == "QC" and deal.trump.value == "C"
    assert deal.stock[-1] is deal.trump_card and len(deal.stock) == 36 - 9
    assert deal.leader == 2 and deal.actors() == (2,)


def test_d1_winner_of_the_previous_deal_leads_the_next() -> None:
    series = Series(3, NO_MOLODKA, first_dealer=0)
    deal = series.start_deal(bura_deck(3, 0, ["7S 9D JH", "AH 10H KH", "8S 10D 6C"], "QC"))
    assert deal.leader == 1
    series.apply(lead(1, "AH 10H KH"))
    series.apply(answer(2, "8S 10D 6C", False))
    series.apply(answer(0, "7S 9D JH", False))
    series.apply(declare(1))  # 25 + 10 + 2 = 37
    assert deal.result().outcome == "declared" and deal.result().winner == 1
    assert series.next_dealer() == 0  # the seat before the winner
    with pytest.raises(IllegalMoveError, match="dealer must be seat 0"):
        series.start_deal(bura_deck(3, 2, ["7S 9D JH", "AH 10H KH", "8S 10D 6C"], "QC"), 2)
    assert series.start_deal(bura_deck(3, 0, ["7S 9D JH", "AH 10H KS", "8S 10D 6C"], "QC"))
    assert series.deals[-1].leader == 1


# --- D2 lead ------------------------------------------------------------------


def test_d2_lead_one_to_three_cards_of_one_suit() -> None:
    deal = start(["8S 9D JH", "AH 10H 7S"], "QC")
    with pytest.raises(IllegalMoveError, match="one suit"):
        deal.apply(lead(1, "AH 7S"))
    leads = {tuple(codes(a.cards)) for a in deal.legal_actions(1) if isinstance(a, Lead)}
    assert leads == {("AH",), ("10H",), ("7S",), ("10H", "AH")}
    deal.apply(lead(1, "AH 10H"))
    assert deal.phase == "answer" and deal.actors() == (0,)


def test_d2_never_more_than_the_smallest_other_hand() -> None:
    deal = start(["8S 9D JH", "AH 10H 7S"], "QC")
    deal.hands[0].pop()  # as if the stock had run out unevenly
    with pytest.raises(IllegalMoveError, match="at most 2"):
        deal.check(Lead(1, parse_cards(["AH", "10H", "7S"])))


def test_an_action_offered_before_the_position_moved_on_is_checked_again() -> None:
    # apply plays an action legal_actions handed out in this very position unchecked; one
    # handed out a move earlier is checked in full (here: seat 1 has led already).
    deal = start(["8S 9D JH", "AH 10H 7S"], "QC")
    offered = deal.legal_actions(1)
    seven, pair = (next(a for a in offered if codes(a.cards) == c) for c in (["7S"], ["10H", "AH"]))
    deal.apply(pair)
    with pytest.raises(IllegalMoveError, match="turn to answer"):
        deal.apply(seven)
    assert deal.phase == "answer" and deal.hand(1) == parse_cards(["7S"])


@pytest.mark.parametrize("switch", ["off", "on"])
def test_d2_same_rank_leads_switch(switch: str) -> None:
    rules = Rules(molodka="off", same_rank_leads=switch)
    deal = start(["8S 9D JH", "AH AS 7D"], "QC", rules=rules)
    if switch == "off":
        with pytest.raises(IllegalMoveError, match="one suit"):
            deal.apply(lead(1, "AH AS"))
    else:
        deal.apply(lead(1, "AH AS"))
        deal.apply(answer(0, "8S 9D", False))
        assert deal.phase == "declare" and deal.leader == 1


def test_r7_answers_match_the_claim_one_to_one() -> None:
    deal = start(["AH 6C 9D", "10H KH 7S"], "QC")
    deal.apply(lead(1, "10H KH"))
    with pytest.raises(IllegalMoveError, match="do not beat"):
        deal.apply(answer(0, "AH 9D", True))
    deal.apply(answer(0, "AH 6C", True))
    assert deal.phase == "declare" and deal.turn == 0


# --- D3 closed discards -------------------------------------------------------


@pytest.mark.parametrize("switch", ["closed", "open"])
def test_d3_discards_switch(switch: str) -> None:
    rules = Rules(molodka="off", discards=switch)
    deal = start(["KS 9D JH", "AH 10H 7S"], "QC", rules=rules, stock="8D 6H")
    deal.apply(lead(1, "AH"))
    deal.apply(answer(0, "KS", False))
    mine, theirs = deal.view(0), deal.view(1)
    pile = theirs.piles[1]
    if switch == "closed":
        assert pile.open_cards == parse_cards(["AH"]) and pile.closed_by == (0,)
        assert mine.my_closed == ((parse_cards(["KS"])[0], 1),)
        assert parse_cards(["KS"])[0] not in theirs.seen_cards()
    else:
        assert set(pile.open_cards) == set(parse_cards(["AH", "KS"])) and pile.closed_by == ()
        assert mine.my_closed == ()
    assert not hasattr(mine, "points") and mine.result is None


def test_d3_a_closed_discard_on_the_table_shows_only_its_count() -> None:
    deal = start(["KS 9D JH", "AH 10H 7S", "8S QD 6H"], "QC", players=3)
    deal.apply(lead(1, "AH"))
    deal.apply(answer(2, "8S", False))
    seen = deal.view(0).table[1]
    assert seen.cards is None and seen.count == 1
    assert deal.view(2).table[1].cards == parse_cards(["8S"])


def test_d3_a_pile_tells_under_which_open_cards_each_closed_discard_lies() -> None:
    # Everyone saw the claim a face-down discard failed to beat (R7, R9); the pile keeps
    # that per discard, and still only the count of the discard (D3).
    deal = start(["6S 9D JD", "9H 10H 7S", "KH QD 8S"], "QC", players=3)
    deal.apply(lead(1, "9H"))
    deal.apply(answer(2, "KH", True))  # seat 2's king is the claim now
    deal.apply(answer(0, "6S", False))
    for seat in range(3):
        pile = deal.view(seat).piles[2]
        assert pile.closed_plays == ((0, 1),)
        assert pile.closed_under == (tuple(parse_cards(["KH"])),)
        assert set(pile.open_cards) == set(parse_cards(["9H", "KH"]))
    assert parse_cards(["6S"])[0] not in deal.view(2).seen_cards()


def test_d3_the_last_trick_shows_a_closed_discard_only_to_its_owner() -> None:
    deal = start(["KS 9D JH", "AH 10H 7S"], "QC", rules=NO_MOLODKA, stock="8D 6H")
    deal.apply(lead(1, "AH"))
    deal.apply(answer(0, "KS", False))
    deal.apply(lead(1, "7S"))  # no declaration: the draw, then the next lead
    for seat, shown in ((1, None), (0, tuple(parse_cards(["KS"])))):
        last = deal.view(seat).last_trick
        assert [(p.seat, p.cards, p.count, p.beat) for p in last] == [
            (1, tuple(parse_cards(["AH"])), 1, None),
            (0, shown, 1, False),
        ]


def test_d3_closed_under_keeps_each_trick_apart() -> None:
    rules = Rules(molodka="off")
    deal = start(["KS 9D JH", "AH 10H 7S"], "QC", rules=rules, stock="8D 6H 7D 8H")
    deal.apply(lead(1, "AH 10H"))
    deal.apply(answer(0, "KS 9D", False))
    deal.apply(lead(1, "7S"))  # no declaration: the draw, then seat 1 leads again
    deal.apply(answer(0, "JH", False))
    pile = deal.view(0).piles[1]
    assert pile.closed_plays == ((0, 2), (0, 1))
    assert pile.closed_under == (tuple(parse_cards(["AH", "10H"])), tuple(parse_cards(["7S"])))


# --- D4 draw --------------------------------------------------------------------


def test_d4_draw_back_to_three_winner_first_then_the_winner_leads() -> None:
    deal = start(["KS 9D JH", "AH 10H 7S"], "QC", stock="8D 6H 7D 8H")
    deal.apply(lead(1, "AH 10H"))
    deal.apply(answer(0, "KS 9D", False))
    assert deal.hand(1) == parse_cards(["7S"])  # nobody draws before the declaration
    deal.apply(lead(1, "8D"))  # no declaration: the draw follows, then the lead
    assert set(deal.hand(1)) == set(parse_cards(["7S", "7D"]))
    assert set(deal.hand(0)) == set(parse_cards(["JH", "6H", "8H"]))


# --- D5 declaring ---------------------------------------------------------------


def _one_trick(answer_cards: str, rules: Rules = NO_MOLODKA) -> Deal:
    deal = start([answer_cards, "AH 10H KH"], "7C", rules=rules)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, answer_cards, False))
    return deal


def test_d5_exactly_31_wins() -> None:
    deal = _one_trick("KS JS 6S")
    deal.apply(declare(1))
    res = deal.result()
    assert (res.outcome, res.winner, res.points) == ("declared", 1, (0, 31))


def test_d5_30_declared_is_false() -> None:
    deal = _one_trick("QS JS 6S")
    deal.apply(declare(1))
    res = deal.result()
    assert (res.outcome, res.winner, res.by, res.points) == ("false_declaration", None, 1, (0, 30))


@pytest.mark.parametrize(
    ("target", "answer_cards", "outcome"),
    [
        ("31", "AS AD KD", "declared"),  # 51
        ("31_50", "AS AD KD", "false_declaration"),  # 51 busts
        ("31_50", "AS 10S KD", "declared"),  # exactly 50
    ],
)
def test_d5_31_50_bust_at_51(target: str, answer_cards: str, outcome: str) -> None:
    deal = _one_trick(answer_cards, Rules(molodka="off", target=target))
    deal.apply(declare(1))
    assert deal.result().outcome == outcome


def test_d5_only_the_taker_right_after_the_trick() -> None:
    deal = _one_trick("KS JS 6S")
    with pytest.raises(IllegalMoveError, match="only seat 1"):
        deal.apply(declare(0))
    deal.apply(Declare(1, False))  # goes on: the draw follows
    assert deal.phase == "lead" and len(deal.hand(1)) == 3
    with pytest.raises(IllegalMoveError, match="right after taking a trick"):
        deal.apply(declare(1))


def test_d5_any_other_move_means_no_declaration_and_a_refusal_changes_nothing() -> None:
    deal = _one_trick("KS JS 6S")
    before = (deal.phase, [list(h) for h in deal.hands], list(deal.stock))
    with pytest.raises(IllegalMoveError):
        deal.apply(lead(1, "AS"))  # not in hand even after the draw
    assert (deal.phase, deal.hands, deal.stock) == before


# --- D6 бура --------------------------------------------------------------------


def test_d6_bura_shown_by_the_leader_wins_at_once() -> None:
    deal = start(["8S 9D 10D", "AC KC 7H"], "6C", stock="QC JD")
    deal.apply(lead(1, "7H"))
    deal.apply(answer(0, "8S", False))
    deal.apply(Declare(1, False))
    assert Show(1, "bura") in deal.legal_actions(1)
    deal.apply(Show(1, "bura"))
    res = deal.result()
    assert (res.outcome, res.winner) == ("bura", 1)


def test_d6_two_buras_the_higher_top_trump_wins() -> None:
    deal = start(["AC 10C 8S", "KC QC 7H"], "6C", stock="JC 9C")
    deal.apply(lead(1, "7H"))
    deal.apply(answer(0, "8S", False))
    deal.apply(Show(1, "bura"))  # seat 0 holds AC 10C 9C: counts as shown too
    res = deal.result()
    assert (res.outcome, res.winner, res.by) == ("bura", 0, 1)


def test_d6_show_only_on_the_holders_turn() -> None:
    deal = start(["AC 10C 8S", "KH QS 7D"], "6C", stock="8H 9C")
    deal.apply(lead(1, "7D"))
    deal.apply(answer(0, "8S", False))
    deal.apply(Declare(1, False))  # seat 1 draws 8H, seat 0 draws 9C: бура
    assert set(deal.hand(0)) == set(parse_cards(["AC", "10C", "9C"]))
    assert deal.actors() == (1,)  # not seat 0's turn
    with pytest.raises(IllegalMoveError, match="own turn"):
        deal.apply(Show(0, "bura"))
    deal.apply(lead(1, "KH"))
    assert Show(0, "bura") in deal.legal_actions(0)
    deal.apply(Show(0, "bura"))
    res = deal.result()
    assert (res.outcome, res.winner) == ("bura", 0)
    assert res.points == (0, 0)  # 7D, 8S in seat 1's pile
    assert deal.table_cards() == list(parse_cards(["KH"]))  # on the table: counts for nobody
    assert sorted(cards_in_play(deal)) == sorted(deal.deck)


# --- D7 молодка -------------------------------------------------------------------


def _after_first_trick(hands: list[str], stock: str, rules: Rules, players: int = 2) -> Deal:
    """Seat 1 leads 7S and takes it; the others discard their first card; then the draw."""
    deal = start(hands, "10C", stock=stock, rules=rules, players=players)
    deal.apply(lead(1, "7S"))
    for seat in [s % players for s in range(2, players + 1)]:
        deal.apply(answer(seat, deal.hand(seat)[-1].code(), False))
    deal.apply(Declare(1, False))
    return deal


def test_d7_molodka_stop_takes_over_the_rightful_leaders_turn() -> None:
    deal = _after_first_trick(["KH QH 9S", "AC 7S 8D"], "6D JH", Rules())
    assert set(deal.hand(0)) == set(parse_cards(["KH", "QH", "JH"]))
    assert deal.actors() == (1, 0)
    assert deal.legal_actions(0) == [Lead(0, deal.hand(0), True)]
    with pytest.raises(IllegalMoveError, match="whole hand"):
        deal.apply(lead(0, "KH QH", stop=True))
    with pytest.raises(IllegalMoveError, match="another seat"):
        deal.apply(lead(1, "AC", stop=True))  # the rightful leader's own lead
    deal.apply(lead(0, "KH QH JH", stop=True))
    assert deal.trick_leader == 0 and deal.actors() == (1,) and deal.phase == "answer"
    assert deal.view(1).table[0].stop


def test_d7_molodka_off_gives_no_privilege() -> None:
    deal = _after_first_trick(["KH QH 9S", "AC 7S 8D"], "6D JH", NO_MOLODKA)
    assert deal.actors() == (1,)
    with pytest.raises(IllegalMoveError, match="switched off"):
        deal.apply(lead(0, "KH QH JH", stop=True))


def test_d7_two_molodki_the_first_clockwise_from_the_rightful_leader() -> None:
    # seat 1 leads; seat 2 then seat 0 both draw into a молодка
    deal = _after_first_trick(["KD QD 6H", "AC 7S 8D", "KH QH 9S"], "9H JH JD", Rules(), 3)
    assert set(deal.hand(2)) == set(parse_cards(["KH", "QH", "JH"]))
    assert set(deal.hand(0)) == set(parse_cards(["KD", "QD", "JD"]))
    assert deal.actors() == (1, 2)
    with pytest.raises(IllegalMoveError, match="seat 2 holds a молодка first"):
        deal.apply(lead(0, "KD QD JD", stop=True))
    deal.apply(lead(2, "KH QH JH", stop=True))
    assert deal.turn == 0  # answers go clockwise from the stopper


def test_d7_the_rightful_leaders_own_molodka_keeps_the_lead() -> None:
    deal = _after_first_trick(["KH QH 9S", "AD 7S 8D"], "6D JH", Rules())
    assert set(deal.hand(1)) == set(parse_cards(["AD", "8D", "6D"]))
    assert deal.actors() == (1,)
    with pytest.raises(IllegalMoveError, match="rightful leader's own молодка"):
        deal.apply(lead(0, "KH QH JH", stop=True))
    deal.apply(lead(1, "AD 8D 6D"))  # an ordinary lead of three


def test_d7_stop_refused_while_another_seat_holds_bura() -> None:
    deal = _after_first_trick(["KH QH 9S", "AC KC 7S"], "QC JH", Rules())
    assert deal.actors() == (1,)
    with pytest.raises(IllegalMoveError, match="бура or Москва"):
        deal.apply(lead(0, "KH QH JH", stop=True))


# --- D8 Москва ------------------------------------------------------------------


def test_d8_moscow_beats_a_bura_shown_at_the_same_time() -> None:
    rules = Rules(molodka="off", moscow="on")
    deal = start(["AS AD 8S", "KC QC 7H"], "6C", stock="JC AH", rules=rules)
    deal.apply(lead(1, "7H"))
    deal.apply(answer(0, "8S", False))
    deal.apply(Show(1, "bura"))
    res = deal.result()
    assert (res.outcome, res.winner, res.by) == ("moscow", 0, 1)


def test_d8_moscow_off_three_aces_are_nothing() -> None:
    deal = start(["AS AD 8S", "KC QH 7H"], "6C", stock="JC AH")
    deal.apply(lead(1, "7H"))
    deal.apply(answer(0, "8S", False))
    deal.apply(Declare(1, False))
    deal.apply(lead(1, "KC"))
    with pytest.raises(IllegalMoveError, match="switched off"):
        deal.apply(Show(0, "moscow"))


def test_d8_small_moscow_stop_comes_before_molodka() -> None:
    rules = Rules(moscow="on")
    # seat 2 (first clockwise) draws a молодка, seat 0 three sixes with the trump six
    deal = _after_first_trick(["6S 6H 8H", "AC 7S 8D", "KH QD 9S"], "9H QH 6C", rules, 3)
    assert set(deal.hand(0)) == set(parse_cards(["6S", "6H", "6C"]))
    assert deal.actors() == (1, 0)
    with pytest.raises(IllegalMoveError, match="малая Москва"):
        deal.apply(lead(2, " ".join(c.code() for c in deal.hand(2)), stop=True))
    deal.apply(lead(0, "6S 6H 6C", stop=True))
    assert deal.phase == "answer" and deal.turn == 1


def test_d8_a_rightful_leader_may_lead_the_three_sixes() -> None:
    rules = Rules(moscow="on")
    deal = _after_first_trick(["KH QH 9S", "6S 7S 6H"], "6C JH", rules)
    assert set(deal.hand(1)) == set(parse_cards(["6S", "6H", "6C"]))
    with pytest.raises(IllegalMoveError, match="малая Москва"):
        deal.apply(lead(0, "KH QH JH", stop=True))
    deal.apply(lead(1, "6S 6H 6C"))
    assert deal.phase == "answer"


@pytest.mark.parametrize("same_rank", ["off", "on"])
def test_d8_the_three_sixes_lead_is_offered_once(same_rank: str) -> None:
    """With same_rank_leads (D2) the three sixes are a same-rank lead too: one button,
    not two (the hand and the Mini App list every legal action)."""
    rules = Rules(moscow="on", same_rank_leads=same_rank)
    deal = _after_first_trick(["KH QH 9S", "6S 7S 6H"], "6C JH", rules)
    whole = [a for a in deal.legal_actions(1) if isinstance(a, Lead) and len(a.cards) == 3]
    assert [set(a.cards) for a in whole] == [set(parse_cards(["6S", "6H", "6C"]))]


# --- D9 void deals --------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "rules", "void"),
    [
        ("AC KC 7C", Rules(), True),  # бура: always
        ("AH KH 7H", Rules(), True),  # молодка with out_of_turn
        ("AH KH 7H", Rules(molodka="off"), False),
        ("AS AH AD", Rules(), False),  # Москва only with moscow on
        ("AS AH AD", Rules(moscow="on"), True),
        ("6S 6H 6C", Rules(moscow="on"), True),  # малая Москва
        ("6S 6H 6C", Rules(), False),
        ("6S 6H 6D", Rules(moscow="on"), False),  # no trump six
    ],
)
def test_d9_void_from_the_deal(hand: str, rules: Rules, void: bool) -> None:
    deck = bura_deck(2, 0, ["8S 9D JS", hand], "10C")
    deal = Deal.start(2, deck, 0, rules)
    assert deal.finished is void
    if void:
        assert deal.result().outcome == "void" and not deal.result().run_out


def _play_out(deal: Deal) -> None:
    """Play to the end with the first plain lead/answer, never declaring or showing."""
    while not deal.finished:
        seat = deal.actors()[0]
        options = deal.legal_actions(seat)
        plain = [a for a in options if isinstance(a, Declare) and not a.declare]
        plain += [a for a in options if type(a).__name__ == "Answer"]
        plain += [a for a in options if isinstance(a, Lead) and not a.stop]
        deal.apply(plain[0])


def test_d9_void_kinds_stakes_and_the_same_dealer() -> None:
    rules = Rules(molodka="off")
    series = Series(2, rules, first_dealer=1)
    # a deck void from the deal: stakes unchanged, same dealer
    series.start_deal(bura_deck(2, 1, ["AC KC 7C", "8S 9D JS"], "10C"))
    assert series.results[-1].outcome == "void" and series.next_stakes() == 1
    # two run-out voids: ×2 then ×4
    for expected in (2, 4):
        deal = series.start_deal(bura_deck(2, 1, ["AH 9D JS", "8S KD 7H"], "10C"), 1)
        _play_out(deal)
        res = deal.result()
        assert res.outcome == "void" and res.run_out and res.winner is None
        assert series.penalties[-1] == (0, 0)
        assert series.next_stakes() == expected and series.next_dealer() == 1
    # the next counted deal's penalties are multiplied
    deal = series.start_deal(bura_deck(2, 1, ["AH 10H KH", "KS JS 6S"], "7C"))
    assert deal.stakes == 4
    deal.apply(lead(0, "AH 10H KH"))
    deal.apply(answer(1, "KS JS 6S", False))
    deal.apply(declare(0))
    assert series.penalties[-1] == (0, 8) and series.next_stakes() == 1


# --- D10 penalties and series ------------------------------------------------------


def test_d10_penalty_12_false_declaration_declarer_deals_next() -> None:
    series = Series(3, NO_MOLODKA, first_dealer=0)
    series.start_deal(bura_deck(3, 0, ["7S 9D JH", "AH 10H 6H", "8S 10D 6C"], "QC"))
    series.apply(lead(1, "AH"))
    series.apply(answer(2, "8S", False))
    series.apply(answer(0, "7S", False))
    series.apply(declare(1))
    assert series.penalties[-1] == (0, 4, 0)
    assert series.next_dealer() == 1  # «доставивший кон становится сдающим»
    assert series.deals[-1].result().winner is None


def test_d10_penalty_12_a_win_gives_every_other_player_2_and_ends_at_12() -> None:
    series = Series(2, NO_MOLODKA)
    for _ in range(6):
        dealer = series.next_dealer()
        leader = (dealer + 1) % 2
        hands = ["KS JS 6S", "AH 10H KH"] if leader == 1 else ["AH 10H KH", "KS JS 6S"]
        series.start_deal(bura_deck(2, dealer, hands, "7C"))
        series.apply(lead(leader, "AH 10H KH"))
        series.apply(answer(1 - leader, "KS JS 6S", False))
        series.apply(declare(leader))
        assert series.penalties[-1][1 - leader] == 2
    assert series.totals == (12, 0) and series.finished and series.result().winners == (1,)


@pytest.mark.parametrize(
    ("series_kind", "totals", "finished", "winners"),
    [
        ("robber_11", (11, 10), False, ()),  # needs a lead of 2
        ("robber_11", (12, 10), True, (0,)),
        ("robber_11", (10, 11, 3), False, ()),
        ("robber_11", (9, 11, 3), True, (1,)),
        ("robber_21", (20, 3), False, ()),
        ("robber_21", (21, 19, 0, 2), True, (0,)),
        ("penalty_12", (12, 2, 2), True, (1, 2)),
        ("penalty_12", (11, 2), False, ()),
    ],
)
def test_d10_series_end(
    series_kind: str, totals: tuple[int, ...], finished: bool, winners: tuple[int, ...]
) -> None:
    assert series_over(totals, Rules(series=series_kind)) == (finished, winners)


def test_d10_robber_counts_deal_wins_and_false_declarations_for_the_others() -> None:
    rules = Rules(molodka="off", series="robber_11")
    deal = _one_trick("KS JS 6S", rules)
    deal.apply(declare(1))
    assert deal_penalties(deal.result(), 2, rules) == (0, 1)
    deal = _one_trick("QS JS 6S", rules)
    deal.apply(declare(1))
    assert deal_penalties(deal.result(), 2, rules) == (1, 0)
    deal = start(["QS JS 6S", "AH 10H KH"], "7C", rules=rules, stakes=4)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "QS JS 6S", False))
    deal.apply(declare(1))
    assert deal_penalties(deal.result(), 2, rules) == (4, 0)


# --- D11 даве ------------------------------------------------------------------


DAVE = Rules(molodka="off", dave="on")


def test_d11_fold_wins_the_deal_for_the_dave_sayer_at_the_stakes_before_doubling() -> None:
    series = Series(2, DAVE)
    deal = series.start_deal(bura_deck(2, 0, ["8S 9D JH", "AH 10H 7S"], "QC"))
    series.apply(Dave(1))
    assert deal.actors() == (0,)
    with pytest.raises(IllegalMoveError, match="answer даве"):
        series.apply(lead(1, "AH"))
    series.apply(DaveReply(0, False))
    res = deal.result()
    assert (res.outcome, res.winner, res.stakes) == ("fold", 1, 1)
    assert series.penalties[-1] == (2, 0)


def test_d11_accept_doubles_the_stakes_each_in_turn() -> None:
    series = Series(2, DAVE)
    deal = series.start_deal(bura_deck(2, 0, ["KS JS 6S", "AH 10H KH"], "7C", "8D 9D"))
    series.apply(Dave(1))
    series.apply(DaveReply(0, True))
    assert deal.stakes == 2 and deal.actors() == (1,)
    assert Dave(1) not in deal.legal_actions(1)
    with pytest.raises(IllegalMoveError, match="only after the other"):
        series.apply(Dave(1))
    series.apply(lead(1, "AH 10H KH"))
    series.apply(answer(0, "KS JS 6S", False))
    series.apply(declare(1))
    assert deal.result().stakes == 2 and series.penalties[-1] == (4, 0)


def test_d11_the_other_player_may_say_dave_back_and_it_resets_every_deal() -> None:
    series = Series(2, DAVE)
    deal = series.start_deal(bura_deck(2, 0, ["AS 9D JH", "10S QH 7D"], "QC", "8D 9H"))
    series.apply(Dave(1))
    series.apply(DaveReply(0, True))
    series.apply(lead(1, "10S"))
    series.apply(answer(0, "AS", True))  # seat 0 takes the trick and leads next
    series.apply(Dave(0))  # no declaration: the draw follows, then даве
    series.apply(DaveReply(1, True))
    assert deal.stakes == 4
    _play_out(deal)
    assert deal.result().outcome == "void" and deal.result().stakes == 4
    assert series.next_stakes() == 2  # даве doublings never carry
    nxt = series.start_deal(bura_deck(2, 0, ["8S 9D JH", "AH 10H 7S"], "QC"))
    assert Dave(1) in nxt.legal_actions(1)


def test_d11_stop_still_possible_after_an_accepted_dave() -> None:
    rules = Rules(dave="on")
    deal = _after_first_trick(["KH QH 9S", "AC 7S 8D"], "6D JH", rules)
    deal.apply(Dave(1))
    assert deal.actors() == (0,)
    deal.apply(DaveReply(0, True))
    assert deal.actors() == (1, 0)
    deal.apply(lead(0, "KH QH JH", stop=True))


def test_d11_refused_with_three_players_and_when_off() -> None:
    deal = start(
        ["7S 9D JH", "AH 10H KS", "8S 10D 6C"],
        "QC",
        players=3,
        rules=Rules(molodka="off", dave="on"),
    )
    with pytest.raises(IllegalMoveError, match="2 players only"):
        deal.apply(Dave(1))
    deal = start(["8S 9D JH", "AH 10H 7S"], "QC")
    with pytest.raises(IllegalMoveError, match="switched off"):
        deal.apply(Dave(1))


def test_d11_only_the_rightful_leader_at_a_lead_moment() -> None:
    deal = start(["8S 9D JH", "AH 10H 7S"], "QC", rules=DAVE)
    with pytest.raises(IllegalMoveError, match="rightful leader"):
        deal.apply(Dave(0))
    deal.apply(lead(1, "AH"))
    with pytest.raises(IllegalMoveError, match="before leading"):
        deal.apply(Dave(0))


# --- rule set ------------------------------------------------------------------


def test_rules_record_keys_and_values() -> None:
    rules = Rules.from_dict({"target": "31_50", "series": "robber_21", "dave": "off"})
    assert rules.to_dict() == {"target": "31_50", "series": "robber_21"}
    with pytest.raises(RuleSetError, match="unknown Bura rule switch"):
        Rules.from_dict({"max_lead": 4})
    with pytest.raises(RuleSetError, match="cannot be 31"):
        Rules.from_dict({"target": 31})


@pytest.mark.parametrize("kind", ["robber_11", "robber_21", "penalty_12"])
def test_d10_every_series_kind_ends_exactly_when_its_rule_says(kind: str) -> None:
    from tests.support.bura import random_series

    for seed in range(3):
        series = random_series(2 + seed, seed, Rules(series=kind), max_deals=400)
        assert series.finished
        totals = series.totals
        before = tuple(t - p for t, p in zip(totals, series.penalties[-1], strict=True))
        assert not series_over(before, series.rules)[0]  # it went on until then
        (winner,) = series.result().winners[:1]
        if kind == "penalty_12":
            assert max(totals) >= 12 and totals[winner] == min(totals)
        else:
            target = 11 if kind == "robber_11" else 21
            rivals = [t for s, t in enumerate(totals) if s != winner]
            assert totals[winner] >= target and all(totals[winner] - t >= 2 for t in rivals)


def test_d7_no_stop_once_the_rightful_leader_has_led() -> None:
    deal = _after_first_trick(["KH QH 9S", "AC 7S 8D"], "6D JH", Rules())
    deal.apply(lead(1, "AC"))
    with pytest.raises(IllegalMoveError, match="turn to answer"):
        deal.apply(lead(0, "KH QH JH", stop=True))
    assert deal.actors() == (0,)
