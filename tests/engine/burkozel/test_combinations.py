"""Part C: the four-card combinations (B6 on), named by rule id."""

from __future__ import annotations

import pytest

from engine import IllegalMoveError, parse_cards
from engine.burkozel import Action, Deal, Rules
from engine.burkozel.combinations import show_winner
from engine.cards import Suit
from tests.support.burkozel import after_first_trick, build_deck, move

ON = Rules(combinations="on")
# Seat 0 leads the second trick; filler hands hold no combination.
PLAIN0 = ["7S", "8D", "9D", "9H"]
PLAIN1 = ["7D", "8S", "JH", "QD"]


def hands_of(deal: Deal) -> list[list[str]]:
    return [sorted(c.code() for c in deal.hand(s)) for s in range(deal.players)]


def test_c1_bura_shown_when_answering_ends_the_deal() -> None:
    deal = after_first_trick([PLAIN0, ["AC", "KC", "QC", "JC"]], "6C", ON)
    deal.apply(move(0, "7S"))
    assert Action(1, (), show="bura") in deal.legal_actions()
    deal.apply(Action(1, (), show="bura"))
    result = deal.result()
    assert deal.finished and result.outcome == "bura"
    assert result.penalties == (4, 0)
    assert result.last_trick == 0  # R4: the last trick taken before the show


def test_c1_bura_shown_instead_of_leading() -> None:
    deal = after_first_trick([["AC", "KC", "QC", "JC"], PLAIN1], "6C", ON)
    assert deal.turn == 0 and Action(0, (), show="bura") in deal.legal_actions()
    deal.apply(Action(0, (), show="bura"))
    assert deal.result().penalties == (0, 4)


def test_c1_three_players_every_other_player_gets_4() -> None:
    deal = after_first_trick([PLAIN0, PLAIN1, ["AC", "KC", "QC", "JC"]], "6C", ON)
    deal.apply(move(0, "7S"))
    deal.apply(move(1, "7D", False))
    deal.apply(Action(2, (), show="bura"))
    assert deal.result().penalties == (4, 4, 0)


def test_c_not_before_the_first_trick_is_complete() -> None:
    # Seat 1 is dealt бура: it does not count during the first trick.
    deck = build_deck(2, 1, [PLAIN0, ["AC", "KC", "QC", "JC"]], "6C")
    deal = Deal.start(2, deck, 1, ON)
    deal.apply(move(0, "7S"))
    assert all(m.show is None for m in deal.legal_actions())
    with pytest.raises(IllegalMoveError, match="before the first trick"):
        deal.apply(Action(1, (), show="bura"))


def test_c_off_refuses_shows_r15() -> None:
    deal = after_first_trick([PLAIN0, ["AC", "KC", "QC", "JC"]], "6C", Rules())
    deal.apply(move(0, "7S"))
    assert all(m.show is None for m in deal.legal_actions())
    with pytest.raises(IllegalMoveError, match="combinations are off"):
        deal.apply(Action(1, (), show="bura"))


def test_c1_show_only_on_the_holders_turn_and_only_what_is_held() -> None:
    deal = after_first_trick([PLAIN0, ["AC", "KC", "QC", "JC"]], "6C", ON)
    with pytest.raises(IllegalMoveError, match="holder's turn"):
        deal.apply(Action(1, (), show="bura"))
    deal.apply(move(0, "7S"))
    with pytest.raises(IllegalMoveError, match="does not hold Москва"):
        deal.apply(Action(1, (), show="moscow"))
    assert not deal.finished


def test_c2_moscow_every_other_player_gets_6() -> None:
    deal = after_first_trick([PLAIN0, PLAIN1, ["AS", "AH", "AD", "AC"]], "6C", ON)
    deal.apply(move(0, "7S"))
    deal.apply(move(1, "7D", False))
    deal.apply(Action(2, (), show="moscow"))
    result = deal.result()
    assert result.outcome == "moscow" and result.penalties == (6, 6, 0)


def test_c2_moscow_beats_bura_shown_at_once() -> None:
    # Seat 1 shows бура while seat 2 holds Москва: every one counts as shown, Москва wins.
    deal = after_first_trick(
        [PLAIN0, ["KC", "QC", "JC", "10C"], ["AS", "AH", "AD", "AC"]], "6C", ON
    )
    deal.apply(move(0, "7S"))
    deal.apply(Action(1, (), show="bura"))
    result = deal.result()
    assert result.outcome == "moscow" and result.penalties == (6, 6, 0)


def test_c1_two_buras_the_higher_top_trump_wins() -> None:
    deal = after_first_trick(
        [PLAIN0, ["KC", "QC", "9C", "8C"], ["AC", "10C", "JC", "7C"]], "6C", ON
    )
    deal.apply(move(0, "7S"))
    deal.apply(Action(1, (), show="bura"))
    result = deal.result()
    assert result.outcome == "bura" and result.penalties == (4, 4, 0)
    # the rule itself, with the holders the other way round
    hands = [parse_cards(["AC", "7C", "8C", "9C"]), parse_cards(["10C", "KC", "QC", "JC"])]
    assert show_winner(hands, Suit.CLUBS) == (0, "bura")


def test_c3_molodka_out_of_turn_lead_is_answered_with_four() -> None:
    deal = after_first_trick([PLAIN0, ["6H", "7H", "10H", "AH"]], "6C", ON)
    assert deal.actors() == (0, 1)
    stop = Action(1, parse_cards(["6H", "7H", "10H", "AH"]), stop=True)
    assert deal.legal_actions(1) == [stop]
    deal.apply(stop)
    assert deal.leader == 1 and deal.turn == 0 and deal.lead_size() == 4
    assert all(len(m.cards) == 4 for m in deal.legal_actions())
    deal.apply(move(0, "7S 8D 9D 9H", False))
    assert deal.last_trick is not None and deal.last_trick.winner == 1


def test_c3_stop_must_be_the_whole_hand_and_not_by_the_rightful_leader() -> None:
    deal = after_first_trick([["6H", "7H", "10H", "AH"], PLAIN1], "6C", ON)
    with pytest.raises(IllegalMoveError, match="rightful leader's own lead"):
        deal.apply(Action(0, parse_cards(["6H", "7H", "10H", "AH"]), stop=True))
    other = after_first_trick([PLAIN0, ["6H", "7H", "10H", "AH"]], "6C", ON)
    with pytest.raises(IllegalMoveError, match="whole hand"):
        other.apply(Action(1, parse_cards(["6H", "7H", "10H"]), stop=True))


def test_c3_not_before_the_first_trick_is_complete() -> None:
    deck = build_deck(2, 1, [PLAIN0, ["6H", "7H", "10H", "AH"]], "6C")
    deal = Deal.start(2, deck, 1, ON)
    assert deal.actors() == (0,) and deal.legal_actions(1) == []
    with pytest.raises(IllegalMoveError, match="before the first trick"):
        deal.apply(Action(1, deal.hand(1), stop=True))


def test_c3_rightful_leader_counts_first_and_leads_four_whatever_b2_says() -> None:
    deal = after_first_trick([["6H", "7H", "10H", "AH"], ["6S", "7S", "10S", "AS"]], "6C", ON)
    assert deal.actors() == (0,)  # nobody leads out of turn against the leader's own
    four = Action(0, parse_cards(["6H", "7H", "10H", "AH"]))
    assert four in deal.legal_actions()
    with pytest.raises(IllegalMoveError, match="only the first holder"):
        deal.apply(Action(1, deal.hand(1), stop=True))
    deal.apply(four)  # max_lead is 3, yet the combination may be led
    assert deal.lead_size() == 4


def test_c3_leaders_own_four_is_not_refused_by_another_bura() -> None:
    deal = after_first_trick([["6H", "7H", "10H", "AH"], ["AC", "KC", "QC", "JC"]], "6C", ON)
    deal.apply(Action(0, parse_cards(["6H", "7H", "10H", "AH"])))
    assert Action(1, (), show="bura") in deal.legal_actions()


def test_c3_two_molodki_first_clockwise_from_the_rightful_leader() -> None:
    hands = [PLAIN0, PLAIN1, ["6H", "7H", "10H", "AH"], ["6S", "10S", "QS", "AS"]]
    deal = after_first_trick(hands, "6C", ON)
    assert deal.actors() == (0, 2)
    assert deal.legal_actions(3) == []
    with pytest.raises(IllegalMoveError, match="only the first holder"):
        deal.apply(Action(3, deal.hand(3), stop=True))
    deal.apply(Action(2, deal.hand(2), stop=True))
    assert deal.leader == 2 and deal.turn == 3


def test_c3_refused_while_another_seat_holds_bura() -> None:
    hands = [PLAIN0, ["AC", "KC", "QC", "JC"], ["6H", "7H", "10H", "AH"]]
    deal = after_first_trick(hands, "6C", ON)
    assert deal.actors() == (0,)
    with pytest.raises(IllegalMoveError, match="бура or Москва"):
        deal.apply(Action(2, deal.hand(2), stop=True))


def test_c3_first_holder_refused_means_nobody_leads_out_of_turn() -> None:
    # Seat 2 (first clockwise) is refused by seat 3's Москва; seat 3's own four aces
    # (also C4) may not be led out of turn either: only the first holder may.
    hands = [PLAIN0, PLAIN1, ["6H", "7H", "10H", "KH"], ["AS", "AH", "AD", "AC"]]
    deal = after_first_trick(hands, "6C", ON)
    assert deal.stopper() is None and deal.actors() == (0,)
    assert deal.legal_actions(2) == [] and deal.legal_actions(3) == []
    hands = [PLAIN0, ["AC", "KC", "QC", "JC"], ["6H", "7H", "10H", "AH"], ["6S", "10S", "QS", "KS"]]
    deal = after_first_trick(hands, "6C", ON)
    assert deal.actors() == (0,) and deal.legal_actions(3) == []


def test_c4_four_foreheads_lead_out_of_turn_with_mixed_suits() -> None:
    deal = after_first_trick([PLAIN0, ["AS", "10H", "AD", "10D"]], "6C", ON)
    deal.apply(Action(1, deal.hand(1), stop=True))
    assert deal.leader == 1 and deal.lead_size() == 4


def test_c4_four_aces_are_both_moscow_and_four_foreheads() -> None:
    deal = after_first_trick([PLAIN0, ["AS", "AH", "AD", "AC"]], "6C", ON)
    assert deal.legal_actions(1) == [Action(1, deal.hand(1), stop=True)]
    deal.apply(move(0, "7S"))
    assert Action(1, (), show="moscow") in deal.legal_actions()


def test_c4_leaders_four_foreheads_is_an_ordinary_lead_of_four() -> None:
    deal = after_first_trick([["AS", "10H", "AD", "10D"], PLAIN1], "6C", ON)
    lead = Action(0, parse_cards(["AS", "10H", "AD", "10D"]))
    assert lead in deal.legal_actions()
    with pytest.raises(IllegalMoveError, match="one suit"):
        deal.apply(Action(0, parse_cards(["AS", "10H", "AD"])))
    deal.apply(lead)
    assert deal.turn == 1


def test_c_b4_combination_credits_doubled_after_a_tie() -> None:
    rules = Rules(combinations="on", scoring="winner_takes")
    hands = [PLAIN0, PLAIN1, ["AS", "AH", "AD", "AC"]]
    for stakes, credit in ((1, 12), (2, 24)):
        deal = after_first_trick(hands, "6C", rules, stakes=stakes)
        deal.apply(move(0, "7S"))
        deal.apply(move(1, "7D", False))
        deal.apply(Action(2, (), show="moscow"))
        assert deal.result().penalties == (0, 0, credit)  # 6 per other player


def test_c_b5_pairs_bura_goes_to_the_pair() -> None:
    hands = [PLAIN0, ["AC", "KC", "QC", "JC"], ["7H", "8H", "9S", "QH"], ["6S", "6D", "JD", "JS"]]
    deal = after_first_trick(hands, "6C", Rules(combinations="on", teams="pairs"))
    deal.apply(move(0, "7S"))
    deal.apply(Action(1, (), show="bura"))
    assert deal.result().penalties == (4, 0, 4, 0)
    credits = after_first_trick(
        hands, "6C", Rules(combinations="on", teams="pairs", scoring="winner_takes")
    )
    credits.apply(move(0, "7S"))
    credits.apply(Action(1, (), show="bura"))
    assert credits.result().penalties == (0, 4, 0, 4)  # 4 per other pair
