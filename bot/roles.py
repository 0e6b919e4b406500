"""Which instance sends: exactly one runs the outbox sender and the timers.

Telegram's rate limits are per bot, not per process, and a timer must fire once, so with
several instances on one database the sender role is elected through the database
(storage ``try_lead``: a PostgreSQL session advisory lock; SQLite's single process always
has it). Every instance keeps trying; when the sender dies its lock is released and
another takes over within about a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Final

from storage import Backend

log = logging.getLogger(__name__)

ELECTION_SECONDS: Final = 1.0


class SenderRole:
    def __init__(
        self,
        storage: Backend,
        jobs: dict[str, Callable[[], Coroutine[Any, Any, None]]],
        wake: Callable[[], None],
        *,
        interval: float = ELECTION_SECONDS,
    ) -> None:
        self.storage = storage
        self.jobs = jobs  # started while this instance holds the role
        self.wake = wake  # called when any instance queues outbox rows
        self.interval = interval
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def active(self) -> bool:
        return bool(self._tasks)

    async def step(self) -> None:
        """One election: take the role if it is free, give it up if it was lost."""
        try:
            leading = await self.storage.try_lead()
        except Exception:
            log.exception("sender election failed")
            leading = False
        if leading and not self._tasks:
            await self._start()
        elif not leading and self._tasks:
            log.warning("this instance is no longer the sender")
            await self._stop()

    async def run(self) -> None:
        """Hold elections until cancelled; the role is given up on the way out."""
        try:
            while True:
                await self.step()
                await asyncio.sleep(self.interval)
        finally:
            await self._stop()
            with contextlib.suppress(Exception):
                await self.storage.resign()

    async def _start(self) -> None:
        try:
            await self.storage.listen_outbox(self.wake)
        except Exception:
            log.warning("cannot listen for outbox rows; polling only", exc_info=True)
        log.info("this instance is the sender (outbox and timers)")
        self._tasks = [asyncio.create_task(job(), name=name) for name, job in self.jobs.items()]
        self.wake()  # whatever the previous sender left is due now

    async def _stop(self) -> None:
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
