"""Prometheus metrics (GET /metrics) and the health check (GET /healthz).

Counters are per process; Prometheus adds the instances up. Outbox depth and age are
read from the database at scrape time, so every instance reports the shared queue.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

from storage import Backend

UPDATES: Final = Counter("burkozel_updates_handled", "Telegram updates handled", ["kind"])
DUPLICATES: Final = Counter(
    "burkozel_updates_duplicate", "Re-delivered updates dropped (already handled)"
)
UPDATES_HELD: Final = Gauge(
    "burkozel_updates_held", "Updates received and not yet handled (waiting or running)"
)
UPDATES_DROPPED: Final = Counter(
    "burkozel_updates_dropped", "Polled updates dropped: their chat held too many already"
)
TAPS_SCREENED: Final = Counter(
    "burkozel_taps_screened",
    "Taps answered before their chat's queue: refused (no game state needed), shed (the"
    " tapper over their rate), unanswered (too many answers waiting)",
    ["why"],
)
MESSAGES_SHED: Final = Counter(
    "burkozel_messages_shed", "Messages dropped unqueued: their writer over a person's rate"
)
UPDATES_UNREADABLE: Final = Counter(
    "burkozel_updates_unreadable",
    "Updates skipped: they do not parse (a field or kind this aiogram reads otherwise)",
    ["kind"],
)
MOVES: Final = Counter("burkozel_moves_applied", "Game moves committed")
FLOOD_WAITS: Final = Counter("burkozel_telegram_429", "429 Too Many Requests received")
OUTBOX_DEPTH: Final = Gauge("burkozel_outbox_depth", "Rows waiting in the outbox")
OUTBOX_AGE: Final = Gauge("burkozel_outbox_age_seconds", "Age of the oldest outbox row")
SENDER: Final = Gauge("burkozel_sender", "1 if this instance runs the sender and timers")
TAP_SECONDS: Final = Histogram(
    "burkozel_tap_to_answer_seconds",
    "From receiving a button tap to having handled (and answered) it",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)

# The Mini App (bot/webapp).
WEBAPP_CONNECTIONS: Final = Gauge(
    "burkozel_webapp_connections", "Open Mini App live connections (SSE)"
)
WEBAPP_SESSIONS: Final = Counter("burkozel_webapp_sessions", "Mini App sessions issued")
WEBAPP_ACTIONS: Final = Counter("burkozel_webapp_actions", "Mini App actions applied")
WEBAPP_REFUSALS: Final = Counter("burkozel_webapp_refusals", "Mini App requests refused", ["error"])


def add_routes(
    app: web.Application,
    storage: Backend,
    is_sender: Callable[[], bool],
    health: Callable[[], dict[str, Any]] | None = None,
) -> web.Application:
    """Add /healthz and /metrics to ``app``; ``health``: more of /healthz's body."""

    async def healthz(_: web.Request) -> web.Response:
        ok = await storage.ping()
        body: dict[str, Any] = {"database": "ok" if ok else "unreachable", "sender": is_sender()}
        if health is not None:
            body.update(health())
        return web.json_response(body, status=200 if ok else 503)

    async def metrics(_: web.Request) -> web.Response:
        try:
            OUTBOX_DEPTH.set(await storage.outbox_size())
            oldest = await storage.outbox_oldest()
            OUTBOX_AGE.set(0 if oldest is None else max(0.0, time.time() - oldest))
        except Exception:  # the scrape still reports the counters
            OUTBOX_DEPTH.set(float("nan"))
        SENDER.set(1 if is_sender() else 0)
        return web.Response(body=generate_latest(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    return app


async def serve(
    app: web.Application, host: str, port: int, *more: tuple[str, int]
) -> Callable[[], Awaitable[None]]:
    """Start serving ``app`` on ``host:port`` (and the ``more`` addresses); returns the
    function that stops it."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    for where in ((host, port), *more):
        site = web.TCPSite(runner, *where)
        await site.start()
    return runner.cleanup
