"""Hands shown inside the group (bot/delivery/ephemeral.py) are paced in one place: as the
receiver's private chat (the budget their private hand's edits use too) plus the
bot-wide one, and, once Telegram answers 429 in a group, that group's budget as well.
Through the fake Bot API, with its flood limits enforced."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer

from bot.delivery.ephemeral import GroupHands
from bot.delivery.worker import DeliveryWorker, Limits
from storage import open_storage
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser

LIMITS = Limits(
    group_capacity=1,
    group_rate=0.45,
    private_capacity=2,
    private_rate=0.9,
    global_capacity=3,
    global_rate=25,
)
KEYBOARD = {"inline_keyboard": [[{"text": "7♠", "callback_data": "t:1:1:7S"}]]}


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def hands(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[GroupHands]:
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.api_url))
    bot = Bot(fake.token, session=session, default=DefaultBotProperties(parse_mode="HTML"))
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")

    async def nothing(*_: int) -> None:
        return None

    worker = DeliveryWorker(
        bot, storage, asyncio.Event(), on_forbidden=nothing, on_migrated=nothing, limits=LIMITS
    )
    group_hands = GroupHands(bot, worker)
    yield group_hands
    await group_hands.close()
    await storage.close()
    await bot.session.close()


async def _shown(fake: FakeTelegram, hands: GroupHands) -> tuple[FakeUser, FakeChat]:
    """Alice taps a button in the group; her hand is shown there, answering the tap."""
    alice = fake.add_user("Alice")
    group = fake.add_group("Friends", members=[alice])
    table = group._add_message(
        from_user=None,
        text="Table",
        reply_markup={"inline_keyboard": [[{"text": "My cards", "callback_data": "mc:1"}]]},
    )
    tap = await alice.tap(table, "My cards")
    content = ("hand 0", KEYBOARD)
    assert await hands.show(1, alice.id, group.id, None, content, tap.id)
    return alice, group


async def test_a_burst_of_redraws_goes_at_the_receivers_pace_newest_last(
    fake: FakeTelegram, hands: GroupHands
) -> None:
    alice, group = await _shown(fake, hands)
    for n in range(1, 11):
        hands.redraw(1, alice.id, (f"hand {n}", KEYBOARD))
    await fake.wait_for(lambda: group.last_ephemeral(alice).text == "hand 10")  # type: ignore[union-attr]
    await asyncio.sleep(0.3)
    edits = fake.requests_for("editEphemeralMessageText")
    assert len(edits) < 10  # the redraws waiting were replaced by the newest
    assert fake.flood_violations == []


async def test_the_receivers_budget_is_shared_with_their_private_chat(
    fake: FakeTelegram, hands: GroupHands
) -> None:
    """Alice's private chat has just had its burst (the sender took it from the same
    bucket): her copy's edit waits for the budget instead of drawing Telegram's 429. An
    ephemeral pace of its own would send it at once, over the private limit."""
    alice, group = await _shown(fake, hands)
    await alice.start_bot()
    fake.reset_limits()
    for n in range(fake.limits.private_burst):
        await hands.bot.send_message(alice.id, f"private hand {n}")
        hands.pacing.bucket(alice.id).take(time.monotonic())
    hands.redraw(1, alice.id, ("hand 1", KEYBOARD))
    await fake.wait_for(lambda: group.last_ephemeral(alice).text == "hand 1", timeout=5)  # type: ignore[union-attr]
    assert fake.flood_violations == []


async def test_after_a_429_in_the_group_its_budget_counts_too(
    fake: FakeTelegram, hands: GroupHands
) -> None:
    """Telegram has not said whether ephemeral messages count against the group's limit:
    the first 429 there says they do, and from then on the group's budget is taken too."""
    alice, group = await _shown(fake, hands)
    fake.ephemeral_counts_in_group = True
    # One in 2 s (the sender's pace of a group is a bit slower), less than a private chat.
    fake.limits.group_max, fake.limits.group_window = 1, 2.0
    fake.reset_limits()
    for n in range(1, 5):
        hands.redraw(1, alice.id, (f"hand {n}", KEYBOARD))
        await fake.wait_for(
            lambda m=n: group.last_ephemeral(alice).text == f"hand {m}",  # type: ignore[union-attr]
            timeout=10,
        )
    assert [v.kind for v in fake.flood_violations] == ["group"]
