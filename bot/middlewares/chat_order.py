"""The updates this process holds: one chat's in order, chats side by side, a bounded number.

Every update, polled or posted by Telegram, waits here for its turn: one chat's updates
run one at a time, in the order they came (a command sent right after /start must not
be answered before /start's greeting, which writes to the database first); different
chats run side by side, at most ``running`` at once, taking turns (a chat with a
backlog goes to the back of the line after each of its updates), so one chat's flood
cannot hold up another chat's tap. A chat whose next update is a tap goes before those
whose next is a message: Telegram gives up on a tap's answer after about ten seconds,
and a message's answer has no such deadline (a flood of strangers' messages in hundreds
of private chats made a seated player's tap wait for a turn behind all of them). The
taps that reach the line are few: the screen answers or sheds the rest.

What is held is bounded (unbounded, 5,000 junk updates were once 5,000 tasks and
50-75 MB that stayed). Polling fetches no more while ``capacity`` updates are held: the rest
waits at Telegram, not in memory. Telegram hands out updates in the order they came,
so polling cannot skip past a flooding chat to reach the others, only hold its updates
or drop them: a chat may hold up to ``per_chat`` (half the room, so the other chats
keep the other half), and what it sends beyond that while it catches up is dropped,
counted and logged. A person's taps never come near that: they are handled long
before hundreds pile up. Webhook mode drops nothing: Telegram sends a chat's next
update only once the previous one is answered and keeps at most ``WEBHOOK_CONNECTIONS``
requests open, so a request that finds no room simply waits, and Telegram sends less
meanwhile.

Before any of that, ``screen`` may take an update off the line altogether (tap_screen.py:
a tap answered at once, or shed; message_screen.py: one person's flood of messages
shed), so that it neither waits nor takes room.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from aiogram.dispatcher.middlewares.user_context import UserContextMiddleware
from aiogram.types import Update

from bot import metrics

log = logging.getLogger(__name__)

Handle = Callable[[Update], Awaitable[Any]]
Screen = Callable[[Update], Awaitable[bool]]  # True: dealt with, not to be queued

# Updates handled at once: enough for the storage to commit them together (with 16,
# bench/bot.py --quick took 250 updates/s at 4-5 CPU ms each; with 64, 400 at 2.5).
RUNNING = 64
# Updates held (waiting or running): at most ~30 KB each (a tap carries the message it
# was on), so at most ~30 MB; bench/junk.py: +24 MB peak under a flood (256
# held: +12 MB, but then a chat's share, 128, is less than one burst of forged taps in
# tests/e2e/test_reliability.py).
CAPACITY = 1024


def chat_of(update: Update) -> Hashable:
    """What orders an update: its chat, else its user (whose private chat has their id),
    else nothing (an update of its own)."""
    context = UserContextMiddleware.resolve_event_context(update)
    if context.chat is not None:
        return context.chat.id
    if context.user is not None:
        return context.user.id
    return ("update", update.update_id)


class ChatQueues:
    """Updates waiting or being handled, a queue per chat; see the module docstring."""

    def __init__(
        self,
        handle: Handle,
        *,
        running: int = RUNNING,
        capacity: int = CAPACITY,
        per_chat: int = CAPACITY // 2,
        screen: Screen | None = None,
    ) -> None:
        self._handle = handle
        self._screen = screen
        self.running = running
        self.capacity = capacity
        self.per_chat = per_chat
        # chat -> its updates held, oldest first; the first one is running if the chat
        # is not in a ready line. An idle chat keeps no entry.
        self._chats: dict[Hashable, deque[tuple[Update, asyncio.Future[Any] | None]]] = {}
        # Chats whose first update waits for a slot: a tap (first) or anything else.
        self._ready_taps: deque[Hashable] = deque()
        self._ready: deque[Hashable] = deque()
        self._tasks: set[asyncio.Task[None]] = set()
        self._held = 0
        self._running_now = 0
        self._freed = asyncio.Event()  # pulsed each time an update finishes
        self._dropped: dict[Hashable, int] = {}
        self._stopping = False

    @property
    def held(self) -> int:
        """Updates waiting or running."""
        return self._held

    def busy_chats(self) -> int:
        """Chats with an update waiting or running (an idle chat keeps nothing)."""
        return len(self._chats)

    async def put(self, update: Update) -> None:
        """Polling: queue ``update`` once there is room, or drop it if its chat is
        flooding (it holds ``per_chat`` already)."""
        if self._screen is not None and await self._screen(update):
            return
        while self._held >= self.capacity:
            await self._freed.wait()
        chat = chat_of(update)
        queue = self._chats.get(chat)
        if queue is not None and len(queue) >= self.per_chat:
            metrics.UPDATES_DROPPED.inc()
            if chat not in self._dropped:
                log.warning(
                    "chat %s holds %s updates: dropping more until it catches up", chat, len(queue)
                )
            self._dropped[chat] = self._dropped.get(chat, 0) + 1
            return
        self._add(chat, update, None)

    async def handle(self, update: Update) -> Any:
        """Webhook mode: wait for room (however long), queue ``update`` and return what
        handling it returned (or raise what it raised)."""
        if self._screen is not None and await self._screen(update):
            return None
        chat = chat_of(update)
        while self._held >= self.capacity or len(self._chats.get(chat, ())) >= self.per_chat:
            await self._freed.wait()
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._add(chat, update, done)
        return await done

    async def drain(self, timeout: float) -> None:
        """Let what is held be handled (stopping), for at most ``timeout`` seconds; then
        what is still running is cancelled and what waits is forgotten."""
        try:
            async with asyncio.timeout(timeout):
                while self._held:
                    await self._freed.wait()
        except TimeoutError:
            log.warning("stopping with %s updates unhandled", self._held)
        self._stopping = True
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _add(self, chat: Hashable, update: Update, done: asyncio.Future[Any] | None) -> None:
        queue = self._chats.get(chat)
        if queue is None:
            queue = self._chats[chat] = deque()
            self._line_up(chat, update)
        queue.append((update, done))
        self._held += 1
        self._start()

    def _line_up(self, chat: Hashable, first: Update) -> None:
        """``chat`` waits for a slot, ``first`` its next update."""
        (self._ready if first.callback_query is None else self._ready_taps).append(chat)

    def _start(self) -> None:
        while self._running_now < self.running and not self._stopping:
            ready = self._ready_taps or self._ready
            if not ready:
                return
            chat = ready.popleft()
            update, done = self._chats[chat][0]
            self._running_now += 1
            task = asyncio.create_task(self._run(chat, update, done))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, chat: Hashable, update: Update, done: asyncio.Future[Any] | None) -> None:
        try:
            result = await self._handle(update)
        except asyncio.CancelledError:
            if done is not None:
                done.cancel()
            raise
        except Exception as exc:
            if done is None:
                log.exception("update %s failed", update.update_id)
            elif not done.done():
                done.set_exception(exc)
        else:
            if done is not None and not done.done():
                done.set_result(result)
        finally:
            self._finished(chat)

    def _finished(self, chat: Hashable) -> None:
        queue = self._chats[chat]
        queue.popleft()
        self._held -= 1
        self._running_now -= 1
        if queue:
            # Behind the chats already waiting (of its kind): turns are fair.
            self._line_up(chat, queue[0][0])
        else:
            del self._chats[chat]
            dropped = self._dropped.pop(chat, 0)
            if dropped:
                log.warning("chat %s caught up; %s of its updates were dropped", chat, dropped)
        self._freed.set()  # wakes every waiter, each to look again
        self._freed.clear()
        self._start()
