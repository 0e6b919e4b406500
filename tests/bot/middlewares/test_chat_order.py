"""bot/middlewares/chat_order.py: one chat's updates one at a time and in order, other chats beside
them and taking turns, a bounded number held, nothing kept for an idle chat."""

from __future__ import annotations

import asyncio

import pytest
from aiogram.types import Update
from prometheus_client import REGISTRY

from bot.middlewares.chat_order import ChatQueues


def update(number: int, chat: int) -> Update:
    kind = "private" if chat > 0 else "group"
    return Update.model_validate(
        {
            "update_id": number,
            "message": {
                "message_id": number,
                "date": 0,
                "chat": {"id": chat, "type": kind, "title": "G", "first_name": "P"},
                "text": f"m{number}",
            },
        }
    )


def name(event: Update) -> str:
    query = event.callback_query
    message = event.message or (query.message if query is not None else None)
    assert message is not None
    return f"{message.chat.id}/{event.update_id}"


class Handler:
    """Records what starts and ends; updates whose name is gated wait for the gate."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}
        self.running = 0
        self.most_running = 0
        self.started: dict[str, asyncio.Event] = {}

    def gate(self, label: str) -> asyncio.Event:
        return self.gates.setdefault(label, asyncio.Event())

    def start_of(self, label: str) -> asyncio.Event:
        return self.started.setdefault(label, asyncio.Event())

    async def __call__(self, event: Update) -> str:
        label = name(event)
        self.log.append(f"{label} starts")
        self.start_of(label).set()
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            if label in self.gates:
                await self.gates[label].wait()
            await asyncio.sleep(0)  # a real handler awaits something
        finally:
            self.running -= 1
        self.log.append(f"{label} ends")
        return label


def dropped_so_far() -> float:
    return REGISTRY.get_sample_value("burkozel_updates_dropped_total") or 0.0


async def settle() -> None:
    """Let every task that can run do so (no clock involved)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def idle(queues: ChatQueues) -> None:
    await queues.drain(timeout=30)  # returns once nothing is held; the timeout is a guard


async def test_a_chats_updates_wait_for_each_other_and_other_chats_do_not() -> None:
    handler = Handler()
    queues = ChatQueues(handler)
    first_may_end = handler.gate("1/1")
    await queues.put(update(1, 1))
    await queues.put(update(2, 1))
    await queues.put(update(3, 2))
    await handler.start_of("2/3").wait()
    await settle()
    assert handler.log == ["1/1 starts", "2/3 starts", "2/3 ends"]
    assert queues.busy_chats() == 1 and queues.held == 2  # chat 1: one running, one waiting
    first_may_end.set()
    await idle(queues)
    assert handler.log[3:] == ["1/1 ends", "1/2 starts", "1/2 ends"]
    assert queues.busy_chats() == 0 and queues.held == 0


async def test_a_chat_with_a_backlog_takes_turns_with_a_chat_that_comes_later() -> None:
    """A flooding chat's next update goes behind the chats already waiting: another
    chat's tap is handled after at most one more of the flood, not after all of it."""
    handler = Handler()
    queues = ChatQueues(handler, running=1)
    flood_may_go = handler.gate("-5/1")
    for number in range(1, 6):
        await queues.put(update(number, -5))
    await queues.put(update(6, 7))
    await handler.start_of("-5/1").wait()
    flood_may_go.set()
    await idle(queues)
    starts = [entry.split()[0] for entry in handler.log if entry.endswith("starts")]
    assert starts == ["-5/1", "7/6", "-5/2", "-5/3", "-5/4", "-5/5"]


async def test_at_most_running_updates_are_handled_at_once_and_each_is_a_task() -> None:
    handler = Handler()
    queues = ChatQueues(handler, running=3)
    tasks_before = len(asyncio.all_tasks())
    for chat in range(1, 11):
        handler.gate(f"{chat}/{chat}")
        await queues.put(update(chat, chat))
    await settle()
    assert handler.running == 3
    assert len(asyncio.all_tasks()) - tasks_before == 3  # the other seven are not tasks
    for gate in handler.gates.values():
        gate.set()
    await idle(queues)
    assert handler.most_running == 3 and len(handler.log) == 20


async def test_polling_takes_no_more_while_the_process_holds_its_most() -> None:
    handler = Handler()
    queues = ChatQueues(handler, running=2, capacity=4)
    for chat in range(1, 5):
        handler.gate(f"{chat}/{chat}")
        await queues.put(update(chat, chat))
    fifth = asyncio.create_task(queues.put(update(5, 5)))
    await settle()
    assert not fifth.done() and queues.held == 4  # the fifth waits (at Telegram)
    handler.gates["1/1"].set()
    await fifth
    assert queues.held == 4
    for gate in handler.gates.values():
        gate.set()
    await idle(queues)
    assert "5/5 ends" in handler.log


async def test_a_flooding_chat_is_cut_off_at_its_share_and_another_chat_gets_through() -> None:
    handler = Handler()
    queues = ChatQueues(handler, running=2, capacity=8, per_chat=4)
    handler.gate("-9/1")
    dropped = dropped_so_far()
    for number in range(1, 21):
        await queues.put(update(number, -9))
    await queues.put(update(21, 3))  # queued at once: the flood left room
    await handler.start_of("3/21").wait()
    assert dropped_so_far() - dropped == 16
    assert queues.held == 5
    handler.gates["-9/1"].set()
    await idle(queues)
    flood = [entry.split()[0] for entry in handler.log if entry.startswith("-9/")]
    assert flood[::2] == ["-9/1", "-9/2", "-9/3", "-9/4"]  # the first four, in order


async def test_webhook_updates_wait_for_room_and_none_is_dropped() -> None:
    handler = Handler()
    queues = ChatQueues(handler, running=2, capacity=2, per_chat=1)
    handler.gate("1/1")
    handler.gate("2/3")
    answers = [
        asyncio.create_task(queues.handle(update(number, chat)))
        for number, chat in ((1, 1), (2, 1), (3, 2), (4, 3))
    ]
    await settle()
    assert not [a for a in answers if a.done()]
    assert queues.held == 2  # 1/2 waits for its chat, 3/4 for room: neither is dropped
    handler.gates["1/1"].set()
    handler.gates["2/3"].set()
    assert await asyncio.gather(*answers) == ["1/1", "1/2", "2/3", "3/4"]
    assert handler.log.index("1/1 ends") < handler.log.index("1/2 starts")


async def test_an_update_that_fails_lets_the_next_one_of_its_chat_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def fails_first(event: Update) -> str:
        if event.update_id == 1:
            raise RuntimeError("a handler broke")
        return "answered"

    queues = ChatQueues(fails_first)
    await queues.put(update(1, 7))
    assert await queues.handle(update(2, 7)) == "answered"
    assert "update 1 failed" in caplog.text
    with pytest.raises(RuntimeError, match="a handler broke"):  # webhook: a 500, re-delivered
        await queues.handle(update(1, 7))
    assert queues.busy_chats() == 0


async def test_stopping_lets_what_is_held_finish_and_cancels_only_what_cannot() -> None:
    handler = Handler()
    queues = ChatQueues(handler)
    tasks_before = len(asyncio.all_tasks())
    handler.gate("1/1")  # never opened: a handler stuck for good
    for number, chat in ((1, 1), (2, 1), (3, 2), (4, 3)):
        await queues.put(update(number, chat))
    await queues.drain(timeout=0.2)
    assert {"2/3 ends", "3/4 ends"} <= set(handler.log)
    assert "1/1 ends" not in handler.log and "1/2 starts" not in handler.log
    assert len(asyncio.all_tasks()) == tasks_before


async def test_an_update_of_a_kind_nobody_knows_is_ordered_by_nothing_and_still_handled() -> None:
    """A kind Telegram adds later names no chat: it waits for no chat and none waits for it."""
    seen: list[int] = []

    async def handle(event: Update) -> None:
        seen.append(event.update_id)

    queues = ChatQueues(handle)
    await queues.put(Update.model_validate({"update_id": 41, "some_new_kind": {"x": 1}}))
    await queues.put(Update.model_validate({"update_id": 42, "some_new_kind": {"x": 2}}))
    await idle(queues)
    assert sorted(seen) == [41, 42] and queues.busy_chats() == 0


def tap(number: int, chat: int) -> Update:
    return Update.model_validate(
        {
            "update_id": number,
            "callback_query": {
                "id": str(number),
                "from": {"id": chat, "is_bot": False, "first_name": "P"},
                "chat_instance": "c",
                "data": "x",
                "message": {
                    "message_id": number,
                    "date": 0,
                    "chat": {"id": chat, "type": "private", "first_name": "P"},
                },
            },
        }
    )


async def test_a_tap_goes_before_the_chats_waiting_with_messages() -> None:
    """Strangers' messages wait in a hundred private chats when a seated player's tap
    comes: it is handled next (Telegram gives up on its answer after ten seconds; a
    message's answer has no deadline), and the messages keep their turns after it. The
    tap used to wait for a turn behind every chat that came before it."""
    handler = Handler()
    queues = ChatQueues(handler, running=1)
    first_may_end = handler.gate("1/1")
    for chat in range(1, 101):
        await queues.put(update(chat, chat))
    await queues.put(tap(200, 500))
    await queues.put(update(201, 3))  # the same chat's next: after its first, in order
    await handler.start_of("1/1").wait()
    first_may_end.set()
    await idle(queues)
    starts = [entry.split()[0] for entry in handler.log if entry.endswith("starts")]
    assert starts[:4] == ["1/1", "500/200", "2/2", "3/3"]
    assert starts.index("3/3") < starts.index("3/201") and len(starts) == 102
