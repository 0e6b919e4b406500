"""Bura computer players: legal, seeded, deciding from their own view only."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.bura.actions import Declare, Lead
from engine.bura.ai import LEVELS, StrongPlayer, make_player, play_deal
from engine.bura.ai.players import SURE_STYLE, canonical, declaring_styles, rollout
from engine.bura.ai.policy import Situation, greedy, keep_value
from engine.bura.ai.world import dealt_trump_weight, last_trick_leans, sample_world
from engine.bura.deal import Deal
from engine.bura.rules import Rules
from engine.bura.view import SeenPile, View
from engine.cards import DECK, Card, Rank, shuffled_deck
from tests.support.bura import all_actions, answer, bura_deck, cards_in_play, lead

RULES = Rules(moscow="on")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("players", [2, 3])
def test_every_level_plays_whole_deals(level: str, players: int) -> None:
    rules = Rules(moscow="on", dave="on" if players == 2 else "off")
    for seed in range(2):
        deal = Deal.start(players, shuffled_deck(seed), 0, rules)
        bots = {s: make_player(level, rules, seed + s) for s in range(players)}
        for bot in bots.values():
            if hasattr(bot, "worlds"):
                bot.worlds = 4
        play_deal(deal, bots)
        assert deal.finished and sorted(cards_in_play(deal)) == list(DECK)


def test_a_decision_depends_only_on_seed_and_view() -> None:
    deal = Deal.start(2, shuffled_deck(3), 0, RULES)
    seat = deal.actors()[0]
    view, legal = deal.view(seat), deal.legal_actions(seat)
    first = make_player("normal", RULES, 5).choose(view, legal)
    assert make_player("normal", RULES, 5).choose(view, list(reversed(legal))) == first
    assert first in legal


def test_sampled_worlds_keep_the_view_and_hide_the_rest() -> None:
    rng = random.Random(1)
    deal = Deal.start(3, shuffled_deck(11), 0, Rules(molodka="off"))
    for _ in range(9):
        seat = deal.actors()[0]
        deal.apply(rng.choice(deal.legal_actions(seat)))
    for seat in range(3):
        view = deal.view(seat)
        world = sample_world(view, deal.rules, rng)
        assert sorted(cards_in_play(world)) == list(DECK)
        assert world.hands[seat] == list(view.hand)
        assert world.view(seat).piles == view.piles
        assert world.view(seat).table == view.table
        assert [len(h) for h in world.hands] == list(view.hand_sizes)


def test_strong_declares_when_the_open_cards_alone_make_31() -> None:
    rules = Rules(molodka="off", discards="open")
    deal = Deal.start(2, bura_deck(2, 0, ["KS JS 6S", "AH 10H KH"], "7C"), 0, rules)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "KS JS 6S", False))
    choice = make_player("hard", rules, 1).choose(deal.view(1), deal.legal_actions(1))
    assert choice == Declare(1, True)
    deal = Deal.start(2, bura_deck(2, 0, ["QS JS 6S", "AH 10H KH"], "7C"), 0, rules)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "QS JS 6S", False))
    choice = make_player("hard", rules, 1).choose(deal.view(1), deal.legal_actions(1))
    assert choice == Declare(1, False)  # 30 known for sure: a false declaration costs 4


def test_a_stop_may_be_let_pass_but_the_seat_to_act_must_act() -> None:
    rules = Rules()
    deal = Deal.start(2, bura_deck(2, 0, ["KH QH 9S", "AC 7S 8D"], "10C", "6D JH"), 0, rules)
    deal.apply(lead(1, "7S"))
    deal.apply(answer(0, "9S", False))
    deal.apply(Declare(1, False))
    assert deal.actors() == (1, 0)
    view = deal.view(0)
    assert view.may_act and view.turn == 1
    options = {
        make_player("random", rules, s).choose(view, deal.legal_actions(0)) for s in range(30)
    }
    assert None in options and Lead(0, deal.hand(0), True) in options


def test_d5_a_sure_playout_never_declares_falsely_and_declares_31() -> None:
    # The strong player's optional playout model of itself (sure_self): it declares
    # exactly when its pile in the sampled world holds 31 or more.
    rules = Rules(molodka="off", discards="open")
    deal = Deal.start(2, bura_deck(2, 0, ["KS JS 6S", "AH 10H KH"], "7C"), 0, rules)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "KS JS 6S", False))  # seat 1's pile: exactly 31
    result = rollout(deal.copy(), sure_seat=1)
    assert (result.outcome, result.by) == ("declared", 1)
    rng = random.Random(4)
    for seed in range(40):
        deal = Deal.start(2, shuffled_deck(seed), 0, Rules())
        if deal.finished:
            continue
        for _ in range(rng.randrange(8)):  # a random position, then playouts from it
            if deal.finished:
                break
            deal.apply(rng.choice(all_actions(deal)))
        if deal.finished:
            continue
        for seat in range(2):
            result = rollout(deal.copy(), sure_seat=seat)
            assert not (result.outcome == "false_declaration" and result.by == seat)


def test_d2_a_single_lead_leans_the_leaders_hand_to_cards_it_would_rather_keep() -> None:
    # Seat 1 leads K♥ alone: with the lean, the two cards it kept are (almost always)
    # ones it values more (trumps, or more points); without it, any unseen cards.
    rules = Rules(molodka="off")
    deal = Deal.start(2, bura_deck(2, 0, ["7S 8S 9D", "KH 6D 7D"], "6C"), 0, rules)
    deal.apply(lead(1, "KH"))
    view = deal.view(0)
    floor = keep_value(Card.parse("KH"), view.trump)
    rng = random.Random(2)
    leaned = [sample_world(view, rules, rng, lead_lean=1e-9).hands[1] for _ in range(60)]
    assert all(keep_value(c, view.trump) >= floor for hand in leaned for c in hand)
    plain = [sample_world(view, rules, rng).hands[1] for _ in range(60)]
    assert any(keep_value(c, view.trump) < floor for hand in plain for c in hand)
    assert all(len(hand) == 2 and Card.parse("KH") not in hand for hand in leaned)
    with pytest.raises(ValueError):
        sample_world(view, rules, rng, lead_lean=0.0)


def test_strong_options_decide_from_the_view_alone() -> None:
    # Any world consistent with the seat's view (other hand, stock, closed discards
    # redealt) gets the same decision from the strong player with every option on.
    rules = Rules()
    rng = random.Random(7)
    checked = 0
    for seed in range(30):
        deal = Deal.start(2, shuffled_deck(100 + seed), 0, rules)
        for _ in range(rng.randrange(1, 10)):
            if deal.finished:
                break
            deal.apply(rng.choice(all_actions(deal)))
        if deal.finished:
            continue
        seat = deal.actors()[0]
        view = deal.view(seat)
        other = sample_world(view, rules, random.Random(seed))
        assert other.view(seat) == view
        player = StrongPlayer(
            rules, 3, worlds=6, sure_self=True, lead_lean=0.05, rank_lean=1.0, last_lean=0.05
        )
        first = player.choose(view, deal.legal_actions(seat))
        assert player.choose(other.view(seat), other.legal_actions(seat)) == first
        checked += 1
    assert checked >= 10


def test_d3_a_discard_under_a_single_card_leans_away_from_cards_that_would_take_it() -> None:
    # Seat 0 lays one card face down under seat 1's 9♥ (R7): with the lean, neither that
    # card nor the two seat 0 held with it is ever a higher heart (it would have beaten
    # for free); without it, some worlds give seat 0 one.
    rules = Rules(molodka="off")
    deal = Deal.start(2, bura_deck(2, 0, ["7S 8S 9D", "9H 6D 7D"], "6C"), 0, rules)
    deal.apply(lead(1, "9H"))
    deal.apply(answer(0, "7S", False))
    view = deal.view(1)
    assert view.phase == "declare" and view.piles[1].closed_under == ((Card.parse("9H"),),)
    higher = {Card.parse(c) for c in ("10H", "JH", "QH", "KH", "AH")}

    def seat0_cards(beater_lean: float) -> list[set[Card]]:
        rng = random.Random(4)
        worlds = [sample_world(view, rules, rng, beater_lean=beater_lean) for _ in range(80)]
        return [{pc.card for pc in w.piles[1] if pc.closed} | set(w.hands[0]) for w in worlds]

    assert all(not cards & higher for cards in seat0_cards(1e-9))
    assert any(cards & higher for cards in seat0_cards(1.0))


def test_a_hand_that_keeps_its_trumps_holds_more_of_them_the_more_it_was_dealt() -> None:
    # trump_weight 0: at the deal an unseen trump is no likelier in the other hand than
    # in the stock (a fresh hand is random); late in the deal, with most of the deck
    # dealt out, it is far likelier than the fixed lean makes it.
    rules = Rules(molodka="off")
    rng = random.Random(3)

    def trumps_in_other_hand(view: View, weight: float) -> float:
        hands = [
            sample_world(view, rules, rng, trump_weight=weight).hands[1 - view.seat]
            for _ in range(300)
        ]
        return sum(c.suit is view.trump for h in hands for c in h) / len(hands)

    deal = Deal.start(2, shuffled_deck(21), 0, rules)
    early = deal.view(deal.actors()[0])
    assert trumps_in_other_hand(early, 0.0) < trumps_in_other_hand(early, 3.0)
    while deal.stock and len(deal.stock) > 6:  # play on without declaring
        moves = [a for a in all_actions(deal) if not (isinstance(a, Declare) and a.declare)]
        deal.apply(moves[0])
        assert not deal.finished
    late = deal.view(deal.actors()[0])
    assert dealt_trump_weight(late) > 3.0
    assert trumps_in_other_hand(late, 0.0) > trumps_in_other_hand(late, 3.0)


def test_d2_a_single_lead_in_the_last_trick_still_leans_the_cards_kept_with_it() -> None:
    # Seat 1 led K♥ alone and seat 0 took it: the two cards seat 1 kept (it has not
    # drawn yet) are, with the lean, ones it values more than K♥; without it, any.
    rules = Rules(molodka="off")
    deal = Deal.start(2, bura_deck(2, 0, ["7S AH 9D", "KH 6D 7D"], "6C"), 0, rules)
    deal.apply(lead(1, "KH"))
    deal.apply(answer(0, "AH", True))
    view = deal.view(0)
    assert view.phase == "declare" and last_trick_leans(view).keys() == {1}
    floor = keep_value(Card.parse("KH"), view.trump)
    rng = random.Random(5)
    leaned = [sample_world(view, rules, rng, last_lean=1e-9).hands[1] for _ in range(60)]
    assert all(keep_value(c, view.trump) >= floor for hand in leaned for c in hand)
    plain = [sample_world(view, rules, rng).hands[1] for _ in range(60)]
    assert any(keep_value(c, view.trump) < floor for hand in plain for c in hand)


def test_r7_a_single_beat_in_the_last_trick_leans_away_from_cheaper_beats() -> None:
    # Seat 1 took seat 0's 9♥ with the trump 6♣: with the lean, the two cards it held
    # with it are never a plain higher heart (a beat that spends no trump); without it,
    # some worlds give it one.
    rules = Rules(molodka="off")
    deal = Deal.start(2, bura_deck(2, 1, ["9H 8S 9D", "6C 6D 7D"], "7C"), 1, rules)
    deal.apply(lead(0, "9H"))
    deal.apply(answer(1, "6C", True))
    view = deal.view(0)
    higher = {Card.parse(c) for c in ("10H", "JH", "QH", "KH", "AH")}
    rng = random.Random(6)
    leaned = [sample_world(view, rules, rng, last_lean=1e-9).hands[1] for _ in range(80)]
    assert all(len(hand) == 2 and not set(hand) & higher for hand in leaned)
    plain = [sample_world(view, rules, rng).hands[1] for _ in range(80)]
    assert any(set(hand) & higher for hand in plain)


def test_plain_cards_in_another_hand_lean_to_high_ranks() -> None:
    # rank_lean 1: an unseen plain ace is likelier in the other hand than a plain six
    # (players lead and discard their low cards and keep the high ones).
    rules = Rules(molodka="off")
    deal = Deal.start(2, shuffled_deck(8), 0, rules)
    view = deal.view(deal.actors()[0])
    rng = random.Random(9)

    def count(rank: Rank, lean: float) -> int:
        hands = [
            sample_world(view, rules, rng, rank_lean=lean).hands[1 - view.seat] for _ in range(400)
        ]
        return sum(c.rank is rank and c.suit is not view.trump for h in hands for c in h)

    assert count(Rank.ACE, 1.0) > 1.5 * count(Rank.SIX, 1.0)


def test_d5_a_seat_that_did_not_declare_rules_out_the_styles_that_would_have() -> None:
    # Seat 1's pile: A♥ 10♥ open (21) and two face-down cards. It could declare when it
    # took them and did not: a style guessing 6 per face-down card (33) would have; a
    # careful one (21) and greedy's (25) would not. While it is still choosing, all are
    # possible.
    rules = Rules()
    deal = Deal.start(2, shuffled_deck(5), 0, rules)
    view = deal.view(0)
    pile = SeenPile(1, (Card.parse("AH"), Card.parse("10H")), (0, 0), ((0, 2),), ((),))
    piles = (view.piles[0], pile)
    seen = dataclasses.replace(view, piles=piles, phase="lead", turn=0)
    assert declaring_styles(seen, rules, 1, (0.0, 2.0, 6.0)) == (0.0, 2.0)
    choosing = dataclasses.replace(view, piles=piles, phase="declare", turn=1)
    assert declaring_styles(choosing, rules, 1, (0.0, 2.0, 6.0)) == (0.0, 2.0, 6.0)
    # None left (it did not declare on 31 open points): every style stays possible.
    rich = SeenPile(1, tuple(Card.parse(c) for c in ("AH", "10H", "AS", "QS")), (), (), ())
    full = dataclasses.replace(view, piles=(view.piles[0], rich), phase="lead", turn=0)
    assert declaring_styles(full, rules, 1, (0.0, 2.0, 6.0)) == (0.0, 2.0, 6.0)


def test_d5_a_sure_declaring_style_declares_on_its_face_down_points() -> None:
    # Seat 0 lays K♠ J♠ 6♠ face down under seat 1's A♥ 10♥ K♥ (D3): seat 1's pile holds
    # 25 open points and 6 face down, 31 in all. Modelled as a style that sees its pile
    # whole, seat 1 declares at once (before anyone draws) and wins.
    rules = Rules(molodka="off")
    deal = Deal.start(2, bura_deck(2, 0, ["KS JS 6S", "AH 10H KH"], "7C"), 0, rules)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "KS JS 6S", False))
    played = deal.copy()
    sure = rollout(played, guesses={1: SURE_STYLE})
    assert (sure.outcome, sure.by) == ("declared", 1)
    assert len(played.stock) == len(deal.stock)
    # Q♠ instead of K♠: 30 in all. Greedy's guess (25 + 2 per card = 31) declares
    # falsely; the sure style does not.
    deal = Deal.start(2, bura_deck(2, 0, ["QS JS 6S", "AH 10H KH"], "7C"), 0, rules)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "QS JS 6S", False))
    greedy_style = rollout(deal.copy(), guesses={1: 2.0})
    assert (greedy_style.outcome, greedy_style.by) == ("false_declaration", 1)
    sure = rollout(deal.copy(), guesses={1: SURE_STYLE})
    assert (sure.outcome, sure.by) != ("false_declaration", 1)


def test_d5_a_seat_that_did_not_declare_on_a_pile_it_holds_31_in_is_no_sure_style() -> None:
    # Seat 0 sees seat 1's pile whole: its own K♠ J♠ 6♠ lie face down under A♥ 10♥ K♥
    # (31). Seat 1 took that trick and did not declare: it is not a seat that sees its
    # pile whole. A careful style (25) stays possible.
    rules = Rules(molodka="off")
    deal = Deal.start(2, bura_deck(2, 0, ["KS JS 6S", "AH 10H KH"], "7C"), 0, rules)
    deal.apply(lead(1, "AH 10H KH"))
    deal.apply(answer(0, "KS JS 6S", False))
    deal.apply(Declare(1, False))
    view = deal.view(0)
    assert declaring_styles(view, rules, 1, (SURE_STYLE, 0.0)) == (0.0,)


@pytest.mark.parametrize(
    ("hand", "trump", "plain", "pair"),
    [
        ("KH 10H 7S", "6C", "7S", "KH 10H"),  # two hearts: led together
        ("7C 9C 8H", "6C", "8H", "7C 9C"),  # two trumps are a pair too
        ("KH 7S 9D", "6C", "7S", None),  # no two of a suit: the least wanted single
    ],
)
def test_d2_lead_pairs_leads_two_cards_of_a_suit_where_greedy_leads_one(
    hand: str, trump: str, plain: str, pair: str | None
) -> None:
    rules = Rules(molodka="off")
    deal = Deal.start(2, bura_deck(2, 0, ["7D 8D 9S", hand], trump), 0, rules)
    sit = Situation.of_deal(deal, 1)
    legal = deal.legal_actions(1)
    assert greedy(sit, legal) == lead(1, plain)
    assert greedy(sit, legal, lead_pairs=True) == lead(1, pair or plain)


def test_d2_hard_models_only_its_own_later_leads_as_pairs() -> None:
    # Hard's playouts lead pairs for its own seat (a stronger rule than greedy's: bench/
    # RESULTS-ai.md, fifth pass) and keep greedy's single leads for the others.
    rules = Rules(molodka="off")
    hands = ["KS 10S 7D", "KH 10H 7S"]  # each seat holds a pair

    def first_lead(pair_leaders: frozenset[int]) -> Lead:
        deal = Deal.start(2, bura_deck(2, 0, hands, "6C"), 0, rules)  # seat 1 leads
        rollout(deal, pair_leaders=pair_leaders)
        return next(a for a in deal.history if isinstance(a, Lead))

    assert first_lead(frozenset()) == lead(1, "7S")
    assert first_lead(frozenset({0})) == lead(1, "7S")
    assert first_lead(frozenset({1})) == lead(1, "KH 10H")
    hard = make_player("hard", rules)
    assert isinstance(hard, StrongPlayer) and hard.self_pairs_up_to == 2  # not at 3 or 4
    normal = make_player("normal", rules)
    assert isinstance(normal, StrongPlayer) and not normal.self_pairs_up_to


@pytest.mark.parametrize("players", [2, 3])
def test_greedy_decides_alike_from_a_deal_and_from_the_seats_view(players: int) -> None:
    # The playouts build the greedy rule's situation from the simulated deal, taking its
    # sums only in the phases that read them (answering R7, declaring D5); a real
    # decision builds it from the seat's view. Both must give the same move everywhere.
    rules = Rules()
    rng = random.Random(players)
    checked: set[str] = set()
    for seed in range(60):
        deal = Deal.start(players, shuffled_deck(500 + seed), 0, rules)
        while not deal.finished:
            for seat in deal.actors():
                legal = canonical(deal.legal_actions(seat))
                from_deal = greedy(Situation.of_deal(deal, seat), legal, lead_pairs=True)
                sit = Situation.of_view(deal.view(seat), rules)
                from_view = greedy(sit, legal, lead_pairs=True)
                assert from_deal == from_view
                checked.add(deal.phase)
            deal.apply(rng.choice(all_actions(deal)))
    assert {"lead", "answer", "declare"} <= checked
