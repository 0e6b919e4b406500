"""Every text the bot sends is HTML Telegram accepts, whatever people typed.

Telegram refuses a whole message whose HTML does not parse ("can't parse entities"), so a
group title like "Пики & Трефы <3" put into a template unescaped silently loses the
message. The text layer escapes every value itself; these tests render every template
and every screen with hostile names and titles and parse them as Telegram would.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import replace

import pytest

from bot.chat_settings import ChatSettings, apply_preset, presets
from bot.games import GAMES, bot_game
from bot.games.burkozel import keyboard as burkozel_keyboard
from bot.games.burkozel import screens as burkozel_screens
from bot.games.burkozel.game import BURKOZEL_BOT
from bot.games.burkozel.keyboard import card_plays
from bot.games.taps import listed_plays
from bot.i18n import LANGUAGES, catalog_keys, plain, texts
from bot.views import render
from bot.views.lobby import lobby_text
from bot.views.settings import Customs, lobby_rules_line, menu_keyboard, menu_text, rules_lines
from engine import shuffled_deck
from engine.burkozel import Action, Series
from engine.registry import GAMES as ENGINE_GAMES
from engine.tricks import covers
from storage import Deadline, Game, Seat
from tests.support.fake_telegram.text import parse_html

HOSTILE = [
    "<b>Аня & Co</b> 😀",
    "Пики & Трефы <3 🃏",
    "&amp; &lt;",
    "a < b > c",
    "\"quoted\" 'single'",
    "\u202eRTL\u200f mark \u202c",
    "</i><i>",
    "X" * 64 + " " + "Я" * 64,  # Telegram allows first + last name of 64 each
]
MAX_TEXT = 4096  # Telegram's limit on a message text after entity parsing


def placeholders(template: str) -> set[str]:
    return set(re.findall(r"{(\w+)}", template))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("value", HOSTILE)
def test_every_template_stays_valid_html_with_hostile_values(language: str, value: str) -> None:
    t = texts(language)
    for key in sorted(catalog_keys(language)):
        fields = placeholders(t(key))
        rendered = t(key, **dict.fromkeys(fields, value))
        shown, _ = parse_html(rendered)  # raises as Telegram would refuse the message
        if fields:
            assert value in shown, (key, shown)
        # Pop-ups are plain text: the value as typed, no tags or entities around it.
        alert = t.alert(key, **dict.fromkeys(fields, value))
        if fields:
            assert value in alert, (key, alert)
        rest = alert.replace(value, "")
        assert not any(mark in rest for mark in ("<b>", "&lt;", "&amp;")), (key, alert)


def hostile_game(players: int, rng: random.Random) -> tuple[Game, Series]:
    seats = tuple(
        Seat(i, 100 + i, None, HOSTILE[(i * 3) % len(HOSTILE)], away=i == 1) for i in range(players)
    )
    game = Game(
        id=7,
        chat_id=-100,
        thread_id=None,
        status="playing",
        rules={},
        version=3,
        seats=seats,
        created_by=100,
        created_at=0.0,
        first_dealer=0,
        deadline=Deadline(0, 600.0, 400.0),
        lobby_expires_at=None,
        winners=None,
    )
    series = Series(players, first_dealer=0)
    series.start_deal(shuffled_deck(rng=rng))
    return game, series


def screens(language: str, game: Game, series: Series, title: str) -> list[str]:
    t = texts(language)
    deal = series.deals[-1]
    out = [
        lobby_text(t, game, bot_game(game.rules)),
        render.lobby_closed_text(t, game, "cancelled"),
        burkozel_screens.table_text(t, game, series, turn_seconds=600),
        render.final_table_text(t, game, series, "finished"),
        render.hand_over_text(t, title, "finished"),
        render.series_end_text(t, game, series.totals, [0, 1]),
    ]
    for seat in game.seats:
        out.append(
            burkozel_screens.hand_text(
                t, game, title, deal, seat.seat, deal_number=len(series.deals), turn_seconds=60
            )
        )
    if series.results:
        out.append(burkozel_screens.deal_end_text(t, game, 1, series.results[-1], series.totals))
    return out


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_screen_shows_hostile_names_and_titles_literally(language: str, players: int) -> None:
    rng = random.Random(players)
    game, series = hostile_game(players, rng)
    title = "Пики & Трефы <3 🃏 <b>"
    names = [s.name for s in game.seats]
    for _ in range(200):  # through tricks, a finished deal and the next one
        for text in screens(language, game, series, title):
            shown, _ = parse_html(text)
            assert len(shown.encode("utf-16-le")) // 2 <= MAX_TEXT
            rest = shown.replace("&amp; &lt;", "")
            assert "&lt;" not in rest and "&amp;" not in rest, shown
        deal = series.current
        if deal is None or series.finished:
            break
        if deal.finished:
            series.start_deal(shuffled_deck(rng=rng))
            continue
        series.apply(rng.choice(deal.legal_actions()))
    table = parse_html(burkozel_screens.table_text(texts(language), game, series, turn_seconds=5))[
        0
    ]
    assert all(name in table for name in names), table


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_tap_plays_a_card_alone_and_the_choice_button_reaches_every_other_move(
    players: int,
) -> None:
    """A tap on a card plays it at once: led alone (R6), or answering one card,
    a beat where it covers the claim and a discard where it cannot (R7). Leads of several
    cards of one suit (R6), and beats with several cards (R7), are listed as buttons of
    their own when there are at most four, discards of several when at most six (the
    cheapest first: fewest trumps, then fewest points).
    «➕ Several cards» / «🗑 Discard, don't beat» is shown exactly when some legal move is
    out of reach of one tap: more than four leads of several cards, or a card that could
    beat but is to be discarded."""
    rng = random.Random(players)
    series = Series(players, first_dealer=0)
    series.start_deal(shuffled_deck(rng=rng))
    checked = 0
    while not series.finished and checked < 400:
        deal = series.deals[-1]
        if deal.finished:
            series.start_deal(shuffled_deck(rng=rng))
            continue
        seat = deal.turn
        assert seat is not None
        view = deal.view(seat)
        for card in view.hand:
            move = burkozel_keyboard.one_tap_move(deal, seat, card)
            if not view.table:
                assert move == Action(seat, (card,)), (card, view.hand)
            elif len(view.table[0].cards) == 1:
                claim = next(p.cards for p in view.table if p.seat == view.claimant)
                assert move == Action(seat, (card,), covers((card,), claim, view.trump))
            else:
                assert move is None  # several cards to answer with: always a choice
            for other in range(players):
                if other != seat:
                    assert burkozel_keyboard.one_tap_move(deal, other, card) is None
            checked += 1
        listed = {(tuple(sorted(m.cards)), m.beat) for m in listed_plays(card_plays(deal, seat))}
        if not view.table:
            most = min(3, min(view.hand_sizes))
            several = {
                group
                for size in range(2, most + 1)
                for group in itertools.combinations(sorted(view.hand), size)
                if len({c.suit for c in group}) == 1
            }
            assert listed == {(g, None) for g in (several if len(several) <= 4 else ())}
            assert BURKOZEL_BOT.offers_pick(deal, seat) == (len(several) > 4), view.hand
        elif len(view.table[0].cards) == 1:
            claim = next(p.cards for p in view.table if p.seat == view.claimant)
            beater = any(covers((c,), claim, view.trump) for c in view.hand)
            assert not listed
            assert BURKOZEL_BOT.offers_pick(deal, seat) == beater, (view.hand, claim)
        else:
            claim = next(p.cards for p in view.table if p.seat == view.claimant)
            beats = {
                group
                for group in itertools.combinations(sorted(view.hand), len(claim))
                if covers(group, claim, view.trump)
            }
            discards = set(itertools.combinations(sorted(view.hand), len(claim)))
            assert listed == {(g, True) for g in (beats if len(beats) <= 4 else ())} | {
                (g, False) for g in (discards if len(discards) <= 6 else ())
            }, (view.hand, claim)
            # The cheapest discard first: fewest trumps, then fewest points.
            shown = listed_plays(card_plays(deal, seat), view.trump)
            costs = [
                (sum(c.suit is view.trump for c in m.cards), sum(c.points for c in m.cards))
                for m in shown
                if m.beat is False
            ]
            assert costs == sorted(costs), (view.hand, costs)
            assert not BURKOZEL_BOT.offers_pick(deal, seat)
        series.apply(rng.choice(deal.legal_actions()))
    assert checked > 50


def test_r8_the_last_trick_of_the_deal_before_marks_that_deals_trumps() -> None:
    """R8: the previous deal's last trick stays on screen until the next lead; its ★ must
    mark the trumps of the deal it was played in, not the new deal's."""
    rng = random.Random(11)
    for _ in range(200):
        game, series = hostile_game(2, rng)
        first = series.deals[-1]
        while not first.finished:
            series.apply(first.legal_actions()[0])
        second = series.start_deal(shuffled_deck(rng=rng))
        if second.trump != first.trump:
            break
    else:
        pytest.fail("no two deals with different trumps in 200 tries")
    table = plain(burkozel_screens.table_text(texts("en"), game, series, turn_seconds=60))
    last = first.last_trick
    assert last is not None
    for play in last.plays:
        for card in play.cards:
            assert render.card_text(card, first.trump) in table
            if card.suit == second.trump and card != second.trump_card:
                assert render.card_text(card, second.trump) not in table


FINISHED_TRICK = re.compile(r"^(Trick to |Last trick of deal )")


def finished_trick_shown(hand: str) -> str | None:
    """The finished trick a hand shows (its header and plays), None if it shows none."""
    lines = hand.splitlines()
    start = next((i for i, line in enumerate(lines) if FINISHED_TRICK.match(line)), None)
    if start is None:
        return None
    plays = itertools.takewhile(lambda line: line.startswith("  "), lines[start + 1 :])
    return "\n".join([lines[start], *plays])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_r8_a_hand_showing_a_finished_trick_is_a_milestone_of_that_trick(name: str) -> None:
    """A hand's edit that shows a finished trick must not be coalesced into a
    later edit that no longer shows it. ``trick_shown`` is the milestone: set exactly when
    the hand shows a finished trick, the same for every state showing that trick, and
    different for another trick (over random play of five deals at 3 players)."""
    ui, t, rng = GAMES[name], texts("en"), random.Random(27)
    game = hostile_game(3, rng)[0]
    series = ui.new_series(3, {}, 0)
    seen: dict[str, str] = {}  # seat and milestone -> the trick shown under it
    named: dict[str, str] = {}  # seat and trick shown -> its milestone
    while len(series.deals) <= 5 and not series.finished:
        deal = series.current_deal() if name == "bura" else series.current
        if deal is None:
            deal = series.start_deal(shuffled_deck(rng=rng))
            continue
        for seat in range(3):
            hand = plain(ui.hand_text(t, game, "Group", series, seat, turn_seconds=None))
            shown, milestone = finished_trick_shown(hand), ui.trick_shown(series)
            assert (shown is None) == (milestone is None), (hand, milestone)
            if shown is not None and milestone is not None:
                key = f"{seat} {milestone}"  # a closed discard (D3) shows to its owner
                assert seen.setdefault(key, shown) == shown, (key, seen[key], shown)
                assert named.setdefault(f"{seat} {shown}", key) == key, (shown, key)
        actor = rng.choice(deal.actors())
        legal = deal.legal_actions(actor)
        series.apply(rng.choice(legal))
    assert len({key.split()[1] for key in seen}) >= 6, seen.keys()  # tricks of several deals


RULE_ID = re.compile(r"\b[RBCD]\d{1,2}\b")  # a RULES.md id: R8, B5, C3, D11


def lobby_of(rules: dict[str, object]) -> Game:
    game, _ = hostile_game(2, random.Random(1))
    return replace(game, status="lobby", rules=rules)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lobby_says_what_each_changed_rule_does_in_words_and_its_id_after(
    language: str,
) -> None:
    """The lobby listed the rules that differ from the base by id ("Rules: D11
    on"), which players do not know. Each switch away from its base is named in words,
    its value too, with a few words on what it does; the id follows for RULES.md readers."""
    t = texts(language)
    for game, engine_game in ENGINE_GAMES.items():
        for name, values in engine_game.switches.items():
            for value in values[1:]:  # the base value is first
                rules = {**({"game": game} if game == "bura" else {}), name: value}
                lobby = plain(
                    lobby_text(
                        t,
                        lobby_of(rules),
                        bot_game(lobby_of(rules).rules),
                        lobby_rules_line(t, rules),
                    )
                )
                (line,) = [line for line in lobby.splitlines() if RULE_ID.search(line)]
                words = plain(t(f"rule.{game}.{name}")) + ": "
                words += plain(t(f"rule.{game}.{name}.{value}")) + " — "
                assert line.startswith("• " + words), line
                gist = line.removeprefix("• " + words).removesuffix(
                    f" ({ENGINE_GAMES[game].rule_ids[name]})"
                )
                assert len(gist) > 8 and not RULE_ID.search(gist), line
    dave = {"game": "bura", "dave": "on"}
    home = dict(presets()["home_burkozel"][1])
    if language == "ru":
        shown = plain(
            lobby_text(t, lobby_of(dave), bot_game(lobby_of(dave).rules), lobby_rules_line(t, dave))
        )
        assert "Правила:\n• Даве: есть — удвоение ставки, вдвоём (D11)\n" in shown
    else:
        shown = plain(
            lobby_text(t, lobby_of(home), bot_game(lobby_of(home).rules), lobby_rules_line(t, home))
        )
        assert (
            "Rules:\n• Discards: closed — only their owner sees them (B1)\n"
            "• Lead: up to 4 — of one suit, from the second trick (B2)\n"
            "• Combinations: on — бура, Москва, молодка, four aces-or-tens (B6)\n"
        ) in shown
        assert "Rules: the base game" in plain(lobby_rules_line(t, {}) or "")


@pytest.mark.parametrize("language", LANGUAGES)
def test_settings_and_rules_name_each_switch_in_words_and_its_id_only_after(
    language: str,
) -> None:
    """The /settings hints showed "(R8)" and every switch started with its id
    ("B1 Discards: open"). Each line now starts with the switch's name in words and ends
    with its own id (/rules alike); the buttons, which cannot have small print, show none."""
    t = texts(language)
    customs = Customs(language, True, 600.0, "normal", 3)
    for preset in presets():
        settings = apply_preset(ChatSettings(), preset)
        game = settings.game
        menu = plain(menu_text(t, settings, title="<&> 🃏", lobby=False, customs=customs))
        assert RULE_ID.findall(menu) == list(ENGINE_GAMES[game].rule_ids.values()), menu
        for name, rule_id in ENGINE_GAMES[game].rule_ids.items():
            (line,) = [line for line in menu.splitlines() if rule_id in line]
            assert line.startswith(plain(t(f"rule.{game}.{name}")) + ": "), line
            assert line.endswith(f"({rule_id})"), line
        shown = [plain(line) for line in rules_lines(t, game, settings.rules())]
        assert shown == [line for line in menu.splitlines() if RULE_ID.search(line)]
        labels = [
            b["text"]
            for row in menu_keyboard(t, settings, game_id=0, customs=customs)["inline_keyboard"]
            for b in row
        ]
        assert not any(RULE_ID.search(label) for label in labels), labels
