"""Who has the Mini App open, and waking their live connections when a game changes.

One :class:`Hub` per process. The game service tells it of every commit
(``ServiceCore.watchers.changed``, in-process: SQLite's one process, and the instance
that made a move on PostgreSQL); on PostgreSQL a trigger NOTIFYs every instance of a
game's new version from the move's own transaction (``storage.listen_games``), so a
player connected to one instance hears of a move made through another.

"In the app" (``in_app``): a live connection is open, or closed less than
``LEAVE_GRACE`` seconds ago (a phone switching apps, a reconnect). While a player is in
the app the service neither edits their hand message on each move nor pings them;
when they leave (the grace over with no connection back), their hand message is
brought up to date once (``on_leave``), if any edit was skipped meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator

from bot.service.core import Watchers

log = logging.getLogger(__name__)

LEAVE_GRACE = 5.0


class Hub(Watchers):
    def __init__(
        self, *, grace: float = LEAVE_GRACE, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.grace = grace
        self.clock = clock
        self._waiters: dict[int, set[asyncio.Event]] = {}
        self._open: dict[tuple[int, int], int] = {}
        self._left: dict[tuple[int, int], float] = {}
        self._skipped: set[tuple[int, int]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.on_leave: Callable[[int, int], Awaitable[None]] | None = None
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
        left = self._left.get(key)
        if left is None:
            return False
        if self.clock() - left < self.grace:
            return True
        del self._left[key]
        return False

    def skipped(self, game_id: int, user_id: int) -> None:
        self._skipped.add((game_id, user_id))

    # --- connections --------------------------------------------------------------

    @property
    def connections(self) -> int:
        return sum(self._open.values())

    @contextlib.contextmanager
    def connection(self, game_id: int, user_id: int) -> Iterator[asyncio.Event]:
        """A live connection of ``user_id`` to ``game_id``: the event is set whenever the
        game changes (and when the server stops)."""
        key = (game_id, user_id)
        event = asyncio.Event()
        self._waiters.setdefault(game_id, set()).add(event)
        self._open[key] = self._open.get(key, 0) + 1
        self._left.pop(key, None)
        try:
            yield event
        finally:
            waiters = self._waiters.get(game_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[game_id]
            count = self._open.get(key, 1) - 1
            if count > 0:
                self._open[key] = count
            else:
                self._open.pop(key, None)
                self._left[key] = self.clock()
                if not self.closing:
                    task = asyncio.get_running_loop().create_task(self._after_leaving(key))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)

    async def _after_leaving(self, key: tuple[int, int]) -> None:
        await asyncio.sleep(self.grace)
        if self._open.get(key) or key not in self._skipped:
            return  # back in the app, or nothing to bring up to date
        self._skipped.discard(key)
        self._left.pop(key, None)
        if self.on_leave is not None:
            try:
                await self.on_leave(*key)
            except Exception:
                log.warning("bringing the hand of %s up to date failed", key, exc_info=True)

    async def close(self) -> None:
        """The server stops: every live connection is woken to end."""
        self.closing = True
        for waiters in list(self._waiters.values()):
            for event in waiters:
                event.set()
        for task in list(self._tasks):
            task.cancel()
