"""Bounds on the bot's answers to group commands, so chatter cannot hold up a table.

A group gets about 20 messages a minute from a bot, shared by the game's table and
every command answer. Twenty ``/score`` from one onlooker used to queue twenty
answers ahead of the table. Now the same answer to the same user's same command
within ``cooldown`` seconds is not sent again (a changed score or language is), and a group answers at most ``burst`` commands at
once, refilled one per ``refill`` seconds; beyond that the answer goes to the
asker's private chat (bot/handlers/common.py), with a short pointer in the group at
most once per ``pointer_gap`` seconds. Answers go before the table's edits
(bot/delivery/worker.py), so within this share each comes in a few seconds even mid-game.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum


class Route(Enum):
    GROUP = "group"
    PRIVATE = "private"
    NONE = "none"


@dataclass
class ChatterLimit:
    cooldown: float = 30.0
    burst: float = 3.0
    refill: float = 15.0
    pointer_gap: float = 30.0
    clock: Callable[[], float] = time.monotonic
    _last: dict[tuple[int, int, str], float] = field(default_factory=dict)
    _tokens: dict[int, tuple[float, float]] = field(default_factory=dict)
    _pointers: dict[int, float] = field(default_factory=dict)

    def route(self, chat_id: int, user_id: int, command: str) -> Route:
        """Where the answer to ``command`` (with what makes an answer new, e.g. its text)
        from ``user_id`` in group ``chat_id`` goes."""
        now = self.clock()
        if len(self._last) > 10_000:  # forget old entries; the dict stays small
            self._last = {k: t for k, t in self._last.items() if now - t < self.cooldown}
        key = (chat_id, user_id, command)
        last = self._last.get(key)
        if last is not None and now - last < self.cooldown:
            return Route.NONE
        self._last[key] = now
        tokens, stamp = self._tokens.get(chat_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) / self.refill)
        if tokens >= 1:
            self._tokens[chat_id] = (tokens - 1, now)
            return Route.GROUP
        self._tokens[chat_id] = (tokens, now)
        return Route.PRIVATE

    def pointer(self, chat_id: int) -> bool:
        """May group ``chat_id`` get a pointer to an answer sent privately now? One
        pointer stands for every answer sent privately until the next may go."""
        now = self.clock()
        if len(self._pointers) > 10_000:
            self._pointers = {k: t for k, t in self._pointers.items() if now - t < self.pointer_gap}
        last = self._pointers.get(chat_id)
        if last is not None and now - last < self.pointer_gap:
            return False
        self._pointers[chat_id] = now
        return True
