"""What Bura's screens show of a trick once it is taken (Part D): the
whole trick stays on the group table and in every hand until the next lead, with who took
it; a closed discard (D3) stays face down to all but its owner; no points (D3)."""

from __future__ import annotations

from bot.games.bura.game import BURA_BOT
from bot.games.bura.screens import hand_text, table_text
from bot.i18n import plain, texts
from engine.bura.actions import Declare, Show
from engine.bura.rules import Rules
from engine.bura.series import Series
from tests.support.bura import answer, bura_deck, lead
from tests.support.game_record import game_of

T = {lang: texts(lang) for lang in ("en", "ru")}


def screens(series: Series, lang: str = "en") -> tuple[str, list[str]]:
    game = game_of(3)
    table = plain(table_text(T[lang], game, series, turn_seconds=None))
    hands = [
        plain(hand_text(T[lang], game, "Group", series, seat, turn_seconds=None))
        for seat in range(3)
    ]
    return table, hands


def taken_trick() -> Series:
    """Seat 1 leads 7♠, seat 2 beats with 10♠, seat 0 discards 9♥ face down: seat 2 takes."""
    series = Series(3, Rules(discards="closed"), first_dealer=0)
    deck = bura_deck(3, 0, ["8C 9H KC", "7S 8H 9C", "10S JH QC"], trump="6D")
    series.start_deal(deck, dealer=0)
    for action in (lead(1, "7S"), answer(2, "10S", True), answer(0, "9H", False)):
        series.apply(action)
    return series


def test_d3_r8_the_taken_trick_stays_on_every_screen_until_the_next_lead() -> None:
    series = taken_trick()
    table, hands = screens(series)
    for screen in (table, *hands):
        assert "Trick to P2 <&>:" in screen
        assert "P1 <&>: leads 7♠" in screen and "P2 <&>: beats 10♠ 👑" in screen
        assert "pts" not in screen  # D3: nobody is shown a running point total
    for screen in (table, hands[1], hands[2]):
        assert "P0 <&>: discards 🂠" in screen and "9♥" not in screen  # D3: face down
    assert "P0 <&>: discards 9♥ (🂠)" in hands[0]  # its owner still sees it

    ru_table, _ = screens(series, "ru")
    assert "Взятка — P2 <&>:" in ru_table and "9♥" not in ru_table

    series.apply(Declare(2, False))  # no declaration: everyone draws (D4)
    table, hands = screens(series)
    assert all("Trick to P2 <&>:" in screen for screen in (table, *hands))

    deal = series.deals[-1]
    next_lead = next(a for a in deal.legal_actions(2) if type(a).__name__ == "Lead")
    series.apply(next_lead)
    table, hands = screens(series)
    assert all("Trick to" not in screen for screen in (table, *hands))
    assert "10♠" not in table and "Your tricks: 7♠ 10♠" in hands[2]  # D3: the taker's pile


def test_d6_d8_a_show_names_who_showed_whose_combination_won_and_their_cards() -> None:
    """Bura's side: «X: бура!» named only the winner, without cards;
    seat 1 shows its бура, seat 0's Москва counts at once and beats it (D8)."""
    rules = Rules(molodka="off", moscow="on")
    series = Series(2, rules, first_dealer=0)
    series.start_deal(bura_deck(2, 0, ["AS AD 8S", "KC QC 7H"], "6C", stock="JC AH"), dealer=0)
    for action in (lead(1, "7H"), answer(0, "8S", False), Show(1, "bura")):
        series.apply(action)  # seat 1 draws J♣ (бура), seat 0 A♥ (Москва)
    game = game_of(2)
    told = plain(BURA_BOT.deal_end_text(T["en"], game, series, 0)).splitlines()
    assert told[1:4] == [
        "🃏 P1 <&>: бура! J♣★ Q♣★ K♣★",
        "🃏 P0 <&>: Москва! A♠ A♥ A♦",
        "P0 <&>: the higher combination — wins the deal.",
    ]
    ru = plain(BURA_BOT.deal_end_text(T["ru"], game, series, 0))
    assert "P0 <&>: старшая комбинация — сдача выиграна." in ru


def test_d6_a_lone_show_wins_in_one_line_with_its_cards() -> None:
    series = Series(2, Rules(), first_dealer=0)
    series.start_deal(bura_deck(2, 0, ["8S 9D 10D", "AC KC 7H"], "6C", stock="QC JD"), dealer=0)
    for action in (lead(1, "7H"), answer(0, "8S", False), Declare(1, False), Show(1, "bura")):
        series.apply(action)
    game = game_of(2)
    assert plain(BURA_BOT.deal_end_text(T["en"], game, series, 0)).splitlines()[1] == (
        "🃏 P1 <&>: бура! Q♣★ K♣★ A♣★ — wins the deal."
    )
    assert plain(BURA_BOT.deal_end_text(T["ru"], game, series, 0)).splitlines()[1] == (
        "🃏 P1 <&>: бура! Q♣★ K♣★ A♣★ — сдача выиграна."
    )


def test_d9_a_re_deal_names_each_dealt_combination_its_holder_and_its_cards() -> None:
    """«Re-deal: a combination was dealt» said neither which nor whose;
    the deal is void, so its combinations are shown to all (from the first hand dealt)."""
    series = Series(3, Rules(moscow="on"), first_dealer=0)
    deck = bura_deck(3, 0, ["6S 6H 6D", "7C 8C 9C", "KH AS 10D"], trump="QD")
    series.start_deal(deck, dealer=0)
    assert series.results[0].outcome == "void"
    game = game_of(3)
    told = plain(BURA_BOT.deal_end_text(T["en"], game, series, 0)).splitlines()
    assert told[1:] == [
        "Re-deal: a combination was dealt, the deal does not count.",
        "🃏 P1 <&> — молодка: 7♣ 8♣ 9♣",
        "🃏 P0 <&> — малая Москва: 6♠ 6♥ 6♦★",
    ]
    ru = plain(BURA_BOT.deal_end_text(T["ru"], game, series, 0)).splitlines()
    assert ru[1:] == [
        "Пересдача: на раздаче комбинация, сдача не в счёт.",
        "🃏 P1 <&> — молодка: 7♣ 8♣ 9♣",
        "🃏 P0 <&> — малая Москва: 6♠ 6♥ 6♦★",
    ]


def test_d3_a_table_read_by_one_player_alone_shows_that_players_closed_discards() -> None:
    # A game in the private chat: its one reader discarded 9♥ face down and saw it face
    # down on its own record of the deal («P0: discards 🂠»); the others' stay hidden.
    series = taken_trick()
    game = game_of(3)
    mine = plain(table_text(T["en"], game, series, turn_seconds=None, viewer=0))
    assert "P0 <&>: discards 9♥ (🂠)" in mine
    theirs = plain(table_text(T["en"], game, series, turn_seconds=None, viewer=1))
    assert "P0 <&>: discards 🂠" in theirs and "9♥" not in theirs
