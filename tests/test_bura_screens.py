"""What Bura's screens show of a trick once it is taken (issue 9 bug 2 for Part D): the
whole trick stays on the group table and in every hand until the next lead, with who took
it; a closed discard (D3) stays face down to all but its owner; no points (D3)."""

from __future__ import annotations

from bot.games.bura import hand_text, table_text
from bot.i18n import plain, texts
from engine.bura.actions import Declare
from engine.bura.rules import BuraRules
from engine.bura.series import BuraSeries
from tests.bura_support import answer, bura_deck, lead
from tests.test_burkozel_house_screens import game_of

T = {lang: texts(lang) for lang in ("en", "ru")}


def screens(series: BuraSeries, lang: str = "en") -> tuple[str, list[str]]:
    game = game_of(3)
    table = plain(table_text(T[lang], game, series, turn_seconds=None))
    hands = [
        plain(hand_text(T[lang], game, "Group", series, seat, turn_seconds=None))
        for seat in range(3)
    ]
    return table, hands


def taken_trick() -> BuraSeries:
    """Seat 1 leads 7♠, seat 2 beats with 10♠, seat 0 discards 9♥ face down: seat 2 takes."""
    series = BuraSeries(3, BuraRules(discards="closed"), first_dealer=0)
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
