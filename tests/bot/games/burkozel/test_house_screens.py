"""What Burkozel's house rules add to the screens, rendered from real deals:
C1-C4 buttons only while legal and parsed back to the engine's move, auto-play never
takes them for a human, B5 pairs and partners (in the lobby too), B4 credits, B1 face-down
discards."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.games.base import ForgedAction
from bot.games.burkozel.game import BURKOZEL_BOT
from bot.games.burkozel.keyboard import hand_keyboard
from bot.games.burkozel.screens import hand_text, table_text
from bot.i18n import plain, texts
from bot.views.lobby import lobby_text
from engine import parse_cards, shuffled_deck
from engine.burkozel import Action, Rules, Series
from engine.burkozel.scoring import sides
from tests.support.burkozel import after_first_trick, build_deck, move, shown_series
from tests.support.game_record import game_of

ON = Rules(combinations="on")
PLAIN0 = ["7S", "8D", "9D", "9H"]
T = texts("en")


def labels(markup: dict[str, object] | None) -> list[tuple[str, str]]:
    """The action buttons under the cards (not the «➕ Several cards» switch)."""
    assert markup is not None
    rows = markup["inline_keyboard"]
    assert isinstance(rows, list)
    buttons = [(b["text"], b["callback_data"]) for row in rows[1:] for b in row]
    return [(text, data) for text, data in buttons if not data.endswith(":+")]


def test_c1_show_button_only_for_the_holder_on_their_turn_and_parsed_to_the_show() -> None:
    deal = after_first_trick([["AC", "KC", "QC", "JC"], PLAIN0], "6C", ON)
    game = game_of(2, {"combinations": "on"})
    assert labels(hand_keyboard(T, game, deal, 0, [])) == [("🃏 Show бура", "p:7:3:s:")]
    assert labels(hand_keyboard(T, game, deal, 1, [])) == []
    assert BURKOZEL_BOT.parse_action(deal, 0, "s", ()) == Action(0, (), show="bura")
    with pytest.raises(ForgedAction):
        BURKOZEL_BOT.parse_action(deal, 1, "s", ())  # nothing to show: forged
    # Auto-play for a human never shows (the timer ran out: an ordinary lead).
    series = Series(2, ON)
    series.deals.append(deal)
    assert BURKOZEL_BOT.stand_in_action(series, 0).show is None
    assert BURKOZEL_BOT.computer_action("easy", 1, series, 0).show == "bura"  # a computer does


def test_c3_stop_button_for_the_stopper_off_turn_and_its_lead_out_of_turn() -> None:
    molodka = ["6H", "7H", "10H", "AH"]
    deal = after_first_trick([PLAIN0, molodka], "6C", ON)
    game = game_of(2, {"combinations": "on"})
    ((label, data),) = labels(hand_keyboard(T, game, deal, 1, []))
    assert label.startswith("✋ Stop! I lead") and data == "p:7:3:o:6H.7H.10H.AH"
    stop = BURKOZEL_BOT.parse_action(deal, 1, "o", parse_cards(molodka))
    assert stop == Action(1, parse_cards(molodka), stop=True)
    with pytest.raises(ValueError):  # not the whole hand
        BURKOZEL_BOT.parse_action(deal, 1, "o", parse_cards(molodka[:3]))
    series = Series(2, ON)
    series.deals.append(deal)
    assert BURKOZEL_BOT.computer_action("hard", 1, series, 1).stop  # a computer stopper takes it
    deal.apply(stop)
    assert hand_keyboard(T, game, deal, 1, []) is None  # all four led: no button left


def test_b5_pairs_table_shows_the_teams_and_each_hand_its_partner() -> None:
    rules = Rules(teams="pairs")
    series = Series(4, rules)
    deal = series.start_deal(shuffled_deck(seed=5))
    game = game_of(4, {"teams": "pairs"})
    table = plain(table_text(T, game, series, turn_seconds=None))
    assert "👥 Pair 1: P0 <&> & P2 <&> — 0" in table and "👥 Pair 2: P1 <&> & P3 <&>" in table
    hand = plain(hand_text(T, game, "G", deal, 1, deal_number=1, turn_seconds=None))
    assert "Your partner: P3 <&>" in hand


def test_b5_the_lobby_shows_the_pairs_as_seats_fill_and_they_are_the_games_pairs() -> None:
    """A 2×2 lobby said nothing of who plays with whom until Start. As seats
    fill it shows both pairs (a free seat as such); once full they are the pairs the
    table shows after Start and the engine scores together (B5: seats 0+2 and 1+3)."""
    full = game_of(4, {"teams": "pairs"})
    for language, free in (("en", "(free)"), ("ru", "(свободно)")):
        t = texts(language)
        lobby = plain(lobby_text(t, replace(full, seats=full.seats[:1]), BURKOZEL_BOT))
        assert f"1. P0 <&> & 3. {free}" in lobby and f"2. {free} & 4. {free}" in lobby
        lobby = plain(lobby_text(t, replace(full, seats=full.seats[:3]), BURKOZEL_BOT))
        assert "1. P0 <&> & 3. P2 <&>" in lobby and f"2. P1 <&> & 4. {free}" in lobby
    lobby = plain(lobby_text(T, full, BURKOZEL_BOT)).splitlines()
    shown = [line for line in lobby if line.startswith("👥 Pair")]
    assert shown == ["👥 Pair 1: 1. P0 <&> & 3. P2 <&>", "👥 Pair 2: 2. P1 <&> & 4. P3 <&>"]
    # Nor does it say two players may start: pairs play four (Start refuses fewer, B5).
    assert "any player can start once there are four" in "\n".join(lobby)
    assert "once there are two" not in "\n".join(lobby)
    # After Start (the same seats, in the same order): the table's pairs and the scoring's.
    series = Series(4, Rules(teams="pairs"))
    series.start_deal(shuffled_deck(seed=5))
    table = plain(table_text(T, full, series, turn_seconds=None))
    assert "👥 Pair 1: P0 <&> & P2 <&> — 0" in table and "👥 Pair 2: P1 <&> & P3 <&> — 0" in table
    assert sides(series.rules, range(4)) == [(0, 2), (1, 3)]
    # Without pairs the lobby lists the seats as ever, no pairs.
    solo = plain(lobby_text(T, game_of(4), BURKOZEL_BOT))
    assert "Pair" not in solo and "4. P3 <&>" in solo and "once there are two" in solo


def test_b4_credits_are_named_and_a_doubled_deal_announced() -> None:
    rules = Rules(scoring="winner_takes")
    series = Series(2, rules)
    deal = series.start_deal(shuffled_deck(seed=3))
    while not deal.finished:
        series.apply(deal.legal_actions()[0])
    game = game_of(2, {"scoring": "winner_takes"})
    assert "credits +" in plain(BURKOZEL_BOT.deal_end_text(T, game, series, 0))
    series.start_deal(shuffled_deck(seed=4))
    table = plain(table_text(T, game, series, turn_seconds=None))
    assert "credits" in table
    assert ("Credits count double" in table) == series.results[0].tied


def test_b1_the_group_table_shows_closed_discards_face_down() -> None:
    rules = Rules(discards="closed")
    series = Series(2, rules)
    deal = series.start_deal(shuffled_deck(seed=9))
    lead = deal.legal_actions()[0]
    series.apply(lead)
    discard = next(m for m in deal.legal_actions() if m.beat is False)
    series.apply(discard)
    table = table_text(T, game_of(2, {"discards": "closed"}), series, turn_seconds=None)
    assert "🂠" in table
    assert all(card.pretty() not in table for card in discard.cards)


def test_c1_a_show_is_told_in_the_deals_result_and_the_next_hands_with_its_cards() -> None:
    """The result named nobody; it says who showed бура and its cards,
    and the next deal's hands say how the deal before ended (until its first lead)."""
    series = shown_series([PLAIN0, ["AC", "KC", "QC", "JC"]])
    game = game_of(2, {"combinations": "on"})
    wins = {
        "en": "🃏 P1 <&>: бура! J♣★ Q♣★ K♣★ A♣★ — wins the deal.",
        "ru": "🃏 P1 <&>: бура! J♣★ Q♣★ K♣★ A♣★ — сдача выиграна.",
    }
    for lang, line in wins.items():
        result = plain(BURKOZEL_BOT.deal_end_text(texts(lang), game, series, 0)).splitlines()
        assert result[1] == line  # right under «Deal 1 is over», above the penalties
    series.start_deal(shuffled_deck(seed=3))
    for lang, line in wins.items():
        for seat in (0, 1):
            hand = plain(
                BURKOZEL_BOT.hand_text(texts(lang), game, "G", series, seat, turn_seconds=None)
            )
            ended = "Deal 1 ended with a show:" if lang == "en" else "Сдача 1 окончена показом:"
            assert f"{ended}\n{line}\n" in hand
    deal = series.deals[-1]
    series.apply(deal.legal_actions()[0])  # the new deal's first lead: the old show is gone
    hand = plain(BURKOZEL_BOT.hand_text(T, game, "G", series, 0, turn_seconds=None))
    assert "бура!" not in hand and "Deal 1" not in hand


def test_c2_moscow_held_elsewhere_beats_the_shown_bura_and_both_are_told() -> None:
    """Part C "Precisely": a show makes every бура and Москва count at once; the result
    names the one who showed, the Москва that beat it (cards and all) and its holder."""
    moscow = ["AS", "AD", "AH", "AC"]
    series = shown_series([PLAIN0, ["KC", "QC", "JC", "10C"], moscow])
    game = game_of(3, {"combinations": "on"})
    result = plain(BURKOZEL_BOT.deal_end_text(T, game, series, 0)).splitlines()
    assert result[1:4] == [
        "🃏 P1 <&>: бура! J♣★ Q♣★ K♣★ 10♣★",
        "🃏 P2 <&>: Москва! A♠ A♥ A♦ A♣★",
        "P2 <&>: the higher combination — wins the deal.",
    ]
    ru = plain(BURKOZEL_BOT.deal_end_text(texts("ru"), game, series, 0))
    assert "P2 <&>: старшая комбинация — сдача выиграна." in ru
    assert series.results[0].penalties == (6, 6, 0)  # C2: Москва's holder won


def test_b1_a_trick_with_face_down_cards_says_they_are_not_counted_yet() -> None:
    """Under B1 "Trick to P0, 0 pts:" counted only the open cards while the
    ace discarded face down carried 11. Whoever cannot see a closed card in the trick is
    told its points are not counted yet; its owner, who sees it, gets the full count."""
    rules = Rules(discards="closed")
    series = Series(2, rules, first_dealer=1)
    hands = [["7S", "8D", "9D", "9H"], ["AH", "10H", "KS", "QD"]]
    series.start_deal(build_deck(2, 1, hands, "6C"))
    series.apply(move(0, "7S"))  # seat 0 leads (R4)
    series.apply(move(1, "AH", beat=False))  # the ace face down (B1): 11 points
    deal = series.deals[-1]
    game = game_of(2, {"discards": "closed"})
    table = plain(table_text(T, game, series, turn_seconds=None))
    leader = plain(hand_text(T, game, "G", deal, 0, deal_number=1, turn_seconds=None))
    for screen in (table, leader):
        assert "Trick to P0 <&>, 0 pts:" not in screen
        assert "Trick to P0 <&>: 0 pts in open cards, 🂠 not counted until the deal ends" in (screen)
    owner = plain(hand_text(T, game, "G", deal, 1, deal_number=1, turn_seconds=None))
    assert "Trick to P0 <&>, 11 pts:" in owner and "not counted" not in owner
    ru = plain(table_text(texts("ru"), game, series, turn_seconds=None))
    assert "Взятка — P0 <&>: в открытых картах 0 очк., 🂠 посчитают в конце сдачи" in ru
    # An open trick (a beat) keeps the plain count.
    series.apply(move(0, "8D"))
    series.apply(move(1, "QD", beat=True))
    table = plain(table_text(T, game, series, turn_seconds=None))
    assert "Trick to P1 <&>, 3 pts:" in table


def test_b1_a_table_read_by_one_player_alone_shows_that_players_closed_discards() -> None:
    # A game in the private chat: its reader laid the ace face down and is shown it (as
    # on its hand's screen) with the trick's full count; anyone else sees 🂠.
    rules = Rules(discards="closed")
    series = Series(2, rules, first_dealer=1)
    hands = [["7S", "8D", "9D", "9H"], ["AH", "10H", "KS", "QD"]]
    series.start_deal(build_deck(2, 1, hands, "6C"))
    series.apply(move(0, "7S"))
    series.apply(move(1, "AH", beat=False))
    game = game_of(2, {"discards": "closed"})
    mine = plain(table_text(T, game, series, turn_seconds=None, viewer=1))
    assert "Trick to P0 <&>, 11 pts:" in mine and "A♥" in mine
    theirs = plain(table_text(T, game, series, turn_seconds=None, viewer=0))
    assert "A♥" not in theirs and "🂠" in theirs
