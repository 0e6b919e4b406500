"""What the sender reads from the outbox, and what a row it cannot read does.

A row whose payload is not JSON used to stop every step (the read of all pending rows
raised), so one bad row silenced the whole bot. Payloads are now decoded when a row is
sent; a bad one is dropped and logged, and everything else still goes. And while the
bot-wide bucket is empty, a step does not read the outbox at all: with many tables the
backlog is longest when the bot is busiest, and each wake-up used to read all of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from bot.delivery import worker as worker_module
from bot.delivery.worker import Limits
from storage import OutboxItem, OutboxOp, open_storage
from storage.rows import FIRST_TURN, OutboxTurns
from tests.support.delivery import Clock, paced_worker
from tests.support.harness import FAST


async def test_a_row_with_a_broken_payload_is_dropped_and_the_rest_is_delivered(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    storage = await open_storage(f"sqlite:{path}")
    try:
        await storage.enqueue(
            (
                OutboxOp(-1, "send", {"text": "first"}),
                OutboxOp(-1, "send", {"text": "broken"}),
                OutboxOp(-1, "send", {"text": "after it"}),
                OutboxOp(-2, "send", {"text": "another chat"}),
            )
        )
        with sqlite3.connect(path) as raw:
            raw.execute("UPDATE outbox SET payload = '{' WHERE payload LIKE '%broken%'")
        worker = paced_worker(storage, FAST)
        sent: list[str] = []

        async def send(item: OutboxItem) -> int | None:
            sent.append(item.payload["text"])
            return None

        worker._send = send  # type: ignore[method-assign]
        for _ in range(10):
            await worker.step()
            if worker._in_flight:
                await asyncio.gather(*worker._in_flight.values())
        assert sorted(sent) == ["after it", "another chat", "first"]
        assert sent.index("first") < sent.index("after it")  # the chat's order kept
        assert await storage.outbox_size() == 0
        assert worker.stats.dropped == 1
    finally:
        await storage.close()


class CountingStorage:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def outbox_turns(self, now: float, limit: int, after: Any = FIRST_TURN) -> OutboxTurns:
        self.reads += 1
        turns: OutboxTurns = await self.inner.outbox_turns(now, limit, after)
        return turns


async def test_while_the_bot_wide_limit_holds_everything_a_wake_up_reads_nothing(
    tmp_path: Path,
) -> None:
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        await storage.enqueue(tuple(OutboxOp(-n, "send", {"text": f"t{n}"}) for n in range(50)))
        clock = Clock()
        paced = Limits(100, 100, 100, 100, global_capacity=1, global_rate=1)
        counting = CountingStorage(storage)
        worker = paced_worker(counting, paced, clock)

        async def send(item: OutboxItem) -> int | None:
            return None

        worker._send = send  # type: ignore[method-assign]
        for _ in range(100):  # a wake-up every 0.05 s for 5 s: a commit, a tap
            await worker.step()
            if worker._in_flight:
                await asyncio.gather(*worker._in_flight.values())
            clock.now += 0.05
        assert await storage.outbox_size() == 50 - 5  # 1 at once, then 1 a second
        assert counting.reads <= 6  # a read when a message may go, not at every wake-up
    finally:
        await storage.close()


async def test_while_the_bot_wide_limit_holds_sends_back_a_table_goes_before_older_answers(
    tmp_path: Path,
) -> None:
    """Strangers flooding the bot's private chats with commands queued hundreds
    of answers, and a game's table edit, queued after them in another chat, waited for
    all of them at the bot-wide 25 a second (108 s in bench/junk.py); and so did a
    table behind an answer in its own group."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        answers = tuple(OutboxOp(n, "send", {"text": f"answer {n}"}) for n in range(1, 601))
        await storage.enqueue(answers)
        group = (
            OutboxOp(-7, "send", {"text": "the group's answer"}),
            OutboxOp(-7, "edit", {"text": "the table"}, game_id=3, role="table"),
            OutboxOp(-8, "edit", {"text": "another table"}, game_id=4, role="table"),
        )
        await storage.enqueue(group)
        clock = Clock()
        paced = Limits(100, 100, 100, 100, global_capacity=1, global_rate=1)
        worker = paced_worker(storage, paced, clock)
        sent: list[str] = []

        async def send(item: OutboxItem) -> int | None:
            sent.append(item.payload["text"])
            return None

        worker._send = send  # type: ignore[method-assign]
        while len(sent) < 5:
            await worker.step()
            if worker._in_flight:
                await asyncio.gather(*worker._in_flight.values())
            clock.now += 0.5
        assert sent == [
            "another table",
            "the group's answer",
            "the table",
            "answer 1",
            "answer 2",
        ]
    finally:
        await storage.close()


async def test_a_stop_that_comes_with_a_wake_up_still_stops_the_sender(tmp_path: Path) -> None:
    """Python 3.11's wait_for dropped a cancel that arrived as the wake-up did: the
    sender then ran on, and the bot's shutdown waited for it for ever."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        worker = paced_worker(storage, FAST)
        task = asyncio.create_task(worker.run())
        await asyncio.sleep(0.3)  # its step has read the (empty) outbox: it waits 1 s
        worker.wake.set()  # a commit queued something...
        task.cancel()  # ...as the bot stopped
        done, _ = await asyncio.wait({task}, timeout=2)
        assert done == {task} and task.cancelled()
    finally:
        if not task.done():
            worker._stopping = True
            worker.wake.set()
            await asyncio.wait({task}, timeout=2)
        await storage.close()


async def test_stopping_the_sender_lets_a_send_in_flight_finish_and_records_it(
    tmp_path: Path,
) -> None:
    """A send Telegram is answering as the bot stops (a result's picture uploading) used to
    run on after the bot closed its HTTP session (aiogram opened a new one and left it
    open), and to be recorded after the storage closed, if at all: the next sender then
    sent it again, a second copy in the chat."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        await storage.enqueue((OutboxOp(-1, "send", {"text": "🏆 over"}),))
        worker = paced_worker(storage, FAST)
        sent: list[str] = []
        started = asyncio.Event()

        async def send(item: OutboxItem) -> int | None:
            started.set()
            await asyncio.sleep(0.3)  # Telegram takes it, slowly
            sent.append(item.payload["text"])
            return 7

        worker._send = send  # type: ignore[method-assign]
        worker.clock = time.monotonic  # run() paces in real time
        task = asyncio.create_task(worker.run())
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()  # the bot stops mid-send
        with contextlib.suppress(asyncio.CancelledError):
            await task
        assert sent == ["🏆 over"]
        assert await storage.outbox_size() == 0  # recorded: no second copy from anyone
    finally:
        await storage.close()


async def test_a_send_that_hangs_as_the_sender_stops_is_given_up_and_goes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_module, "SETTLE_SECONDS", 0.2)
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        await storage.enqueue((OutboxOp(-1, "send", {"text": "Hi!"}),))
        worker = paced_worker(storage, FAST)
        started, given_up = asyncio.Event(), asyncio.Event()

        async def send(item: OutboxItem) -> int | None:
            started.set()
            try:
                await asyncio.Event().wait()  # Telegram never answers
            finally:
                given_up.set()
            return None

        worker._send = send  # type: ignore[method-assign]
        worker.clock = time.monotonic  # run() paces in real time
        task = asyncio.create_task(worker.run())
        await asyncio.wait_for(started.wait(), 5)
        task.cancel()
        done, _ = await asyncio.wait({task}, timeout=3)
        assert done == {task} and task.cancelled() and given_up.is_set()
        assert await storage.outbox_size() == 1  # still there: the next sender sends it
    finally:
        await storage.close()


class SlowHeadsStorage(CountingStorage):
    """Lets the test run something while a step waits for its second read."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.during_heads: Any = None

    async def outbox_turns(self, now: float, limit: int, after: Any = FIRST_TURN) -> OutboxTurns:
        turns = await super().outbox_turns(now, limit, after)
        if self.during_heads is not None:  # what the step read is stale when it returns
            await self.during_heads()
        return turns


class TwoMessagesToOneChat:
    """«Hi!» and «Commands» queued for one chat; each send waits for ``release`` (Telegram's
    answer), and ``finish_the_send`` lets the send in flight end, as a step's read hook."""

    def __init__(self, storage: Any) -> None:
        self.storage = storage
        self.slow = SlowHeadsStorage(storage)
        self.worker = paced_worker(self.slow, FAST)
        self.release = asyncio.Event()
        self.sent: list[str] = []
        self.worker._send = self.send  # type: ignore[method-assign]

    @classmethod
    async def open(cls, tmp_path: Path) -> TwoMessagesToOneChat:
        storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
        await storage.enqueue(
            (OutboxOp(1, "send", {"text": "Hi!"}), OutboxOp(1, "send", {"text": "Commands"}))
        )
        return cls(storage)

    async def send(self, item: OutboxItem) -> int | None:
        await self.release.wait()
        self.sent.append(item.payload["text"])
        return None

    async def finish_the_send(self) -> None:
        self.slow.during_heads = None
        self.release.set()
        await asyncio.gather(*self.worker._in_flight.values())


async def test_a_message_that_is_delivered_while_a_step_reads_the_outbox_is_sent_once(
    tmp_path: Path,
) -> None:
    """A step read the pending rows (the one in flight among them), and the send in flight
    finished before the step's next read returned: the step took its stale copy of that
    row for the chat's next message and sent it again (a player saw «Hi!» twice)."""
    chat = await TwoMessagesToOneChat.open(tmp_path)
    worker = chat.worker
    try:
        await worker.step()  # «Hi!» goes out and waits for Telegram's answer
        assert list(worker._in_flight) == [1]
        chat.slow.during_heads = chat.finish_the_send
        await worker.step()
        for _ in range(5):
            await worker.step()
            if worker._in_flight:
                await asyncio.gather(*worker._in_flight.values())
        assert chat.sent == ["Hi!", "Commands"]
        assert await chat.storage.outbox_size() == 0
    finally:
        await chat.storage.close()


async def test_a_send_that_ends_during_a_step_starts_the_next_step_at_once(
    tmp_path: Path,
) -> None:
    """A send that finishes while a step reads the outbox wakes the sender; that wake-up
    is not lost: the next step starts without waiting out the step's delay (here 30 s),
    so the chat's next message goes now."""
    chat = await TwoMessagesToOneChat.open(tmp_path)
    worker = chat.worker
    # run() paces in real time: a sender starts with the bot-wide bucket empty (it may
    # have taken the role from one that sent a moment ago), refilled as time passes.
    worker.clock = time.monotonic
    plain_step = worker.step

    async def step() -> float:
        await plain_step()
        return 30.0

    worker.step = step  # type: ignore[method-assign]
    task = asyncio.create_task(worker.run())
    try:
        for _ in range(100):  # the first step: «Hi!» is in flight
            if worker._in_flight:
                break
            await asyncio.sleep(0.01)
        chat.slow.during_heads = chat.finish_the_send
        worker.wake.set()  # a commit elsewhere: a step that finds «Hi!» in flight
        for _ in range(250):
            if len(chat.sent) == 2:
                break
            await asyncio.sleep(0.02)
        assert chat.sent == ["Hi!", "Commands"]
    finally:
        await worker.stop()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await chat.storage.close()


class LateEditsStorage(CountingStorage):
    """Runs ``after_drop`` once, right after a step dropped the superseded edits and
    before it reads what is pending: a commit landing in between."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.after_drop: Any = None

    async def outbox_drop_superseded(self) -> int:
        dropped: int = await self.inner.outbox_drop_superseded()
        hook, self.after_drop = self.after_drop, None
        if hook is not None:
            await hook()
        return dropped


def table_edit(text: str, milestone: str | None = None) -> OutboxOp:
    return OutboxOp(-5, "edit", {"text": text}, 9, "table", milestone=milestone)


async def test_edits_queued_while_a_step_reads_the_outbox_are_coalesced_all_the_same(
    tmp_path: Path,
) -> None:
    """Five edits of a table committed together just after a step dropped the superseded
    edits and before it read the pending rows: the step sent the oldest («version 0»),
    the table showed it for a moment and the chat's pace paid for a stale edit (seen as
    tests/e2e/test_reliability.py's coalescing failing under load). Only the newest goes,
    and an edit showing a finished trick (a milestone) still goes before it."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        late = LateEditsStorage(storage)
        worker = paced_worker(late, FAST)
        sent: list[str] = []

        async def send(item: OutboxItem) -> int | None:
            sent.append(item.payload["text"])
            return None

        async def drain() -> None:
            for _ in range(6):
                await worker.step()
                if worker._in_flight:
                    await asyncio.gather(*worker._in_flight.values())

        worker._send = send  # type: ignore[method-assign]

        async def five_edits() -> None:
            await storage.enqueue(tuple(table_edit(f"version {n}") for n in range(5)))

        late.after_drop = five_edits
        await drain()
        assert sent == ["version 4"]
        assert await storage.outbox_size() == 0

        async def trick_then_edit() -> None:
            await storage.enqueue((table_edit("trick 1", milestone="t1"), table_edit("next")))

        sent.clear()
        late.after_drop = trick_then_edit
        await drain()
        assert sent == ["trick 1", "next"]
        assert await storage.outbox_size() == 0
    finally:
        await storage.close()
