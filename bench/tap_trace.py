"""Where a tap's time goes inside the bot, for bench/junk.py --trace.

The bot's process (bench/junk.py's child) calls :func:`install` before the App starts:
it wraps, from outside, the steps a tap goes through (read from getUpdates, screened,
queued, given a running slot, the game's lock, each storage read and write, the
answerCallbackQuery call) and notes when each happened for every callback query, on
the same clock (``time.monotonic``, shared by the bench's process). It also samples,
every ``TICK`` seconds, the event loop's lag (how late a ``TICK`` sleep wakes), the
storage connection's queue (jobs waiting for its thread, writes waiting for the next
group commit) and the updates held. Nothing of the bot is changed but these wrappers;
the notes are written as JSON when the process ends.

The bench's process notes its own side (:class:`FakeSide`): when the fake handed each
update out in a getUpdates answer, and its own event loop's lag. :func:`report` puts
both together for the seated players' taps.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import json
import statistics
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

TICK = 0.01

_update: contextvars.ContextVar[int | None] = contextvars.ContextVar("traced_update", default=None)
_putting: list[asyncio.Task[Any] | None] = [None]  # the polling task while it puts a batch


class Notes:
    """update_id -> {step: time} (a step seen twice keeps its first and its last)."""

    def __init__(self) -> None:
        self.taps: dict[int, dict[str, Any]] = {}
        self.ticks: list[tuple[float, float, int, int, int, int]] = []
        # getUpdates round trips: [sent, answered, updates, s parsing them, s putting them,
        # s of storage reads while putting them (the screen's), offset asked for]
        self.polls: list[list[float]] = []

    def note(self, update_id: int | None, step: str, at: float | None = None) -> None:
        if update_id is None or update_id not in self.taps:
            return
        steps = self.taps[update_id]
        when = time.monotonic() if at is None else at
        steps.setdefault(step, when)
        steps[step + "/last"] = when

    def add(self, update_id: int, step: str, span: tuple[float, float]) -> None:
        if update_id in self.taps:
            self.taps[update_id].setdefault("spans", []).append((step, *span))


NOTES = Notes()


def install(path: Path) -> None:
    """Wrap the bot's steps (in the bot's process, before the App is built)."""
    from aiogram.types import Update

    from bot import app as bot_app
    from bot import intake
    from bot.delivery import lean_api
    from bot.middlewares import chat_order
    from bot.service import games
    from storage.sqlite import Storage

    parse = intake.parse

    def traced_parse(raw: Any, bot: Any) -> Update | None:
        start = time.monotonic()
        update = parse(raw, bot)
        now = time.monotonic()
        if NOTES.polls:
            NOTES.polls[-1][3] += now - start
        if update is not None and update.callback_query is not None:
            NOTES.taps[update.update_id] = {"fetched": now}
        return update

    def poll_started(method: Any) -> list[Any]:
        poll = [time.monotonic(), 0.0, 0, 0.0, 0.0, 0.0, method.offset or 0]
        NOTES.polls.append(poll)
        return poll

    from aiogram import Bot

    bot_call = Bot.__call__

    async def traced_bot_call(self: Any, method: Any, request_timeout: Any = None) -> Any:
        if not isinstance(method, intake.ReadUpdates):
            return await bot_call(self, method, request_timeout)
        poll = poll_started(method)
        result = await bot_call(self, method, request_timeout)
        poll[1], poll[2] = time.monotonic(), len(result)
        return result

    Bot.__call__ = traced_bot_call  # type: ignore[method-assign]

    intake.parse = traced_parse  # type: ignore[assignment]

    queues = chat_order.ChatQueues
    put, add, run = queues.put, queues._add, queues._run

    async def traced_put(self: Any, update: Update) -> None:
        start = time.monotonic()
        _putting[0] = asyncio.current_task()
        try:
            await _put(self, update)
        finally:
            _putting[0] = None
            if NOTES.polls:
                NOTES.polls[-1][4] += time.monotonic() - start

    async def _put(self: Any, update: Update) -> None:
        NOTES.note(update.update_id, "put")
        screen = self._screen
        if screen is not None and not getattr(screen, "traced", False):

            async def traced_screen(update: Update) -> bool:
                taken = await screen(update)
                NOTES.note(update.update_id, "screened")
                if taken:
                    NOTES.note(update.update_id, "taken by the screen")
                return bool(taken)

            traced_screen.traced = True  # type: ignore[attr-defined]
            self._screen = traced_screen
        await put(self, update)

    def traced_add(self: Any, chat: Any, update: Update, done: Any) -> None:
        NOTES.note(update.update_id, "queued")
        add(self, chat, update, done)

    async def traced_run(self: Any, chat: Any, update: Update, done: Any) -> None:
        NOTES.note(update.update_id, "started")
        _update.set(update.update_id)
        await run(self, chat, update, done)
        NOTES.note(update.update_id, "finished")

    queues.put = traced_put  # type: ignore[method-assign]
    queues._add = traced_add  # type: ignore[method-assign]
    queues._run = traced_run  # type: ignore[method-assign]

    lock = games.Games.lock

    @contextlib.asynccontextmanager
    async def traced_lock(self: Any, game_id: int, **kwargs: Any) -> AsyncIterator[None]:
        NOTES.note(_update.get(), "lock wanted")
        async with lock(self, game_id, **kwargs):
            NOTES.note(_update.get(), "locked")
            yield
        NOTES.note(_update.get(), "unlocked")

    games.Games.lock = traced_lock  # type: ignore[method-assign]

    read, write, init = Storage._read, Storage._write, Storage.__init__
    storages: list[Any] = []

    async def traced_read(self: Any, body: Any) -> Any:
        start = time.monotonic()
        try:
            return await read(self, body)
        finally:
            update_id = _update.get()
            if update_id is not None:
                NOTES.add(update_id, "read", (start, time.monotonic()))
            elif _putting[0] is asyncio.current_task() and NOTES.polls:
                NOTES.polls[-1][5] += time.monotonic() - start

    async def traced_write(self: Any, body: Any) -> Any:
        start = time.monotonic()
        try:
            return await write(self, body)
        finally:
            update_id = _update.get()
            if update_id is not None:
                NOTES.add(update_id, "write", (start, time.monotonic()))

    def traced_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        storages.append(self)

    Storage._read = traced_read  # type: ignore[method-assign]
    Storage._write = traced_write  # type: ignore[method-assign]
    Storage.__init__ = traced_init  # type: ignore[method-assign]

    call = lean_api.call

    async def traced_call(bot: Any, name: str, params: dict[str, Any], **kwargs: Any) -> Any:
        if name != "answerCallbackQuery":
            return await call(bot, name, params, **kwargs)
        update_id = _update.get()
        NOTES.note(update_id, "answering")
        try:
            return await call(bot, name, params, **kwargs)
        finally:
            NOTES.note(update_id, "answered")

    lean_api.call = traced_call  # type: ignore[assignment]

    app_run = bot_app.App.run

    async def traced_app_run(self: Any) -> None:
        ticker = asyncio.create_task(_tick(self, storages))
        try:
            await app_run(self)
        finally:
            ticker.cancel()

    bot_app.App.run = traced_app_run  # type: ignore[method-assign]


async def _tick(app: Any, storages: list[Any]) -> None:
    """Every TICK: the loop's lag, the storage's queues and the updates held."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(TICK)
        now = time.monotonic()
        storage = storages[0] if storages else None
        jobs = storage._conn._tx.qsize() if storage is not None else 0
        writes = len(storage._writes) if storage is not None else 0
        queues = app.queues
        held = queues.held if queues is not None else 0
        running = queues._running_now if queues is not None else 0
        NOTES.ticks.append((now, now - before - TICK, jobs, writes, held, running))


def dump(path: Path) -> None:
    path.write_text(json.dumps({"taps": NOTES.taps, "ticks": NOTES.ticks, "polls": NOTES.polls}))


class FakeSide:
    """The bench's side: when the fake handed each update out, and its own loop's lag."""

    def __init__(self, fake: Any) -> None:
        self.served: dict[int, float] = {}
        self.ticks: list[tuple[float, float]] = []
        self.polls: dict[int, tuple[float, float]] = {}  # offset -> (came, answered)
        # update_id -> (made, updates not yet confirmed ahead of it then)
        self.made: dict[int, tuple[float, int]] = {}
        get_updates = fake._handlers["getupdates"]
        push = fake._push_update

        def traced_push(kind: str, payload: Any, **kwargs: Any) -> dict[str, Any]:
            ahead = len(fake._pending)
            update = push(kind, payload, **kwargs)
            self.made[update["update_id"]] = (time.monotonic(), ahead)
            return update

        fake._push_update = traced_push

        async def traced(params: dict[str, Any]) -> Any:
            came = time.monotonic()
            updates = await get_updates(params)
            now = time.monotonic()
            self.polls[int(params.get("offset") or 0)] = (came, now)
            for update in updates:
                self.served.setdefault(update["update_id"], now)
            return updates

        fake._handlers["getupdates"] = traced

    async def tick(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(TICK)
            now = time.monotonic()
            self.ticks.append((now, now - before - TICK))


# What each column measures, from one step to the next (bot-side steps named as noted).
SEGMENTS = (
    ("at fake", "created", "served"),  # waiting at the fake for a getUpdates to hand it out
    ("to bot", "served", "fetched"),  # the answer's way to the bot, parsed (its whole batch)
    ("poll", "fetched", "put"),  # the updates before it in its batch being put
    ("screen", "put", "screened"),
    ("room", "screened", "queued"),  # waiting for room (1,024 held)
    ("slot", "queued", "started"),  # waiting for a running slot (64)
    ("to lock", "started", "lock wanted"),
    ("lock", "lock wanted", "locked"),
    ("in lock", "locked", "answering"),  # the move: reads, writes, rendering
    ("answer", "answering", "answered"),  # the answerCallbackQuery call
    ("to bench", "answered", "seen"),  # the bench's loop seeing the answer
)


def report(
    path: Path,
    fake_side: FakeSide,
    player_taps: list[tuple[int, float, float]],
    window: tuple[float, float],
    out: Any,
) -> None:
    """Per seated player's tap (update id, created, seen answered by the bench): the time
    between the steps, the slow ones in full; and, within ``window``, the loops' lag and
    the storage's queues."""
    data = json.loads(path.read_text())
    taps = {int(k): v for k, v in data["taps"].items()}
    ticks = [t for t in data["ticks"] if window[0] <= t[0] <= window[1]]
    rows = []
    for update_id, created, seen in player_taps:
        steps = dict(taps.get(update_id, {}))
        steps["created"] = created
        steps["seen"] = seen
        served = fake_side.served.get(update_id)
        if served is not None:
            steps["served"] = served
        rows.append((update_id, seen - created, steps))
    print(
        "\nseated players' taps, seconds between steps (the slowest 15, then p50 of all):", file=out
    )
    header = f"{'update':>8}{'total':>7}" + "".join(f"{name:>9}" for name, _, _ in SEGMENTS)
    print(header + "   reads/writes in the update (count, s)", file=out)

    def line(update_id: int | str, total: float, steps: dict[str, Any]) -> str:
        cells = []
        for _, start, end in SEGMENTS:
            if start in steps and end in steps:
                cells.append(f"{steps[end] - steps[start]:>9.3f}")
            else:
                cells.append(f"{'-':>9}")
        spans = steps.get("spans", [])
        io = ""
        for kind in ("read", "write"):
            mine = [e - s for k, s, e in spans if k == kind]
            if mine:
                io += f" {kind}s {len(mine)} {sum(mine):.3f} (max {max(mine):.3f})"
        return f"{update_id:>8}{total:>7.2f}" + "".join(cells) + io

    for update_id, total, steps in sorted(rows, key=lambda r: -r[1])[:15]:
        print(line(update_id, total, steps), file=out)
    medians: dict[str, float] = {}
    for _, start, end in SEGMENTS:
        values = [s[end] - s[start] for _, _, s in rows if start in s and end in s]
        if values:
            medians[end] = statistics.median(values)
    cells = "".join(
        f"{medians[end]:>9.3f}" if end in medians else f"{'-':>9}" for _, _, end in SEGMENTS
    )
    total_p50 = statistics.median([t for _, t, _ in rows]) if rows else float("nan")
    print(f"{'p50':>8}{total_p50:>7.2f}{cells}", file=out)

    def lag_summary(name: str, lags: list[float]) -> None:
        if not lags:
            return
        ordered = sorted(lags)
        p99 = ordered[int(0.99 * (len(ordered) - 1))]
        over = sum(1 for x in lags if x > 0.1)
        print(
            f"{name}: {len(lags)} ticks of {TICK * 1000:.0f} ms, lag p50 {statistics.median(lags) * 1000:.1f} ms,"
            f" p99 {p99 * 1000:.0f} ms, max {max(lags) * 1000:.0f} ms, {over} ticks over 100 ms",
            file=out,
        )

    lag_summary("bot's event loop", [t[1] for t in ticks])
    lag_summary(
        "bench's event loop (the fake)",
        [lag for at, lag in fake_side.ticks if window[0] <= at <= window[1]],
    )
    if ticks:
        print(
            f"storage: jobs waiting for its thread max {max(t[2] for t in ticks)}, p50"
            f" {statistics.median(t[2] for t in ticks):.0f}; writes waiting for a group commit"
            f" max {max(t[3] for t in ticks)}; updates held max {max(t[4] for t in ticks)};"
            f" running max {max(t[5] for t in ticks)}",
            file=out,
        )
    polls = [p for p in data["polls"] if window[0] <= p[0] <= window[1] and p[1]]
    full = [p for p in polls if p[2] >= 50]
    if full:
        cycles = [b[0] - a[0] for a, b in itertools.pairwise(polls) if a[2] >= 50]
        print(
            f"polling: {len(polls)} getUpdates, {len(full)} with 50+ updates; for those:"
            f" the fake's answer p50 {statistics.median(p[1] - p[0] for p in full):.3f} s"
            f" max {max(p[1] - p[0] for p in full):.3f};"
            f" parsing a batch p50 {statistics.median(p[3] for p in full):.3f} s"
            f" max {max(p[3] for p in full):.3f}; putting it p50"
            f" {statistics.median(p[4] for p in full):.3f} s max {max(p[4] for p in full):.3f}"
            f" (storage reads in it p50 {statistics.median(p[5] for p in full):.3f} s);"
            f" one cycle p50 {statistics.median(cycles) if cycles else 0:.3f} s,"
            f" {sum(p[2] for p in full) / max(1e-9, sum(cycles)):.0f} updates/s",
            file=out,
        )
    # The round trip of full batches, split: the request's way to the fake (the fake's
    # loop taking it up), the fake's handler, and the answer's way back (JSON-encoded by
    # the fake, taken up by the bot's loop, read by aiogram).
    split = [
        (came - p[0], done - came, p[1] - done)
        for p in full
        if len(p) > 6 and (came_done := fake_side.polls.get(int(p[6]))) is not None
        for came, done in [came_done]
    ]
    if split:
        parts = ("to the fake", "the fake's handler", "back to the bot")
        print(
            "getUpdates round trip of full batches, p50/max s: "
            + "; ".join(
                f"{name} {statistics.median(x[i] for x in split):.3f}/"
                f"{max(x[i] for x in split):.3f}"
                for i, name in enumerate(parts)
            ),
            file=out,
        )
    # Around each of the five slowest taps: what was ahead of it at the fake, how fast the
    # bot read meanwhile and what it was doing, and both event loops.
    fake_lags = [(at, lag) for at, lag in fake_side.ticks if window[0] <= at <= window[1]]
    for update_id, total, steps in sorted(rows, key=lambda r: -r[1])[:5]:
        start, end = steps["created"], steps.get("served", steps["seen"])
        made = fake_side.made.get(update_id)
        unread = (
            sum(
                1
                for other, served in fake_side.served.items()
                if other < update_id and served > made[0]
            )
            + sum(
                1 for other in fake_side.made if other < update_id and other not in fake_side.served
            )
            if made is not None
            else -1
        )
        wait = max(1e-9, end - start)
        during = [p for p in data["polls"] if p[1] and start <= p[1] <= end]
        fetched = sum(p[2] for p in during)
        asking = _covered([(max(start, p[0]), min(end, p[1])) for p in data["polls"] if p[1]])
        inside = [t for t in data["ticks"] if start <= t[0] <= end]
        full = sum(1 for t in inside if t[4] >= 1000)
        print(
            f"  tap {update_id} ({total:.2f} s, {wait:.2f} s at the fake): unconfirmed ahead"
            f" when made {made[1] if made else '?'}, not yet handed out {unread};"
            f" the bot read {fetched} in that time ({fetched / wait:.0f}/s) in {len(during)}"
            f" getUpdates, one outstanding {asking / wait:.0%} of it; held"
            f" {min((t[4] for t in inside), default=0)}-{max((t[4] for t in inside), default=0)},"
            f" >=1000 for {full * TICK:.2f} s; loop lag max/sum bot"
            f" {max((t[1] for t in inside), default=0) * 1000:.0f} ms"
            f"/{sum(t[1] for t in inside):.2f} s, fake"
            f" {max((lag for at, lag in fake_lags if start <= at <= end), default=0) * 1000:.0f} ms"
            f"/{sum(lag for at, lag in fake_lags if start <= at <= end):.2f} s",
            file=out,
        )


def _covered(spans: list[tuple[float, float]]) -> float:
    """Seconds covered by the union of ``spans``."""
    total, reach = 0.0, float("-inf")
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if b <= reach:
            continue
        total += b - max(a, reach)
        reach = b
    return total
