"""A player alone with the bot: the private chat's menu, a game there, its taps and
the Telegram operations it cost."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storage import Storage
from tests.support.fake_telegram import FakeMessage, FakeTelegram, FakeUser

# The Bot API methods that are Telegram operations in a chat (they count against its
# one message a second).
OPERATIONS = ("sendMessage", "editMessageText", "deleteMessage", "sendPhoto", "sendDocument")


@dataclass
class Player:
    """Who plays, where, and what their taps did."""

    fake: FakeTelegram
    user: FakeUser
    db: Path
    game_id: int = 0
    taps: int = 0  # every tap on the game's message, moves and not

    @contextlib.asynccontextmanager
    async def storage(self) -> AsyncIterator[Storage]:
        """The bot's database, read as the bot writes it (opened for each look: a
        connection kept open would hold a restarted bot back)."""
        storage = await Storage.open(self.db)
        try:
            yield storage
        finally:
            await storage.close()

    async def game(self) -> Any:
        async with self.storage() as storage:
            return await storage.get_game(self.game_id)

    async def record(self) -> dict[str, Any]:
        async with self.storage() as storage:
            return await storage.export_record(self.game_id)

    async def message(self) -> FakeMessage:
        async with self.storage() as storage:
            ref = await storage.get_message(self.game_id, f"hand:{self.user.id}")
        assert ref is not None and ref.chat_id == self.user.id
        found = self.user.dm.get_message(ref.message_id)
        assert found is not None
        return found

    def operations(self) -> int:
        return sum(
            1
            for r in self.fake.requests
            if r.method in OPERATIONS
            and r.params.get("chat_id") in (self.user.id, str(self.user.id))
        )


async def open_menu(fake: FakeTelegram, user: FakeUser) -> FakeMessage:
    """/start, and the greeting's button: the menu comes below the greeting."""
    await user.start_bot()
    greeting = await fake.wait_for(
        lambda: next((m for m in user.dm.bot_messages() if m.buttons), None),
        description="the greeting with its button",
    )
    assert isinstance(greeting, FakeMessage)
    # A new user's first minute: the game right here, and /newgame in a group with friends.
    assert greeting.text.count("/newgame") >= 2 and len(greeting.buttons) == 1
    answer = await (await user.tap(greeting, index=(0, 0))).wait()
    assert not answer.show_alert
    menu = await fake.wait_for(
        lambda: next((m for m in user.dm.bot_messages() if len(m.buttons) > 3), None),
        description="the choice menu",
    )
    assert isinstance(menu, FakeMessage)
    return menu


async def choose(fake: FakeTelegram, user: FakeUser, menu: FakeMessage, label: str) -> None:
    """Tap a menu button by its label; the menu is redrawn in place, marking it."""
    answer = await (await user.tap(menu, label)).wait()
    assert not answer.show_alert, answer.text
    await fake.wait_for(lambda: f"• {label}" in menu.button_texts, description=f"• {label}")


async def play(player: Player, menu: FakeMessage) -> None:
    """▶️ Play / Играть: the menu becomes the game's message."""
    play_button = menu.buttons[-1][0]
    before = len(menu.history)
    answer = await (await player.user.tap(menu, data=play_button.callback_data)).wait()
    assert not answer.show_alert, answer.text
    player.taps += 1
    await player.fake.wait_for(lambda: len(menu.history) > before, description="the deal")
    data = next(b.callback_data for row in menu.buttons for b in row if b.callback_data)
    player.game_id = int(data.split(":")[1])


async def play_moves(player: Player, rng: random.Random, moves: int | None = None) -> None:
    """The player's turns, until the series ends (or ``moves`` of their taps made moves):
    a listed play, else a card (a move by itself, or a selection toward one)."""
    made = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 600
    while moves is None or made < moves:
        assert loop.time() < deadline, "the series does not end"
        game = await player.game()
        if game.status != "playing":
            return
        if game.deadline is None or game.deadline.seat != 0:
            await asyncio.sleep(0.02)
            continue
        message = await player.message()
        stamp = f":{game.id}:{game.version}:"
        buttons = [b for row in message.buttons for b in row if stamp in (b.callback_data or "")]
        if not buttons:  # the message does not show this version yet
            await asyncio.sleep(0.02)
            continue
        listed = [b for b in buttons if b.callback_data.startswith("p:")]
        cards = [b for b in buttons if b.callback_data.startswith("t:")]
        choice = rng.choice(listed or cards)
        shown = len(message.history)
        answer = await (await player.user.tap(message, data=choice.callback_data)).wait()
        player.taps += 1
        if answer.show_alert:
            continue  # a computer moved first (a «Стоп!»), or a card that does not fit
        await player.fake.wait_for(
            lambda m=message, n=shown: len(m.history) > n, description="the redraw", timeout=10
        )
        if (await player.game()).version != game.version:
            made += 1
