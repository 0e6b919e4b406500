"""The sender's pacing counts the moment operations start, however long its queries take.

Telegram's global limit (about 30 operations a second for the whole bot) is kept by a
token bucket. The bucket was read at a moment taken before the outbox query that picks
the chats to serve: a slow query then made operations the bucket had spread out start
together, and the fake answered 429 (bench/bot.py --backend postgresql, while the games
were being set up). A clock the test moves stands for time passing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.delivery.worker import DeliveryWorker, Limits
from storage import OutboxItem, OutboxOp, open_storage
from storage.rows import FIRST_TURN, OutboxTurns
from tests.support.delivery import Clock, no_chat_forbidden

# A burst of 3, then 2 a second: at most 5 operations start in any one second.
LIMITS = Limits(
    group_capacity=100,
    group_rate=100,
    private_capacity=100,
    private_rate=100,
    global_capacity=3,
    global_rate=2,
)
MOST_PER_SECOND = 5


class SlowHeads:
    """The storage, with a query of the chats' turns that takes ``delays`` (one per call)."""

    def __init__(self, inner: Any, clock: Clock, delays: list[float]) -> None:
        self.inner = inner
        self.clock = clock
        self.delays = delays

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def outbox_turns(self, now: float, limit: int, after: Any = FIRST_TURN) -> OutboxTurns:
        turns: OutboxTurns = await self.inner.outbox_turns(now, limit, after)
        self.clock.now += self.delays.pop(0) if self.delays else 0.0
        return turns


async def test_a_slow_outbox_query_does_not_bunch_operations_past_the_global_limit(
    tmp_path: Path,
) -> None:
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        await storage.enqueue(
            tuple(OutboxOp(-n, "send", {"text": f"lobby {n}"}) for n in range(1, 31))
        )
        clock = Clock()
        worker = DeliveryWorker(
            None,  # type: ignore[arg-type]  # nothing is sent: starts are recorded below
            SlowHeads(storage, clock, [0.8]),  # type: ignore[arg-type]
            asyncio.Event(),
            on_forbidden=no_chat_forbidden,
            on_migrated=no_chat_forbidden,
            limits=LIMITS,
            clock=clock,
            wall_clock=lambda: 1e12,  # every row is due
        )
        starts: list[float] = []

        async def deliver(item: OutboxItem) -> None:
            starts.append(clock.now)
            await storage.outbox_done(item.id)

        worker._deliver = deliver  # type: ignore[method-assign]
        for _ in range(400):
            if len(starts) == 30:
                break
            await worker.step()
            if worker._in_flight:
                await asyncio.gather(*worker._in_flight.values())
            clock.now += 0.05  # woken again soon (a commit, an operation done)
        assert len(starts) == 30
        busiest = max(sum(1 for s in starts if t <= s < t + 1.0) for t in starts)
        assert busiest <= MOST_PER_SECOND, f"{busiest} operations started within a second"
    finally:
        await storage.close()
