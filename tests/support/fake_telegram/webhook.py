"""Webhook delivery for the fake Bot API: POST each update, re-deliver until answered 200.

Like Telegram: an update counts as delivered only when the bot answers it with 200, so
one whose bot died mid-update (connection reset, timeout, 5xx) is delivered again. The
fake stands in for a load balancer too: ``targets`` (the instances' own URLs) get the
updates in turn, so consecutive updates — and a re-delivery — go to different
instances. Updates of one chat are delivered one at a time, in order; different chats
in parallel (up to ``max_connections``), as Telegram does.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import aiohttp

if TYPE_CHECKING:
    from .server import FakeTelegram


@dataclass(frozen=True)
class Delivery:
    update_id: int
    target: str
    outcome: str  # "200", another status, or the connection error's name
    at: float


def update_chat(update: dict[str, Any]) -> int:
    """The chat whose updates must stay in order (0: none, or none that reads as one)."""
    try:
        for kind in ("message", "edited_message"):
            if kind in update:
                return int(update[kind]["chat"]["id"])
        query = update.get("callback_query")
        if query is not None:
            message = query.get("message")
            return int(message["chat"]["id"] if message else query["from"]["id"])
    except (KeyError, TypeError, ValueError):  # a raw update (FakeTelegram.raw_update)
        pass
    return 0


class WebhookDelivery:
    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.deliveries: list[Delivery] = []
        self._busy: set[int] = set()  # chats with an update in flight
        self._in_flight: set[int] = set()  # update ids
        # update id -> its chat, worked out once: each wake looks through every pending
        # update, and a flood's thousands made that (and the removal below) the fake's
        # own bottleneck, ~75% of its CPU delivering 5,000 (bench/junk.py --webhook).
        self._chats: dict[int, int] = {}
        self._turn = itertools.count()
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._session: aiohttp.ClientSession | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def wake(self) -> None:
        self._wake.set()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _targets(self) -> list[str]:
        fake = self.fake
        return list(fake.webhook_targets or ([fake.webhook_url] if fake.webhook_url else []))

    async def _run(self) -> None:
        timeout = aiohttp.ClientTimeout(total=self.fake.webhook_timeout)
        tasks: set[asyncio.Task[None]] = set()
        async with aiohttp.ClientSession(timeout=timeout) as session:
            self._session = session
            try:
                while True:
                    self._wake.clear()
                    for update in list(self.fake._pending):
                        if len(self._in_flight) >= self.fake.webhook_max_connections:
                            break
                        update_id = update["update_id"]
                        if update_id in self._in_flight:
                            continue
                        chat = self._chats.get(update_id)
                        if chat is None:
                            chat = self._chats[update_id] = update_chat(update)
                        if chat in self._busy:
                            continue
                        if not self._targets():
                            break
                        self._busy.add(chat)
                        self._in_flight.add(update["update_id"])
                        task = asyncio.create_task(self._deliver(update, chat))
                        tasks.add(task)
                        task.add_done_callback(tasks.discard)
                    # Not wait_for: on Python 3.11 it can drop the cancel that stops
                    # this loop, and the fake's shutdown then waited for ever.
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.05):
                            await self._wake.wait()
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    async def _deliver(self, update: dict[str, Any], chat: int) -> None:
        assert self._session is not None
        targets = self._targets()
        target = targets[next(self._turn) % len(targets)]
        headers = {}
        if self.fake.webhook_secret:
            headers["X-Telegram-Bot-Api-Secret-Token"] = self.fake.webhook_secret
        try:
            async with self._session.post(target, json=update, headers=headers) as response:
                await response.read()
                outcome = str(response.status)
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            outcome = type(exc).__name__
        self.deliveries.append(Delivery(update["update_id"], target, outcome, time.monotonic()))
        try:
            if outcome == "200":
                with contextlib.suppress(ValueError):  # (gone already: deleteWebhook dropped it)
                    self.fake._pending.remove(update)
                self._chats.pop(update["update_id"], None)
            else:
                await asyncio.sleep(self.fake.webhook_retry_delay)  # then delivered again
        finally:
            self._busy.discard(chat)
            self._in_flight.discard(update["update_id"])
            self._wake.set()
