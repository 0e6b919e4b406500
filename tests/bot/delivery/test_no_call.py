"""An operation that needs no call to Telegram costs its chat nothing.

With several instances, each move queues a delete of the mover's ping: an instance cannot
know that another one took the ping down already. Every such delete took a turn of the
player's private chat (about one a second) though only the first found a ping to delete,
so in a brisk game fifty of them queued up and the player's hand stood still behind them
for a minute (the two-instance soak test's outbox took up to 90 s to drain). Through the
fake Bot API, with its flood limits on, and a clock that stands still: only the chat's
burst may go.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer

from bot.delivery.worker import DeliveryWorker, Limits
from storage import Backend, OutboxOp, Seat, open_storage
from tests.support.delivery import paced_worker
from tests.support.fake_telegram import FakeTelegram

# A private chat's burst of three operations, and room enough bot-wide: the clock does
# not move, so nothing is refilled and the chat's burst is all that may go.
LIMITS = Limits(private_capacity=3, private_rate=0.9, global_capacity=100, global_rate=100)


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Backend]:
    backend = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    yield backend
    await backend.close()


async def _deliver_all(worker: DeliveryWorker) -> None:
    for _ in range(200):
        await worker.step()
        if worker._in_flight:
            await asyncio.gather(*worker._in_flight.values())


async def _ann_and_a_game(fake: FakeTelegram, storage: Backend) -> tuple[int, int]:
    ann = fake.add_user("Ann")
    await ann.start_bot()
    seats = (Seat(0, ann.id, None, "Ann"), Seat(1, None, "easy", "Computer"))
    game = await storage.create_game(-5, None, {}, ann.id, seats, None)
    return ann.id, game.id


@pytest.fixture
async def fake_and_bot() -> AsyncIterator[tuple[FakeTelegram, Bot]]:
    async with FakeTelegram() as fake:
        session = AiohttpSession(api=TelegramAPIServer.from_base(fake.api_url))
        bot = Bot(fake.token, session=session, default=DefaultBotProperties(parse_mode="HTML"))
        try:
            yield fake, bot
        finally:
            await bot.session.close()


async def test_of_a_run_of_ping_deletes_only_the_first_is_made(
    storage: Backend, fake_and_bot: tuple[FakeTelegram, Bot]
) -> None:
    fake, bot = fake_and_bot
    ann, game = await _ann_and_a_game(fake, storage)
    ping = f"ping:{ann}"
    worker = paced_worker(storage, LIMITS, bot=bot)
    await storage.enqueue((OutboxOp(ann, "send", {"text": "🔔 Your turn"}, game, ping),))
    await _deliver_all(worker)
    await storage.enqueue(
        (
            *(OutboxOp(ann, "delete", {}, game, ping) for _ in range(30)),
            OutboxOp(ann, "send", {"text": "Your cards: 7♠"}, game, f"hand:{ann}"),
        )
    )
    await _deliver_all(worker)
    # The ping went up and came down once; the 29 deletes after the first were dropped
    # unmade, and the hand had the third of the chat's three turns.
    assert [m.text for m in fake.users[ann].dm.bot_messages()] == ["Your cards: 7♠"]
    assert len(fake.requests_for("deleteMessage")) == 1
    assert worker.stats.coalesced == 29
    assert await storage.outbox_size() == 0
    # A sender that takes over replays what Telegram took: three operations.
    assert len(await storage.sent_ops(0)) == 3


async def test_a_ping_delete_that_finds_no_ping_takes_none_of_the_chats_turns(
    storage: Backend, fake_and_bot: tuple[FakeTelegram, Bot]
) -> None:
    fake, bot = fake_and_bot
    ann, game = await _ann_and_a_game(fake, storage)
    ping = f"ping:{ann}"
    # One turn in the chat's burst: the delete (no ping is up) must leave it to the hand.
    worker = paced_worker(storage, dataclasses.replace(LIMITS, private_capacity=1), bot=bot)
    hand = OutboxOp(ann, "send", {"text": "Your cards: 7♠"}, game, f"hand:{ann}")
    await storage.enqueue((OutboxOp(ann, "delete", {}, game, ping), hand))
    await _deliver_all(worker)
    assert [m.text for m in fake.users[ann].dm.bot_messages()] == ["Your cards: 7♠"]
    assert fake.requests_for("deleteMessage") == []
    assert await storage.outbox_size() == 0
    assert len(await storage.sent_ops(0)) == 1
