"""Run the real bot against the fake Bot API and drive it as people would."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bot.app import App
from bot.config import Settings
from bot.delivery import Limits
from tests.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser

TOKEN = "123456:TEST-token"


def new_fake() -> FakeTelegram:
    return FakeTelegram(token=TOKEN)


# Fast pacing for tests that are about game logic, not flood limits.
FAST = Limits(
    group_capacity=1000,
    group_rate=1000,
    private_capacity=1000,
    private_rate=1000,
    global_capacity=1000,
    global_rate=1000,
)


def settings_for(fake: FakeTelegram, db: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": fake.token,
        "database_path": db,
        "telegram_api_url": fake.api_url,
        "default_language": "en",
        "turn_timeout_seconds": 300,
        "computer_pause_seconds": 0.05,
        "log_level": "INFO",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeTelegram, db: Path, limits: Limits | None = FAST, **overrides: Any
) -> AsyncIterator[App]:
    app = App(settings_for(fake, db, **overrides), limits=limits, handle_signals=False)
    task = asyncio.create_task(app.run())
    ready = asyncio.create_task(app.ready.wait())
    done, _ = await asyncio.wait({task, ready}, timeout=15, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        task.result()  # re-raise a start-up failure
    assert ready in done, "the bot did not start"
    try:
        yield app
    finally:
        await app.stop()
        await asyncio.wait_for(task, timeout=15)


def hand_message(user: FakeUser, group: FakeChat | None = None) -> FakeMessage | None:
    """The user's hand message: the bot message in their DM that shows cards as buttons."""
    for message in reversed(user.dm.messages):
        if message.is_from_bot and "Your cards" in message.text:
            if group is None or (group.title or "") in message.text:
                return message
    return None


def is_my_turn(message: FakeMessage) -> bool:
    return "Your lead" in message.text or "Your answer" in message.text


_CARD_TOKEN = re.compile(r"^(✅ )?(\S+)$")


async def play_one_move(
    fake: FakeTelegram, user: FakeUser, rng: random.Random, group: FakeChat | None = None
) -> str:
    """Select cards and tap a legal action, as a person would. Returns the action label."""
    message = await fake.wait_for(
        lambda: (m := hand_message(user, group)) is not None and is_my_turn(m) and m,
        description=f"{user.first_name}'s turn",
    )
    while True:
        message = hand_message(user, group)
        assert message is not None
        actions = [b for row in message.buttons[1:] for b in row if b.callback_data]
        if actions:
            choice = rng.choice(actions)
            before = len(message.history)
            answer = await (await user.tap(message, data=choice.callback_data)).wait(timeout=5)
            assert not answer.show_alert, answer.text
            # Wait until the move shows in the hand, so the next read is not of the old state.
            await fake.wait_for(
                lambda m=message, b=before: len(m.history) > b or hand_message(user, group) is not m,
                description="the hand to show the move",
            )
            return choice.text
        cards = [b for b in message.buttons[0] if not b.text.startswith("✅")]
        assert cards, f"no card left to select: {message.text}"
        before = len(message.history)
        await (await user.tap(message, data=rng.choice(cards).callback_data)).wait(timeout=5)
        await fake.wait_for(
            lambda m=message, b=before: len(m.history) > b or hand_message(user, group) is not m,
            description="the hand keyboard to redraw",
        )
