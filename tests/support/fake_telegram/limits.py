"""Telegram's flood limits and injected faults."""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

LimitKind = Literal["group", "private", "global"]


@dataclass
class RateLimits:
    """Flood limits for message operations (sendMessage, edit*, deleteMessage).

    * a group or supergroup: at most ``group_max`` operations in any ``group_window``
      seconds (a burst of up to ``group_max`` back to back is fine);
    * a private chat: a token bucket of ``private_burst`` operations refilled at
      ``private_rate`` per second (about 1 per second with a short burst);
    * the whole bot: at most ``global_max`` operations in any ``global_window`` seconds.
    """

    group_max: int = 20
    group_window: float = 60.0
    private_rate: float = 1.0
    private_burst: int = 3
    global_max: int = 30
    global_window: float = 1.0


@dataclass(frozen=True)
class FloodViolation:
    """An operation that went over a limit."""

    method: str
    chat_id: int
    kind: LimitKind
    retry_after: int
    time: float
    enforced: bool


class RateLimiter:
    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits
        self._windows: dict[int, deque[float]] = {}
        self._buckets: dict[int, tuple[float, float]] = {}
        self._global: deque[float] = deque()

    @staticmethod
    def _window_wait(events: deque[float], max_ops: int, window: float, now: float) -> float:
        while events and events[0] <= now - window:
            events.popleft()
        if len(events) < max_ops:
            return 0.0
        return events[len(events) - max_ops] + window - now

    def check(self, chat_id: int, is_private: bool, now: float) -> tuple[LimitKind, float] | None:
        """Return the violated limit and seconds to wait, or ``None`` when admitted."""
        lim = self.limits
        waits: list[tuple[float, LimitKind]] = []
        g = self._window_wait(self._global, lim.global_max, lim.global_window, now)
        if g > 0:
            waits.append((g, "global"))
        if is_private:
            tokens, last = self._buckets.get(chat_id, (float(lim.private_burst), now))
            tokens = min(float(lim.private_burst), tokens + (now - last) * lim.private_rate)
            self._buckets[chat_id] = (tokens, now)
            if tokens < 1.0:
                waits.append(((1.0 - tokens) / lim.private_rate, "private"))
        else:
            events = self._windows.setdefault(chat_id, deque())
            w = self._window_wait(events, lim.group_max, lim.group_window, now)
            if w > 0:
                waits.append((w, "group"))
        if not waits:
            return None
        wait, kind = max(waits)
        return kind, wait

    def admit(self, chat_id: int, is_private: bool, now: float) -> None:
        self._global.append(now)
        if is_private:
            tokens, _ = self._buckets.get(chat_id, (float(self.limits.private_burst), now))
            self._buckets[chat_id] = (tokens - 1.0, now)
        else:
            self._windows.setdefault(chat_id, deque()).append(now)

    def reset(self) -> None:
        self._windows.clear()
        self._buckets.clear()
        self._global.clear()


def retry_after_seconds(wait: float) -> int:
    return max(1, math.ceil(wait))


class Faults:
    """Random faults, deterministic for a given seed.

    ``p_429``: share of requests answered 429 with ``retry_after`` drawn from
    ``retry_after_range``; ``p_5xx``: share answered with a status from ``statuses_5xx``
    (JSON body, or nginx-like HTML when ``html_5xx``); ``p_disconnect``: share whose
    connection is dropped without an answer; ``p_hang``: share held unanswered (a dead
    connection) until the bot gives up, or for ``hang_seconds`` after which the connection
    is dropped; ``latency``: (min, max) seconds added to
    every matching request. ``methods``: Bot API method names faults apply to (``None``:
    every method except getUpdates). Faults are drawn before a request has any effect.
    """

    def __init__(self, seed: int | None = 0) -> None:
        self.p_429: float = 0.0
        self.retry_after_range: tuple[int, int] = (1, 1)
        self.p_5xx: float = 0.0
        self.statuses_5xx: tuple[int, ...] = (500, 502)
        self.html_5xx: bool = False
        self.p_disconnect: float = 0.0
        self.p_hang: float = 0.0
        self.hang_seconds: float = 300.0
        self.latency: tuple[float, float] = (0.0, 0.0)
        self.methods: set[str] | None = None
        self._seed = seed
        self.rng = random.Random(seed)

    @property
    def seed(self) -> int | None:
        return self._seed

    @seed.setter
    def seed(self, value: int | None) -> None:
        self._seed = value
        self.rng = random.Random(value)

    def applies_to(self, method: str) -> bool:
        if self.methods is None:
            return method.lower() != "getupdates"
        return method.lower() in {m.lower() for m in self.methods}

    def clear(self) -> None:
        self.p_429 = self.p_5xx = self.p_disconnect = self.p_hang = 0.0
        self.html_5xx = False
        self.latency = (0.0, 0.0)
        self.methods = None


@dataclass
class OneOffFault:
    """A fault queued with :meth:`FakeTelegram.fail_next`."""

    method: str
    status: int
    description: str | None = None
    retry_after: int | None = None
    migrate_to_chat_id: int | None = None
    chat_id: int | None = None
    times: int = 1
    # The call takes effect first (Telegram accepted it), then the answer is the fault:
    # what a bot sees when the reply is lost, or when it dies before recording it.
    after_effect: bool = False
    # Answered with nginx's HTML error page instead of the Bot API's JSON (a 502 from the
    # proxy in front of Telegram): aiogram cannot decode it.
    html: bool = False


@dataclass(frozen=True)
class InjectedFault:
    """A fault that was actually served."""

    method: str
    status: int
    description: str
    time: float
    chat_id: int | None = None
    extra: dict[str, int] = field(default_factory=dict)
