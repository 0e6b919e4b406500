"""The service's in-memory games: one object per open game, however loads overlap."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.service import GameService, UserError, UserInfo
from bot.service.live import LiveGame
from bot.views.callbacks import PlayCb
from engine.burkozel.ai import make_player
from engine.cards import Card
from storage import Backend, Game, OutboxItem, open_storage
from tests.support.burkozel import build_deck
from tests.support.service import ALICE, BOB, FixedDeck


async def test_overlapping_loads_share_one_game_so_a_confirmed_cancel_is_not_refused(
    tmp_path: Path,
) -> None:
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        service = GameService(storage, bot_username="cards_bot", computer_pause=0)
        alice = UserInfo(1, "Alice")
        await storage.upsert_user(1, "Alice", None, None)
        await storage.set_user_started(1, True)
        game = await service.new_game(-100, "Group", None, alice)
        await service.add_computer(game.id, alice.id, "easy")
        await service.start(game.id, alice.id)

        service.games.forget(game.id)  # as after a restart: nothing in memory
        # A command that only reads (no lock) overlaps a computer's move (under the lock).
        reader = asyncio.create_task(service.live(game.id))
        async with service.lock(game.id):
            mover = await service.live(game.id)
            assert (await reader) is mover
        await service.timers.on_deadline(game.id)  # a computer moves, or the turn moves on
        # The player confirms /cancel: the game is open, so it ends, never "it changed".
        ended = await service.cancel(game.id, alice.id)
        assert ended.status == "cancelled"
    finally:
        await storage.close()


async def two_players(
    storage: Backend, deck: tuple[Card, ...], rules: dict[str, str] | None = None
) -> tuple[GameService, Game]:
    """Alice (seat 0, the dealer) and Bob (seat 1, who leads) start a Burkozel game."""
    service = GameService(storage, bot_username="cards_bot", computer_pause=0, rng=FixedDeck(deck))
    for user in (ALICE, BOB):
        await storage.upsert_user(user.id, user.name, None, None)
        await storage.set_user_started(user.id, True)
    if rules:
        await storage.set_chat_rules(-100, {"burkozel": rules})
    game = await service.new_game(-100, "Group", None, ALICE)
    await service.join(game.id, BOB)
    return service, await service.start(game.id, ALICE.id)


async def test_r7_a_card_that_no_answer_can_hold_with_the_chosen_ones_is_refused(
    tmp_path: Path,
) -> None:
    """A fast tapper's third card for a two-card answer (R7: the answer has as many cards
    as the lead) is refused with a reason; the selection stays as it was."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        deck = build_deck(2, 0, [["6H", "7H", "8C", "9C"], ["6S", "7S", "JD", "QD"]], "AD")
        service, game = await two_players(storage, deck)
        alice, bob = ALICE, BOB
        await service.play(game.id, bob.id, game.version, "l", "6S.7S")  # R6: Bob leads two
        game = await storage.get_game(game.id)
        assert game is not None
        for code in ("6H", "8C"):
            assert await service.toggle(game.id, alice.id, game.version, code) is False
        with pytest.raises(UserError) as refused:
            await service.toggle(game.id, alice.id, game.version, "9C")
        assert refused.value.key == "error.does_not_fit"
        live = await service.live(game.id)
        assert live.selections[alice.id] == [Card.parse("6H"), Card.parse("8C")]
        # Unselecting one makes room again.
        await service.toggle(game.id, alice.id, game.version, "8C")
        await service.toggle(game.id, alice.id, game.version, "9C")
        assert live.selections[alice.id] == [Card.parse("6H"), Card.parse("9C")]
    finally:
        await storage.close()


async def test_c1_the_show_bura_button_a_holder_sees_shows_it(tmp_path: Path) -> None:
    """C1 through the service, from the button's own callback data: Alice holds four
    trumps after the first trick; her hand's «Show бура» button ends the deal."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        hands = [["7H", "8H", "9H", "10H"], ["6S", "7S", "8C", "9C"]]
        deck = build_deck(2, 0, hands, "6H", ["JH", "6D"])  # Alice, who takes, draws J♥
        service, game = await two_players(storage, deck, {"combinations": "on"})
        alice, bob = ALICE, BOB
        await service.play(game.id, bob.id, game.version, "l", "6S")
        game = await storage.get_game(game.id)
        assert game is not None
        await service.play(game.id, alice.id, game.version, "b", "7H")  # Alice takes
        live = await service.live(game.id)
        assert live.played is not None
        markup = live.played.hand_keyboard(live.t, live.game, 0, [])
        assert markup is not None
        (data,) = [
            b["callback_data"]
            for row in markup["inline_keyboard"]
            for b in row
            if b["callback_data"].split(":")[3] == "s"  # «Show бура», in the chat's language
        ]
        tap = PlayCb.unpack(data)
        await service.play(tap.game, alice.id, tap.v, tap.kind, tap.cards)
        first = live.played.series.deals[0]
        assert first.finished and first.shown_by == 0 and first.outcome == "bura"
    finally:
        await storage.close()


def _hand_of(service: GameService, live: LiveGame, user_id: int) -> tuple[str, list[str]]:
    """The text and button labels of the hand ``user_id`` would be shown now."""
    seat = live.seat_of(user_id)
    assert seat is not None
    op = service.hand_op(live, seat)
    markup = op.payload.get("reply_markup") or {"inline_keyboard": []}
    return op.payload["text"], [b["text"] for row in markup["inline_keyboard"] for b in row]


async def test_r6_a_tap_leads_one_card_and_leads_of_several_are_buttons_of_their_own(
    tmp_path: Path,
) -> None:
    """One tap leads a card alone (R6) even with another of its suit in hand;
    each lead of several cards of one suit is a button of its own (one tap, no choosing),
    and no «➕ Several cards» switch is shown while every lead is one tap away."""
    deck = build_deck(2, 0, [["6H", "7H", "8C", "9C"], ["6S", "7S", "JD", "QD"]], "AD")
    for listed in (False, True):
        storage = await open_storage(f"sqlite:{tmp_path / f'{listed}.sqlite3'}")
        try:
            service, game = await two_players(storage, deck)
            live = await service.live(game.id)
            text, labels = _hand_of(service, live, BOB.id)
            assert labels == ["6♠", "7♠", "J♦★", "Q♦★", "➡️ Зайти: 6♠ 7♠", "➡️ Зайти: J♦★ Q♦★"]
            assert "кнопку «➡️ Зайти»" in text and "➕ Несколько карт" not in text
            with pytest.raises(UserError) as refused:  # no switch is drawn: a forged tap
                await service.toggle(game.id, BOB.id, game.version, "+")
            assert refused.value.key == "error.forged"
            if listed:
                await service.play(game.id, BOB.id, game.version, "l", "6S.7S")
                lead = (Card.parse("6S"), Card.parse("7S"))
            else:
                assert await service.toggle(game.id, BOB.id, game.version, "6S") is True
                lead = (Card.parse("6S"),)
            assert live.played is not None
            assert [p.cards for p in live.played.series.deals[0].table] == [lead]
        finally:
            await storage.close()


async def test_r6_more_than_four_leads_of_several_cards_are_chosen_through_the_switch(
    tmp_path: Path,
) -> None:
    """R6: four cards of one suit make ten leads of several cards, too many to
    list: «➕ Several cards» makes taps select, a lead of two is confirmed, «↩ Back» undoes
    the choosing without playing anything."""
    deck = build_deck(2, 0, [["6H", "7H", "8C", "9C"], ["6S", "7S", "8S", "9S"]], "AD")
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        service, game = await two_players(storage, deck)
        live = await service.live(game.id)
        text, labels = _hand_of(service, live, BOB.id)
        assert labels == ["6♠", "7♠", "8♠", "9♠", "➕ Несколько карт"]
        assert "сначала нажмите «➕ Несколько карт»" in text
        # The switch and back: nothing is played, the hand says what taps do.
        assert await service.toggle(game.id, BOB.id, game.version, "+") is False
        text, labels = _hand_of(service, live, BOB.id)
        assert "↩ Назад" in labels and "Выберите до 3 карт одной масти" in text
        assert await service.toggle(game.id, BOB.id, game.version, "6S") is False
        assert await service.toggle(game.id, BOB.id, game.version, "+") is False
        assert live.selections[BOB.id] == [] and BOB.id not in live.picking
        # One tap: 6♠ is led alone.
        assert await service.toggle(game.id, BOB.id, game.version, "6S") is True
        assert live.played is not None
        assert [p.cards for p in live.played.series.deals[0].table] == [(Card.parse("6S"),)]
    finally:
        await storage.close()

    storage = await open_storage(f"sqlite:{tmp_path / 'two.sqlite3'}")
    try:
        service, game = await two_players(storage, deck)
        for code in ("+", "6S", "7S"):
            assert await service.toggle(game.id, BOB.id, game.version, code) is False
        await service.play(game.id, BOB.id, game.version, "l", "6S.7S")
        live = await service.live(game.id)
        assert live.played is not None
        table = live.played.series.deals[0].table
        assert [p.cards for p in table] == [(Card.parse("6S"), Card.parse("7S"))]
        assert BOB.id not in live.picking  # a move ends the choosing
    finally:
        await storage.close()


async def test_r7_beats_with_several_cards_are_buttons_and_discards_are_chosen(
    tmp_path: Path,
) -> None:
    """R7: answering a lead of two, each beat and each discard is a button of its
    own (one tap), the cheapest discard first (fewest trumps, then points); choosing the
    cards and confirming works too."""
    hands = [["7S", "10C", "8H", "9C"], ["6S", "JS", "QD", "KD"]]
    deck = build_deck(2, 0, hands, "AC")  # only the two trumps cover Q♦ K♦
    for beat in (True, False):
        storage = await open_storage(f"sqlite:{tmp_path / f'{beat}.sqlite3'}")
        try:
            service, game = await two_players(storage, deck)
            await service.play(game.id, BOB.id, game.version, "l", "QD.KD")
            game = await storage.get_game(game.id)
            assert game is not None
            live = await service.live(game.id)
            text, labels = _hand_of(service, live, ALICE.id)
            assert "Нажмите кнопку ниже (⚔️ — бить, 🗑 — сбросить)" in text
            assert [x for x in labels if x.startswith("⚔️")] == ["⚔️ Бить: 9♣★ 10♣★"]
            discards = [x for x in labels if x.startswith("🗑")]
            assert len(discards) == 6 and discards[0] == "🗑 Сбросить: 7♠ 8♥"
            # The cheapest first: no trump, then one (without the ten first), then both.
            assert ["10♣★" in x for x in discards] == [False] * 3 + [True] * 3
            assert discards[-1] == "🗑 Сбросить: 9♣★ 10♣★"
            if beat:
                await service.play(game.id, ALICE.id, game.version, "b", "9C.10C")
            else:
                for code in ("7S", "8H"):
                    assert await service.toggle(game.id, ALICE.id, game.version, code) is False
                _, labels = _hand_of(service, live, ALICE.id)
                assert "🗑 Сбросить: 7♠ 8♥" in labels
                await service.play(game.id, ALICE.id, game.version, "d", "7S.8H")
            assert live.played is not None
            (answer,) = [m for m in live.played.series.deals[0].history if m.seat == 0]
            assert answer.beat is beat and len(answer.cards) == 2
        finally:
            await storage.close()


async def test_r7_a_tap_beats_where_it_can_and_discard_dont_beat_discards_a_beater(
    tmp_path: Path,
) -> None:
    """R7: answering one card, a tap on a card that covers it beats; to discard
    such a card, «🗑 Discard, don't beat» first. The switch is refused as forged where
    the hand does not show it (not the player's turn)."""
    hands = [["7S", "8H", "9C", "10D"], ["6S", "JS", "QD", "KD"]]
    deck = build_deck(2, 0, hands, "AC")
    for discard in (False, True):
        storage = await open_storage(f"sqlite:{tmp_path / f'{discard}.sqlite3'}")
        try:
            service, game = await two_players(storage, deck)
            with pytest.raises(UserError) as refused:
                await service.toggle(game.id, ALICE.id, game.version, "+")
            assert refused.value.key == "error.forged"
            await service.toggle(game.id, BOB.id, game.version, "6S")  # led at once
            game = await storage.get_game(game.id)
            assert game is not None
            live = await service.live(game.id)
            text, labels = _hand_of(service, live, ALICE.id)
            assert "🗑 Сбросить, не бить" in labels and "бьёт, если может" in text
            if discard:
                await service.toggle(game.id, ALICE.id, game.version, "+")
                assert await service.toggle(game.id, ALICE.id, game.version, "7S") is False
                _, labels = _hand_of(service, live, ALICE.id)
                assert "⚔️ Бить: 7♠" in labels and "🗑 Сбросить: 7♠" in labels
                await service.play(game.id, ALICE.id, game.version, "d", "7S")
            else:
                assert await service.toggle(game.id, ALICE.id, game.version, "7S") is True
            assert live.played is not None
            (answer,) = [m for m in live.played.series.deals[0].history if m.seat == 0]
            assert answer.cards == (Card.parse("7S"),) and answer.beat is (not discard)
        finally:
            await storage.close()


async def test_r8_a_deal_that_ends_turns_its_table_into_its_record_and_the_next_gets_its_own(
    tmp_path: Path,
) -> None:
    """R8: when a deal ends, its own table message is edited to show how it ended
    (the last trick and the result): no result message of its own, so that move costs the
    same n + 1 operations as any other. The next deal's table is a message of its own
    (role "table:2": nothing to edit yet, so delivery sends it), with that deal's first
    move."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        deck = build_deck(2, 0, [["6H", "7H", "8C", "9C"], ["6S", "7S", "JD", "QD"]], "AD")
        service, game = await two_players(storage, deck)

        async def drain() -> list[OutboxItem]:
            items = await storage.pending(1e12, limit=10_000)
            for item in items:
                await storage.outbox_done(item.id)
            return items

        async def move() -> tuple[LiveGame, list[OutboxItem]]:
            live = await service.live(game.id)
            assert live.played is not None
            deal = live.played.series.deals[-1]
            assert deal.turn is not None
            chosen = make_player("greedy", seed=1).choose(
                deal.view(deal.turn), deal.legal_actions()
            )
            kind = "l" if chosen.beat is None else ("b" if chosen.beat else "d")
            codes = ".".join(c.code() for c in chosen.cards)
            user = (ALICE, BOB)[deal.turn]
            await service.play(game.id, user.id, live.game.version, kind, codes)
            return live, await drain()

        await drain()
        for _ in range(200):
            live, ops = await move()
            assert live.played is not None
            if len(live.played.series.deals) == 2:
                break
        group = [(i.method, i.role) for i in ops if i.chat_id == -100]
        assert group == [("edit", "table")]
        assert len(ops) == 3  # n + 1: both hands and the table
        record = next(i.payload["text"] for i in ops if i.chat_id == -100)
        assert "сдача 1" in record and "📊 <b>Сдача 1 окончена</b>" in record
        assert "Взятка — " in record  # the deal's last trick (R8)
        assert "Сдача 2 роздана" in record
        _, ops = await move()
        group = [(i.method, i.role) for i in ops if i.chat_id == -100]
        assert group == [("edit", "table:2")]
        table = next(i.payload["text"] for i in ops if i.chat_id == -100)
        assert "сдача 2" in table and "окончена" not in table
    finally:
        await storage.close()
