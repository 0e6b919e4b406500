"""One chat's updates are handled one at a time, in the order they arrived.

Polling hands every update to a task of its own (aiogram's ``handle_as_tasks``), so
two updates of one chat could finish in either order: a command sent right after
/start was answered before /start's greeting, which writes to the database first.
Webhook mode gets the order from Telegram, which sends a chat's next update only
once the previous one was answered; this gives polling the same. Different chats
still run side by side: the lock is per chat, and dropped once nobody waits on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.dispatcher.middlewares.user_context import EVENT_CONTEXT_KEY, EventContext
from aiogram.types import TelegramObject


class ChatOrderMiddleware(BaseMiddleware):
    """Outer middleware on ``Dispatcher.update``, after aiogram's user context one."""

    def __init__(self) -> None:
        # chat id -> (its lock, how many updates hold or wait for it)
        self._chats: dict[int, tuple[asyncio.Lock, int]] = {}

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        context = data.get(EVENT_CONTEXT_KEY)
        chat = context.chat if isinstance(context, EventContext) else None
        if chat is None:
            return await handler(event, data)
        # asyncio.Lock wakes its waiters first come, first served, and tasks reach this
        # line in the order polling created them: the chat's updates run in order.
        lock, users = self._chats.get(chat.id, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._chats[chat.id] = (lock, users + 1)
        try:
            async with lock:
                return await handler(event, data)
        finally:
            lock, users = self._chats[chat.id]
            if users == 1:
                del self._chats[chat.id]
            else:
                self._chats[chat.id] = (lock, users - 1)

    def busy_chats(self) -> int:
        """Chats with an update being handled or waiting (an idle chat keeps no lock)."""
        return len(self._chats)
