"""bot/chat_order.py: one chat's updates one at a time and in order, other chats beside
them, and nothing kept for a chat once its updates are done."""

from __future__ import annotations

import asyncio
from typing import Any

from aiogram.dispatcher.middlewares.user_context import EVENT_CONTEXT_KEY, EventContext
from aiogram.types import Chat, TelegramObject

from bot.chat_order import ChatOrderMiddleware


def _data(chat_id: int | None) -> dict[str, Any]:
    chat = None if chat_id is None else Chat(id=chat_id, type="private")
    return {EVENT_CONTEXT_KEY: EventContext(chat=chat)}


async def test_a_chats_updates_wait_for_each_other_and_other_chats_do_not() -> None:
    order = ChatOrderMiddleware()
    log: list[str] = []
    first_may_end = asyncio.Event()

    def handler(name: str, gate: asyncio.Event | None = None) -> Any:
        async def handle(event: TelegramObject, data: dict[str, Any]) -> str:
            log.append(f"{name} starts")
            if gate is not None:
                await gate.wait()
            log.append(f"{name} ends")
            return name

        return handle

    event: Any = object()
    slow = asyncio.create_task(order(handler("A1", first_may_end), event, _data(1)))
    after = asyncio.create_task(order(handler("A2"), event, _data(1)))
    other = asyncio.create_task(order(handler("B1"), event, _data(2)))
    no_chat = asyncio.create_task(order(handler("X"), event, _data(None)))
    await asyncio.wait({other, no_chat})
    assert log == ["A1 starts", "B1 starts", "B1 ends", "X starts", "X ends"]
    assert order.busy_chats() == 1  # chat 1: A1 running, A2 waiting
    first_may_end.set()
    assert await asyncio.gather(slow, after) == ["A1", "A2"]
    assert log[5:] == ["A1 ends", "A2 starts", "A2 ends"]
    assert order.busy_chats() == 0


async def test_an_update_that_fails_lets_the_next_one_of_its_chat_run() -> None:
    order = ChatOrderMiddleware()

    async def fails(event: TelegramObject, data: dict[str, Any]) -> None:
        raise RuntimeError("a handler broke")

    async def works(event: TelegramObject, data: dict[str, Any]) -> str:
        return "answered"

    event: Any = object()
    failing = asyncio.create_task(order(fails, event, _data(7)))
    following = asyncio.create_task(order(works, event, _data(7)))
    results = await asyncio.gather(failing, following, return_exceptions=True)
    assert isinstance(results[0], RuntimeError) and results[1] == "answered"
    assert order.busy_chats() == 0
