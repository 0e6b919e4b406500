"""A restarted sender keeps Telegram's windows.

Telegram counts a group's operations over a minute (about 20), a private chat's over a
second or so and the whole bot's over a second; a sender that starts again with full
buckets, as every restart did, sent each busy group a fresh burst on top of the minute's
share just spent, and a few restarts within a minute (SIGKILLs, a crash loop, an instance
taking the sender role over) drew 429s. Here the sender is killed again and again, each
time with an operation in flight (Telegram took it; the sender died before recording
it), and a new one is started on the same database. Telegram is the fake's own counter
(tests/support/fake_telegram/limits.py) at Telegram's limits; a clock the test moves stands for
time passing, so the counting is exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from bot.delivery.worker import DeliveryWorker
from storage import Backend, OutboxItem, OutboxOp
from tests.support.delivery import Clock, no_chat_forbidden
from tests.support.fake_telegram.limits import RateLimiter, RateLimits

GROUP, PLAYER = -5, 11
OTHER_GROUPS = range(-100, -130, -1)


class Telegram:
    """Counts every operation at its moment against Telegram's limits; an operation to a
    chat in ``hang_in`` is taken and then never answered (the sender dies meanwhile)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.limiter = RateLimiter(RateLimits())
        self.violations: list[tuple[float, int, str]] = []
        self.taken: list[tuple[float, int]] = []
        self.hang_in: set[int] = set()
        self.hanging: set[int] = set()

    async def send(self, item: OutboxItem) -> int:
        now, chat = self.clock.now, item.chat_id
        verdict = self.limiter.check(chat, chat > 0, now)
        if verdict is not None:
            self.violations.append((now, chat, verdict[0]))
        self.limiter.admit(chat, chat > 0, now)
        self.taken.append((now, chat))
        if chat in self.hang_in:
            self.hang_in.discard(chat)
            self.hanging.add(chat)
            await asyncio.Event().wait()  # until the sender is killed
        return len(self.taken)


class Senders:
    """One sender process after another on the same database."""

    def __init__(self, storage: Backend, telegram: Telegram, clock: Clock) -> None:
        self.storage = storage
        self.telegram = telegram
        self.clock = clock
        self.wall_offset = time.time() + 1 - clock.now  # the rows were queued just now
        self.worker = self._new()

    def _new(self) -> DeliveryWorker:
        worker = DeliveryWorker(
            None,  # type: ignore[arg-type]  # nothing reaches Telegram: _send is replaced
            self.storage,
            asyncio.Event(),
            on_forbidden=no_chat_forbidden,
            on_migrated=no_chat_forbidden,
            clock=self.clock,
            wall_clock=lambda: self.wall_offset + self.clock.now,
        )
        worker._send = self.telegram.send  # type: ignore[assignment]
        return worker

    async def start(self) -> None:
        """A new process: what the old one knew in memory is gone."""
        self.worker = self._new()
        await self.worker.rebuild_pacing()  # as DeliveryWorker.run does first

    async def kill(self) -> None:
        """SIGKILL: operations in flight are never recorded."""
        tasks = list(self.worker._in_flight.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.telegram.hanging.clear()

    async def run_for(self, seconds: float, until: set[int] | None = None) -> None:
        """Step as the sender's loop does, the clock moving to when the next operation may
        go; stops early once an operation to a chat in ``until`` hangs."""
        end = self.clock.now + seconds
        while self.clock.now < end:
            delay = await self.worker.step()
            await asyncio.sleep(0)  # the operations started reach Telegram
            answered = [
                task
                for chat, task in self.worker._in_flight.items()
                if chat not in self.telegram.hanging
            ]
            await asyncio.gather(*answered)
            if until is not None and until & self.telegram.hanging:
                return
            self.clock.now += 0.001 if answered else min(delay, end - self.clock.now + 0.001)


async def test_a_sender_killed_and_restarted_again_and_again_draws_no_429(db: Backend) -> None:
    await db.enqueue(
        tuple(OutboxOp(GROUP, "send", {"text": f"table {n}"}) for n in range(40))
        + tuple(OutboxOp(PLAYER, "send", {"text": f"hand {n}"}) for n in range(40))
        + tuple(OutboxOp(chat, "send", {"text": "lobby"}) for chat in OTHER_GROUPS)
    )
    clock = Clock()
    telegram = Telegram(clock)
    senders = Senders(db, telegram, clock)
    await senders.start()
    await senders.run_for(20)
    for _ in range(6):
        # Killed while the group's next operation is with Telegram, then started again
        # half a second later: six restarts within the group's minute.
        telegram.hang_in = {GROUP}
        await senders.run_for(10, until={GROUP})
        assert telegram.hanging == {GROUP}
        await senders.kill()
        clock.now += 0.5
        await senders.start()
        await senders.run_for(3)
    await senders.run_for(300)
    assert await db.outbox_size() == 0
    group_ops = sum(1 for _, chat in telegram.taken if chat == GROUP)
    assert group_ops == 40 + 6  # each killed operation went again
    assert telegram.violations == []
