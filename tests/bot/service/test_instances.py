"""Two bot instances on one PostgreSQL database, taking turns at the same game.

An instance whose cached game the other moved on plays the moves logged since
(``catch_up``) instead of rebuilding the game from its whole record; every tap must
still see the game as stored, whichever instance takes it.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

from bot.chat_settings import ChatSettings
from bot.games.burkozel.codec import kind_of
from bot.games.burkozel.game import BURKOZEL_BOT
from bot.i18n import texts
from bot.service import GameService, UserError, UserInfo
from engine import burkozel
from engine.cards import Card
from storage import Backend, Game, GameChange, OutboxItem, open_storage
from tests.support.burkozel import build_deck
from tests.support.service import ALICE, BOB, FixedDeck

ANN = UserInfo(1, "Ann")


@contextlib.asynccontextmanager
async def two_instances(
    pg_url: str, users: tuple[UserInfo, UserInfo] = (ANN, BOB), **service: Any
) -> AsyncIterator[tuple[list[Backend], list[GameService], Game]]:
    """Two service instances on one database, and a game the first user opened on the
    first instance, the second joined on the other, and the first started."""
    stores = [await open_storage(pg_url) for _ in range(2)]
    try:
        services = [
            GameService(s, bot_username="cards_bot", computer_pause=0, **service) for s in stores
        ]
        for user in users:
            await stores[0].upsert_user(user.id, user.name, None, None)
            await stores[0].set_user_started(user.id, True)
        game = await services[0].new_game(-100, "Group", None, users[0])
        await services[1].join(game.id, users[1])
        game = await services[0].start(game.id, users[0].id)
        yield stores, services, game
    finally:
        for s in stores:
            await s.close()


async def test_instances_taking_turns_keep_the_game_as_stored(pg_url: str) -> None:
    async with two_instances(pg_url) as (stores, services, game):
        rng = random.Random(5)
        caught_up = 0
        for n in range(40):
            service = services[n % 2]  # as a load balancer alternates
            stored = await stores[0].get_game(game.id)
            assert stored is not None
            if stored.status != "playing":
                break
            series = burkozel.from_record(await stores[0].export_record(game.id))
            deal = series.current
            if deal is None or deal.turn is None:
                break
            cached = service.games.in_memory.get(game.id)
            move = rng.choice(deal.legal_actions())
            user = stored.seats[deal.turn].user_id
            assert user is not None
            codes = ".".join(c.code() for c in sorted(move.cards))
            await service.play(game.id, user, stored.version, kind_of(move), codes)
            live = service.games.in_memory.get(game.id)
            if live is not None and live is cached:
                caught_up += 1  # moved on in place, not rebuilt
            if live is not None:
                # The copy in memory is the stored game, and its series the replay's.
                assert live.game == await stores[0].get_game(game.id)
                replay = burkozel.from_record(await stores[0].export_record(game.id))
                assert burkozel.to_record(live.played.series) == burkozel.to_record(replay)
        assert caught_up > 10
        # A change of more than the deadline that logged no move (here the seats) cannot
        # be caught up by moves: the copy is rebuilt. (A deadline alone is caught up:
        # test_a_reminder_through_one_instance_leaves_the_keyboard_good_on_the_other.)
        this = services[1]
        stored = await stores[0].get_game(game.id)
        assert stored is not None and stored.status == "playing"
        before = this.games.in_memory[game.id]
        await stores[1].commit(game.id, stored.version, GameChange(seats=stored.seats))
        assert await stores[0].catch_up(game.id, stored.version) is None
        async with this.lock(game.id):
            assert (
                game.id not in this.games.in_memory or this.games.in_memory[game.id] is not before
            )


async def test_choosing_several_cards_goes_on_whichever_instance_takes_the_tap(
    pg_url: str,
) -> None:
    """«➕ Several cards» and the cards chosen after it live in the database, so
    a tap on the other instance selects (it must not play the card alone) and the lead of
    two confirmed on either instance is the one chosen. (Four spades: ten leads of
    several cards, too many to list as buttons, so the switch is drawn.)"""
    deck = build_deck(2, 0, [["6H", "7H", "8C", "9C"], ["6S", "7S", "8S", "9S"]], "AD")
    async with two_instances(pg_url, (ALICE, BOB), rng=FixedDeck(deck)) as (
        stores,
        services,
        game,
    ):
        for n, code in enumerate(("+", "6S", "7S")):
            assert await services[n % 2].toggle(game.id, BOB.id, game.version, code) is False
        live = await services[1].live(game.id)
        assert BOB.id in live.picking  # read back with the cards when the tap came
        await services[1].play(game.id, BOB.id, game.version, "l", "6S.7S")
        series = burkozel.from_record(await stores[0].export_record(game.id))
        assert [p.cards for p in series.deals[0].table] == [(Card.parse("6S"), Card.parse("7S"))]


# --- nothing an instance keeps in memory may serve a stale game --------------------


@dataclass
class Table:
    """Two service instances on one database, one game between Ann (1) and Bob (2), and
    a clock the test moves."""

    stores: list[Backend]
    services: list[GameService]
    game_id: int
    now: list[float]
    rng: random.Random

    async def to_act(self) -> tuple[Game, Any, int] | None:
        """The stored game, its current deal and the user to act (None: it is over)."""
        store = self.stores[0]
        stored = await store.get_game(self.game_id)
        assert stored is not None
        if stored.status != "playing":
            return None
        deal = burkozel.from_record(await store.export_record(self.game_id)).current
        assert deal is not None and deal.turn is not None
        user = stored.seats[deal.turn].user_id
        assert user is not None
        return stored, deal, user

    async def move(self, service: GameService, drawn_at: int | None = None) -> int | None:
        """The player to act makes a random legal move through ``service``, tapping a
        keyboard drawn at ``drawn_at`` (default: the stored version); their user id
        (None: the series is over)."""
        now = await self.to_act()
        if now is None:
            return None
        stored, deal, user = now
        move = self.rng.choice(deal.legal_actions())
        codes = ".".join(c.code() for c in sorted(move.cards))
        version = stored.version if drawn_at is None else drawn_at
        await service.play(self.game_id, user, version, kind_of(move), codes)
        return user

    async def drain(self) -> list[OutboxItem]:
        """The outbox rows queued since the last drain, oldest first (as if sent)."""
        store = self.stores[0]
        items = await store.pending(1e12, limit=10_000)
        for item in items:
            await store.outbox_done(item.id)
        return items


@pytest.fixture
async def table(pg_url: str) -> AsyncIterator[Table]:
    now = [1_000_000.0]
    # Seeded decks as well as seeded moves: the same series every run, so what a test
    # counts over it (deal ends crossing instances, ...) does not depend on the shuffle.
    decks = random.Random(11)
    async with two_instances(pg_url, clock=lambda: now[0], rng=decks) as (stores, services, game):
        yield Table(stores, services, game.id, now, random.Random(7))


def _table_edit(items: list[OutboxItem]) -> str:
    edits = [i for i in items if i.method == "edit" and i.role == "table"]
    assert edits, "the move redrew no table"
    return str(edits[-1].payload["text"])


async def test_a_chat_changed_through_one_instance_is_seen_by_the_others_cached_game(
    table: Table,
) -> None:
    a, b = table.services
    # Both instances have the game in memory (each has played a move of it).
    assert await table.move(a) is not None
    assert await table.move(b) is not None
    assert table.game_id in a.games.in_memory and table.game_id in b.games.in_memory
    # An admin switches the group to English and renames it, and sets a 30 s turn timer,
    # through instance A.
    await a.set_language(-100, "Renamed", "en")
    await a.save_chat_settings(-100, "Renamed", replace(ChatSettings(), turn_timer=30))
    await table.drain()
    # The next tap reaches instance B: what it posts speaks English, names the group as
    # it is called now, and the turn timer is the group's.
    assert await table.move(b) is not None
    items = await table.drain()
    assert "Burkozel</b> — deal" in _table_edit(items)
    hands = [i for i in items if i.method == "edit" and (i.role or "").startswith("hand:")]
    assert hands and all("Renamed" in str(h.payload["text"]) for h in hands)
    stored = await table.stores[0].get_game(table.game_id)
    assert stored is not None and stored.deadline is not None
    assert stored.deadline.due_at == table.now[0] + 30
    # Back to Russian through B, seen by A's cached game (the series goes on).
    await b.set_language(-100, "Renamed", "ru")
    if await table.move(a) is not None:
        assert "Буркозёл</b> — сдача" in _table_edit(await table.drain())


def _your_turn_pings(items: list[OutboxItem]) -> list[int]:
    text = texts("ru")("ping.your_turn", chat="Group")
    return [i.chat_id for i in items if i.method == "send" and i.payload.get("text") == text]


async def test_no_ping_for_a_player_who_tapped_through_the_other_instance(table: Table) -> None:
    """A player who tapped a moment ago is looking at their hand: the hand's edit shows
    their turn, and no ping (a notification) is sent, whichever instance took the tap."""
    a, b = table.services
    await table.drain()  # the first turn's ping: nobody has tapped yet
    via = {1: a, 2: b}  # Ann's taps reach A, Bob's B (as a load balancer may send them)
    moved = 0
    for _ in range(30):
        now = await table.to_act()
        if now is None:
            break
        user = now[2]
        table.now[0] += 5  # a brisk game: nobody is idle for 30 s
        await table.move(via[user])
        items = await table.drain()
        if moved >= 2:  # both have tapped
            assert _your_turn_pings(items) == []
        moved += 1
    assert moved >= 10


async def test_a_ping_sent_by_one_instance_is_taken_down_when_the_other_takes_the_move(
    table: Table,
) -> None:
    """A ping is for a turn: when that turn is played it is deleted, even if another
    instance sent the ping and this one thought the player had none up."""
    a, b = table.services
    via = {1: b, 2: a}
    up: dict[int, bool] = {}
    checked = 0
    for _ in range(40):
        now = await table.to_act()
        if now is None:
            break
        user = now[2]
        table.now[0] += 60  # everyone idle: every turn is pinged
        had_ping = up.get(user, False)
        await table.move(via[user])
        items = await table.drain()
        deleted = any(i.method == "delete" and i.role == f"ping:{user}" for i in items)
        if had_ping:
            assert deleted, f"move {checked}: the ping for the turn just played stays up"
            checked += 1
        for item in items:
            if item.role is not None and item.role.startswith("ping:"):
                up[int(item.role[5:])] = item.method == "send"
    assert checked >= 5


async def test_a_selection_made_through_one_instance_is_seen_by_the_other(table: Table) -> None:
    """Card selections live in the database: a second tap through the other instance
    adds to (or takes back from) what the first tap selected."""
    a, b = table.services
    store = table.stores[0]
    for _ in range(60):
        stored = await store.get_game(table.game_id)
        assert stored is not None and stored.status == "playing"
        series = burkozel.from_record(await store.export_record(table.game_id))
        deal = series.current
        assert deal is not None and deal.turn is not None
        user = stored.seats[deal.turn].user_id
        assert user is not None
        if not BURKOZEL_BOT.offers_pick(deal, deal.turn):
            await table.move(a)
            continue
        # «➕ Several cards» through A, a card through B: selected, not played.
        card = min(deal.hand(deal.turn), key=lambda c: c.code())
        assert not await a.toggle(table.game_id, user, stored.version, "+")
        assert not await b.toggle(table.game_id, user, stored.version, card.code())
        got = await store.get_selection(table.game_id, user, stored.version)
        assert got == ["+", card.code()]
        # The same card tapped again through A is taken back, not selected twice.
        assert not await a.toggle(table.game_id, user, stored.version, card.code())
        assert await store.get_selection(table.game_id, user, stored.version) == ["+"]
        items = await table.drain()
        hand_edits = [i for i in items if i.role == f"hand:{user}"]
        assert hand_edits and "✅" not in str(hand_edits[-1].payload)
        return
    pytest.fail("no position where a card is selected rather than played")


async def test_a_deal_ended_by_the_other_instance_is_caught_up_not_rebuilt(table: Table) -> None:
    """The instance that did not see a deal end deals the next deal from the database
    (its deck as stored) instead of rebuilding the series from the whole record, and its
    copy stays the replay of the record."""
    store = table.stores[0]
    crossed = 0
    for n in range(300):
        service = table.services[n % 2]
        cached = service.games.in_memory.get(table.game_id)
        seen = None if cached is None or cached.played is None else len(cached.played.series.deals)
        dealt = len(await store.deals(table.game_id))
        if await table.move(service) is None:
            break
        live = service.games.in_memory.get(table.game_id)
        if live is None:
            break  # the series is over
        if seen is not None and dealt > seen:  # the other instance ended a deal since
            assert live is cached, f"move {n}: rebuilt from the record at a deal's end"
            crossed += 1
        replay = burkozel.from_record(await store.export_record(table.game_id))
        assert burkozel.to_record(live.played.series) == burkozel.to_record(replay)
        assert live.game == await store.get_game(table.game_id)
    assert crossed >= 2


async def test_a_reminder_through_one_instance_leaves_the_keyboard_good_on_the_other(
    table: Table,
) -> None:
    """A reminder is a commit of the deadline only: it redraws no hand, and the hand the
    player is looking at, drawn before it, still plays through the other instance, which
    takes the new deadline without rebuilding the game. A keyboard drawn before a move is
    refused as out of date on both."""
    a, b = table.services
    store = table.stores[0]
    await table.move(b)  # B has the game in memory
    cached = b.games.in_memory[table.game_id]
    now = await table.to_act()
    assert now is not None
    stored, deal, user = now
    drawn_at = stored.version
    assert stored.deadline is not None and stored.deadline.remind_at is not None
    await table.drain()
    table.now[0] = stored.deadline.remind_at + 1  # reminded, not yet due
    await a.tick()
    reminded = await store.get_game(table.game_id)
    assert reminded is not None and reminded.deadline is not None
    assert reminded.deadline.reminded and reminded.version == drawn_at + 1
    assert reminded.state_version == drawn_at
    sent = await table.drain()
    assert [i.role for i in sent if i.role and i.role.startswith("hand:")] == []
    assert any(i.role == f"ping:{user}" for i in sent)  # the reminder itself
    assert await table.move(b, drawn_at) == user
    assert b.games.in_memory[table.game_id] is cached  # caught up, not rebuilt from the record
    moved = await store.get_game(table.game_id)
    assert moved is not None and moved.version == moved.state_version == drawn_at + 2
    logged = burkozel.from_record(await store.export_record(table.game_id))
    assert len(logged.deals[0].history) == len(deal.history) + 1  # the player's move
    assert burkozel.to_record(cached.played.series) == burkozel.to_record(logged)
    for service in (a, b):
        with pytest.raises(UserError) as refused:
            await table.move(service, drawn_at + 1)
        assert refused.value.key == "error.stale"
