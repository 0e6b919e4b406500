"""Who has the Mini App open, and waking their live connections when a game changes.

One :class:`Hub` per process. The game service tells it of every commit
(``Outbox.watchers.changed``, in-process: SQLite's one process, and the instance
that made a move on PostgreSQL); on PostgreSQL a trigger NOTIFYs every instance of a
game's new version from the move's own transaction (``storage.listen_games``), so a
player connected to one instance hears of a move made through another.

"In the app" (``in_app``): a live connection is open (here, or on another instance that
says so, ``heard``), or closed less than ``LEAVE_GRACE`` seconds ago (a phone switching
apps, a reconnect). While a player is in the app the service neither edits their hand
message on each move nor pings them; when they leave (the grace over with no
connection back), their hand message is brought up to date once (``on_leave``), if the
game moved on meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any

from bot.service.followers import Watchers

log = logging.getLogger(__name__)

LEAVE_GRACE = 5.0
# Several instances (PostgreSQL): each tells the others who has a game open in the app
# through it, again every ANNOUNCE_EVERY seconds; a player not told of again within
# REMOTE_TTL is taken to have left (an instance that died says nothing).
ANNOUNCE_EVERY = 20.0
REMOTE_TTL = 45.0


class Hub(Watchers):
    def __init__(
        self, *, grace: float = LEAVE_GRACE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.grace = grace
        self.clock = clock
        self._waiters: dict[int, set[asyncio.Event]] = {}
        self._open: dict[tuple[int, int], int] = {}
        self._left: dict[tuple[int, int], float] = {}
        self._since: dict[tuple[int, int], int | None] = {}
        self._remote: dict[tuple[int, int], float] = {}  # told by an instance: until when
        self._tasks: set[asyncio.Task[None]] = set()
        self._onlookers = 0  # open connections that only listen (``present`` False)
        # (game, user, the game's version when they opened it): bring their hand up to date
        self.on_leave: Callable[[int, int, int | None], Awaitable[None]] | None = None
        # (game, user, present): tell the other instances (PostgreSQL NOTIFY)
        self.announce: Callable[[int, int, bool], Awaitable[None]] | None = None
        self.closing = False

    # --- the service's side (Watchers) --------------------------------------------

    def changed(self, game_id: int) -> None:
        """``game_id`` changed (0: any game may have, e.g. a lost LISTEN connection)."""
        groups = self._waiters.values() if game_id == 0 else [self._waiters.get(game_id, set())]
        for waiters in groups:
            for event in waiters:
                event.set()

    def in_app(self, game_id: int, user_id: int) -> bool:
        key = (game_id, user_id)
        if self._open.get(key):
            return True
        remote = self._remote.get(key)
        if remote is not None:
            if self.clock() < remote:
                return True
            del self._remote[key]
        left = self._left.get(key)
        if left is None:
            return False
        if self.clock() - left < self.grace:
            return True
        del self._left[key]
        return False

    def heard(self, game_id: int, user_id: int, present: bool) -> None:
        """An instance (maybe this one) tells that the player opened or left the game."""
        key = (game_id, user_id)
        if present:
            self._remote[key] = self.clock() + REMOTE_TTL
        elif self._remote.pop(key, None) is not None:
            self._left[key] = self.clock()  # the same grace as for a connection here

    # --- connections --------------------------------------------------------------

    @property
    def connections(self) -> int:
        return sum(self._open.values()) + self._onlookers

    @contextlib.contextmanager
    def connection(
        self, game_id: int, user_id: int, version: int | None = None, present: bool = True
    ) -> Iterator[asyncio.Event]:
        """A live connection of ``user_id`` to ``game_id`` (at ``version``): the event is
        set whenever the game changes (and when the server stops). ``present`` False: an
        onlooker's, which only listens (nobody is "in the app" by it)."""
        event = asyncio.Event()
        if not present:
            with self._listening(game_id, event):
                self._onlookers += 1
                try:
                    yield event
                finally:
                    self._onlookers -= 1
            return
        key = (game_id, user_id)
        first = not self._open.get(key)
        self._open[key] = self._open.get(key, 0) + 1
        if first and key not in self._left:
            self._since[key] = version  # (back within the grace: since the first visit)
        self._left.pop(key, None)
        if first:
            self._spawn(self._announce(key, True))
        try:
            with self._listening(game_id, event):
                yield event
        finally:
            count = self._open.get(key, 1) - 1
            if count > 0:
                self._open[key] = count
            else:
                self._open.pop(key, None)
                self._left[key] = self.clock()
                if not self.closing:
                    self._spawn(self._after_leaving(key))

    @contextlib.contextmanager
    def _listening(self, game_id: int, event: asyncio.Event) -> Iterator[None]:
        self._waiters.setdefault(game_id, set()).add(event)
        try:
            yield
        finally:
            waiters = self._waiters.get(game_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[game_id]

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _announce(self, key: tuple[int, int], present: bool) -> None:
        if self.announce is not None:
            try:
                await self.announce(*key, present)
            except Exception:
                log.warning("telling the other instances of %s failed", key, exc_info=True)

    async def _after_leaving(self, key: tuple[int, int]) -> None:
        await asyncio.sleep(self.grace)
        if self._open.get(key):
            return  # back in the app
        self._left.pop(key, None)
        since = self._since.pop(key, None)
        await self._announce(key, False)
        if self.on_leave is not None:
            try:
                await self.on_leave(*key, since)
            except Exception:
                log.warning("bringing the hand of %s up to date failed", key, exc_info=True)

    async def announcer(self) -> None:
        """Runs while the process serves: tells the other instances again, now and then,
        who has a game open in the app here."""
        while True:
            await asyncio.sleep(ANNOUNCE_EVERY)
            for key, count in list(self._open.items()):
                if count:
                    await self._announce(key, True)

    async def close(self) -> None:
        """The server stops: every live connection is woken to end."""
        self.closing = True
        for waiters in list(self._waiters.values()):
            for event in waiters:
                event.set()
        for task in list(self._tasks):
            task.cancel()
