"""What a step reads is bounded by what it may send, not by the outbox's backlog.

In a flood of strangers' commands (bench/junk.py), thousands of private chats each had an
answer queued, and each step of the sender read 500 due rows plus the head of every
chat's queue (about 576 rows converted a step) to start at most three operations: the
sender's CPU per operation grew with the backlog, exactly when the bot was busiest.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.delivery.worker import DeliveryWorker, Limits
from storage import Backend, OutboxItem, OutboxOp
from tests.support.delivery import paced_worker

STRANGERS = 3000
# A step may start three operations (the bot-wide bucket); a page of the chats' turns
# and a few rows besides are all it needs.
MOST_ROWS_PER_STEP = 40


class RowCounting:
    """The storage, counting the outbox rows each of its answers carries to the sender."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.rows = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        if not asyncio.iscoroutinefunction(method):
            return method

        async def counted(*args: Any, **kwargs: Any) -> Any:
            result = await method(*args, **kwargs)
            rows = getattr(result, "turns", result)  # a page of turns, or a list of rows
            if isinstance(rows, list):
                self.rows += len(rows)
            return result

        return counted


async def _one_step(worker: DeliveryWorker) -> list[str]:
    sent: list[str] = []

    async def send(item: OutboxItem) -> int | None:
        sent.append(item.payload["text"])
        return None

    worker._send = send  # type: ignore[method-assign]
    await worker.step()
    await asyncio.gather(*worker._in_flight.values())
    return sent


async def test_a_step_behind_thousands_of_answers_reads_a_few_rows_and_sends_the_table_first(
    db: Backend,
) -> None:
    await db.enqueue(
        tuple(OutboxOp(n, "send", {"text": f"answer {n}"}) for n in range(1, STRANGERS + 1))
    )
    await db.enqueue((OutboxOp(-5, "edit", {"text": "the table"}, 9, "table"),))
    counting = RowCounting(db)
    worker = paced_worker(counting, Limits())  # the bot-wide bucket: three at once

    sent = await _one_step(worker)

    assert sent == ["the table", "answer 1", "answer 2"]
    assert counting.rows <= MOST_ROWS_PER_STEP


async def test_chats_held_by_their_own_pace_do_not_keep_a_ready_chat_waiting(
    db: Backend,
) -> None:
    """Tables whose groups have used up their pace come first but cannot go; an answer
    behind more of them than one read of the chats' turns holds still goes in the step."""
    tables = 50
    await db.enqueue(
        tuple(
            OutboxOp(-n, "edit", {"text": f"table {n}"}, n, "table") for n in range(1, tables + 1)
        )
    )
    await db.enqueue((OutboxOp(11, "send", {"text": "Ann's answer"}),))
    worker = paced_worker(db, Limits())
    now = worker.clock()
    for n in range(1, tables + 1):  # each group has just had its burst
        bucket = worker.bucket(-n)
        for _ in range(3):
            bucket.take(now)

    assert await _one_step(worker) == ["Ann's answer"]


async def test_a_ping_and_the_next_pings_delete_cancel_out_before_the_chat_sends(
    db: Backend,
) -> None:
    """A player's chat paced while they got three turns: one 🔔 reaches them, not three
    sent and two deleted."""
    await db.enqueue(
        (
            OutboxOp(11, "send", {"text": "🔔 1"}, 9, "ping:11"),
            OutboxOp(11, "delete", {}, 9, "ping:11"),
            OutboxOp(11, "send", {"text": "🔔 2"}, 9, "ping:11"),
            OutboxOp(11, "delete", {}, 9, "ping:11"),
            OutboxOp(11, "send", {"text": "🔔 3"}, 9, "ping:11"),
        )
    )
    worker = paced_worker(db, Limits())

    assert await _one_step(worker) == ["🔔 3"]
    assert worker.stats.coalesced == 4
    assert await db.outbox_size() == 0
