"""Bura's draw after a trick comes by itself: a player who does not
declare (D5) taps nothing. It comes at once where the taker cannot know a declaration
to have a chance; else after a short pause in which «Вскрываюсь» stays offered, timer or
no timer, scheduled as a stored deadline (a restart keeps it). The move is the same draw
a tap makes ({"declare": false} in the record), never counted as the player's absence."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.games.bura.game import BURA_BOT, declaration_may_win
from bot.games.bura.keyboard import hand_keyboard
from bot.games.bura.screens import hand_text
from bot.i18n import plain, texts
from bot.service import GameService
from bot.service.settings import BY_ITSELF_AFTER
from bot.views.callbacks import PlayCb
from engine.bura.actions import Declare
from engine.bura.deal import DECLARE
from engine.bura.rules import SWITCHES, Rules
from engine.bura.series import Series
from engine.cards import DECK
from storage import Backend, Game, OutboxItem, open_storage
from tests.support.bura import all_actions, bura_deck
from tests.support.game_record import game_of
from tests.support.service import ALICE, BOB, FixedDeck
from tests.support.strategies import lumpy_decks

START = 1_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


async def bura_for_two(
    storage: Backend, deck: Any, clock: Clock, turn_timer: int
) -> tuple[GameService, Game]:
    """Alice (seat 0, the dealer) and Bob (seat 1, who leads) start a Bura game."""
    service = service_on(storage, deck, clock)
    for user in (ALICE, BOB):
        await storage.upsert_user(user.id, user.name, None, None)
        await storage.set_user_started(user.id, True)
    await storage.upsert_chat(-100, "Group")
    await storage.set_chat_language(-100, "en")
    # D7 off: a hand of three of a suit (a молодка) is no reason to deal again (D9).
    bura = {"molodka": "off"}
    await storage.set_chat_rules(-100, {"game": "bura", "bura": bura, "turn_timer": turn_timer})
    game = await service.new_game(-100, "Group", None, ALICE)
    await service.join(game.id, BOB)
    return service, await service.start(game.id, ALICE.id)


def service_on(storage: Backend, deck: Any, clock: Clock) -> GameService:
    return GameService(
        storage, bot_username="cards_bot", computer_pause=0, rng=FixedDeck(deck), clock=clock
    )


async def drain(storage: Backend) -> list[OutboxItem]:
    items = await storage.pending(1e12, limit=10_000)
    for item in items:
        await storage.outbox_done(item.id)
    return items


def texts_of(items: list[OutboxItem]) -> list[str]:
    return [plain(item.payload.get("text") or "") for item in items]


def last_hand(items: list[OutboxItem], user_id: int) -> tuple[str, list[str]]:
    """The text and button labels of the last hand edit for ``user_id``."""
    (*_, item) = [i for i in items if i.role == f"hand:{user_id}"]
    markup = item.payload.get("reply_markup") or {"inline_keyboard": []}
    return plain(item.payload["text"]), [b["text"] for r in markup["inline_keyboard"] for b in r]


async def moves(storage: Backend, game_id: int) -> list[dict[str, Any]]:
    return list((await storage.export_record(game_id))["deals"][0]["moves"])


async def test_d5_a_draw_no_declaration_could_precede_comes_at_once_with_no_tap(
    tmp_path: Path,
) -> None:
    """Bob leads A♠, Alice discards 6♥ face down (D3): Bob's pile holds 11 open points and
    one card he has not seen, at most another ace: 22, no declaration can win. The draw
    is made at once; no hand ever asks for it; nobody is counted away."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        deck = bura_deck(2, 0, ["6H 7H 8H", "AS 8C 9C"], "6D")
        clock = Clock()
        service, game = await bura_for_two(storage, deck, clock, turn_timer=0)
        await service.play(game.id, BOB.id, game.version, "l", "AS")
        await drain(storage)
        game = await storage.get_game(game.id) or game
        await service.play(game.id, ALICE.id, game.version, "d", "6H")
        sent = await drain(storage)

        assert (await moves(storage, game.id))[-1] == {"seat": 1, "declare": False}
        live = await service.live(game.id)
        deal = live.played.series.current
        assert deal.phase == "lead" and deal.turn == 1
        assert [len(h) for h in deal.hands] == [3, 3]  # both drew (D4)
        text, labels = last_hand(sent, BOB.id)
        assert "Your lead" in text and "You took the trick" not in text
        assert not any("Draw" in label or "I'm out" in label for label in labels)
        assert not any("ran out of time" in t or "took the trick" in t for t in texts_of(sent))
        stored = await storage.get_game(game.id)
        assert stored is not None and stored.seats[1].autoplayed == 0
    finally:
        await storage.close()


@pytest.mark.parametrize("turn_timer", [0, 90])
async def test_d5_a_draw_a_declaration_may_precede_waits_a_moment_then_comes_by_itself(
    tmp_path: Path, turn_timer: int
) -> None:
    """Bob leads A♠ 10♠ K♠ (25) and Alice discards her three hearts face down: Bob, his
    hand empty, may hold 31 for all he knows. He is offered «I'm out» and the draw for
    ``BY_ITSELF_AFTER`` seconds (not the turn timer; with no timer too), told so; then the
    draw comes by itself, made from the stored deadline by a freshly started bot."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        deck = bura_deck(2, 0, ["6H 7H 8H", "AS 10S KS"], "6D")
        clock = Clock()
        service, game = await bura_for_two(storage, deck, clock, turn_timer=turn_timer)
        await service.play(game.id, BOB.id, game.version, "l", "AS.10S.KS")
        await drain(storage)
        game = await storage.get_game(game.id) or game
        await service.play(game.id, ALICE.id, game.version, "d", "6H.7H.8H")
        sent = await drain(storage)

        game = await storage.get_game(game.id) or game
        assert game.deadline is not None and game.deadline.seat == 1
        assert game.deadline.due_at == START + BY_ITSELF_AFTER
        text, labels = last_hand(sent, BOB.id)
        assert f"the draw comes by itself in {round(BY_ITSELF_AFTER)} s" in text
        assert "Your cards: —" in text
        assert "🧮 I'm out — count my tricks" in labels and "➡️ Draw now" in labels
        text, _ = last_hand(sent, ALICE.id)
        assert "Bob took the trick: they may count it" in text
        pings = [i for i in sent if i.role == f"ping:{BOB.id}" and i.method == "send"]
        assert not pings  # nothing he must do

        clock.now += BY_ITSELF_AFTER - 1
        await service.tick()
        assert (await storage.get_game(game.id) or game).version == game.version  # not yet

        clock.now += 1
        restarted = service_on(storage, deck, clock)  # nothing in memory: the stored deadline
        await restarted.tick()
        sent = await drain(storage)
        assert (await moves(storage, game.id))[-1] == {"seat": 1, "declare": False}
        live = await restarted.live(game.id)
        assert (
            live.played.series.current.phase == "lead"
            and len(live.played.series.current.hands[1]) == 3
        )
        stored = await storage.get_game(game.id)
        assert stored is not None and stored.seats[1].autoplayed == 0 and not stored.seats[1].away
        said = texts_of(sent)
        assert not any("ran out of time" in t or "is waiting for your move" in t for t in said), (
            said
        )
        text, _ = last_hand(sent, BOB.id)
        assert "Your lead" in text
    finally:
        await storage.close()


async def test_d5_the_draw_comes_by_itself_through_another_instance(pg_url: str) -> None:
    """Two instances on PostgreSQL: the trick is taken through one, the stored deadline
    fires on the other (whichever runs the timers), and the first then takes the
    taker's lead on the game as stored."""
    deck = bura_deck(2, 0, ["6H 7H 8H", "AS 10S KS"], "6D")
    clock = Clock()
    stores = [await open_storage(pg_url) for _ in range(2)]
    try:
        first, game = await bura_for_two(stores[0], deck, clock, turn_timer=0)
        second = service_on(stores[1], deck, clock)
        await first.play(game.id, BOB.id, game.version, "l", "AS.10S.KS")
        game = await stores[0].get_game(game.id) or game
        await first.play(game.id, ALICE.id, game.version, "d", "6H.7H.8H")
        clock.now += BY_ITSELF_AFTER
        await second.tick()
        game = await stores[0].get_game(game.id) or game
        assert (await moves(stores[0], game.id))[-1] == {"seat": 1, "declare": False}
        drawn = (await second.live(game.id)).played.series.current.hands[1]
        await first.play(game.id, BOB.id, game.version, "l", drawn[0].code())
        assert (await moves(stores[0], game.id))[-1] == {"seat": 1, "cards": [drawn[0].code()]}
    finally:
        for store in stores:
            await store.close()


async def test_d5_the_taker_with_an_empty_hand_declares_within_the_moment(
    tmp_path: Path,
) -> None:
    """The same trick; Bob taps «I'm out» from his hand's own button: 25 is a false
    declaration (D5), and the deal ends."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        deck = bura_deck(2, 0, ["6H 7H 8H", "AS 10S KS"], "6D")
        clock = Clock()
        service, game = await bura_for_two(storage, deck, clock, turn_timer=0)
        await service.play(game.id, BOB.id, game.version, "l", "AS.10S.KS")
        game = await storage.get_game(game.id) or game
        await service.play(game.id, ALICE.id, game.version, "d", "6H.7H.8H")
        sent = await drain(storage)
        (item,) = [i for i in sent if i.role == f"hand:{BOB.id}"][-1:]
        rows = item.payload["reply_markup"]["inline_keyboard"]
        (data,) = [b["callback_data"] for r in rows for b in r if "I'm out" in b["text"]]
        tap = PlayCb.unpack(data)
        clock.now += 2
        await service.play(tap.game, BOB.id, tap.v, tap.kind, tap.cards)
        record = await storage.export_record(game.id)
        assert record["deals"][0]["moves"][-1] == {"seat": 1, "declare": True}
        live = await service.live(game.id)
        assert live.played.series.results[0].outcome == "false_declaration"
    finally:
        await storage.close()


# --- the judgement: from what the taker knows, and never against them -------------------

switch_sets = st.fixed_dictionaries({k: st.sampled_from(v) for k, v in SWITCHES.items()})


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 4), switches=switch_sets, deck=lumpy_decks(), seed=st.integers())
def test_d5_the_draw_at_once_never_takes_a_winning_declaration_away(
    players: int, switches: dict[str, Any], deck: Any, seed: int
) -> None:
    """Wherever the draw would come at once, declaring would not have won (D5); where a
    pile's cards are all open (D3 open), it waits exactly when declaring wins."""
    rng = random.Random(seed)
    series = Series(players, Rules(**switches), first_dealer=0)
    deal = series.start_deal(deck)
    while not deal.finished:
        if deal.phase == DECLARE:
            coming = BURA_BOT.by_itself(series)
            assert coming is not None and coming.action == Declare(deal.turn, False)
            trial = deal.copy()
            trial.apply(Declare(deal.turn, True))
            wins = trial.result().outcome == "declared"
            if coming.at_once:
                assert not wins
            if not deal.view(deal.turn).piles[deal.turn].closed_by:
                assert coming.at_once != wins
        else:
            assert BURA_BOT.by_itself(series) is None
        deal.apply(rng.choice(all_actions(deal)))


def test_d5_the_judgement_reads_only_the_takers_view() -> None:
    """Two deals alike to the taker but for what its face-down cards are: the same
    judgement (whether the draw waits tells the taker nothing new)."""
    rules = Rules(molodka="off")
    low = bura_deck(2, 0, ["6H 7H 8H", "AS 10S KS"], "6D", "AH 10H 9C 7C")
    high = bura_deck(2, 0, ["AH 10H KH", "AS 10S KS"], "6D", "6H 7H 9C 7C")
    seen, judged, counts = [], [], []
    for deck, discards in ((low, "6H 7H 8H"), (high, "AH 10H KH")):
        series = Series(2, rules, first_dealer=0)
        deal = series.start_deal(deck)
        deal.apply(next(a for a in deal.legal_actions(1) if len(getattr(a, "cards", ())) == 3))
        (answer,) = [
            a
            for a in deal.legal_actions(0)
            if sorted(c.code() for c in getattr(a, "cards", ())) == sorted(discards.split())
        ]
        deal.apply(answer)
        seen.append(deal.view(1))
        judged.append(BURA_BOT.by_itself(series))
        counts.append(deal.points()[1])
    assert counts == [25, 50]  # a false declaration, a winning one (D5)
    assert seen[0] == seen[1]
    assert judged[0] == judged[1] and declaration_may_win(seen[0], rules)


# --- what the taker and the others are told ------------------------------------------


def a_declare_moment(last: bool, players: int = 2) -> Series:
    """A seeded random deal stopped where a trick was just taken (the deal's last one,
    or one with a draw to follow) and its taker may still declare with a chance."""
    for seed in range(500):
        rng = random.Random(seed)
        series = Series(players, Rules(), first_dealer=0)
        deck = list(DECK)
        rng.shuffle(deck)
        deal = series.start_deal(deck)
        while not deal.finished:
            coming = BURA_BOT.by_itself(series)
            if coming is not None and not coming.at_once and deal.last_trick_taken() == last:
                return series
            options = [a for a in all_actions(deal) if a != Declare(deal.turn, True)]
            deal.apply(rng.choice(options))
    raise AssertionError("no such moment in 500 deals")


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("last", [False, True])
def test_d5_the_hand_says_what_comes_by_itself_and_when(lang: str, last: bool) -> None:
    series = a_declare_moment(last)
    deal = series.deals[-1]
    taker = deal.turn
    assert taker is not None
    t = texts(lang)
    game = game_of(2)
    mine = plain(hand_text(t, game, "Group", series, taker, turn_seconds=5))
    other = plain(hand_text(t, game, "Group", series, 1 - taker, turn_seconds=None))
    markup = hand_keyboard(t, game, series, taker, [])
    assert markup is not None
    labels = [b["text"] for r in markup["inline_keyboard"] for b in r]
    wanted = {
        ("en", False): ("the draw comes by itself in 5 s", "➡️ Draw now", "may count it"),
        ("en", True): ("the deal ends void", "➡️ Don't count", "else the deal is void"),
        ("ru", False): ("иначе через 5 с добор сам", "➡️ Добрать сейчас", "можно вскрыться"),
        ("ru", True): ("сдача кончится впустую", "➡️ Не вскрываться", "иначе сдача впустую"),
    }[lang, last]
    assert wanted[0] in mine and wanted[1] in labels and wanted[2] in other
    assert ("⏳" not in mine) and ("Up to" not in mine)  # one line says it all
