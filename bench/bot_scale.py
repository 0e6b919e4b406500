"""Bot instances as separate processes: SQLite x1 vs PostgreSQL x1 vs PostgreSQL xN.

Used by ``bench/bot.py --backend B --instances N`` (one configuration) and
``bench/bot.py --scale`` (SQLite x1, PostgreSQL x1, PostgreSQL x2 side by side).

Each instance is ``python -m bot`` in webhook mode; the fake Bot API (in this process)
delivers updates to the instances in turn, as a load balancer would, with Telegram's
flood limits ON and the bots' own default pacing, so 429s are counted. Two-player games
are driven in a closed loop per game like bench/bot.py's: the driver mirrors each game
with the engine (its own moves, the decks read from the database) and taps the cards of
a legal move and then the play button. Figures: updates/s (callback queries answered in
the timed window), tap-to-answer p50/p95 (update created -> answerCallbackQuery at the
fake), 429s the fake sent, and the CPU time the bot instances and the PostgreSQL server
spent per answered update in the window (/proc; steadier than updates/s on a shared
machine, where the other processes' load sets how much CPU these get). PostgreSQL is a throw-away cluster (tests/support/pg_cluster.py) or
``--database-url``.
"""

from __future__ import annotations

import asyncio
import gc
import io
import os
import pstats
import random
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from bot.games.burkozel.keyboard import card_taps
from bot.views.callbacks import CardCb, LobbyCb, PlayCb
from engine import burkozel
from storage import open_storage
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser

ROOT = Path(__file__).resolve().parent.parent
SECRET = "bench-secret"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Table:
    group: FakeChat
    users: list[FakeUser]
    game_id: int = 0
    series: burkozel.Series | None = None


async def _start_instances(
    fake: FakeTelegram, url: str, count: int, token: str, tmp: Path, *, profile: bool = False
) -> list[asyncio.subprocess.Process]:
    procs = []
    ports = [_free_port() for _ in range(count)]
    fake.webhook_targets = [f"http://127.0.0.1:{p}/hook" for p in ports]
    for n, port in enumerate(ports):
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))},
            "BOT_TOKEN": token,
            "DATABASE_URL": url,
            "TELEGRAM_API_URL": fake.api_url,
            "DEFAULT_LANGUAGE": "en",
            "TURN_TIMEOUT_SECONDS": "3600",
            "LOG_LEVEL": "WARNING",
            "WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
            "WEBHOOK_LISTEN": f"127.0.0.1:{port}",
            "WEBHOOK_SECRET": SECRET,
        }
        log = (tmp / f"instance{n}.log").open("ab")
        # --profile: the whole process under cProfile, written when it stops (SIGTERM).
        profiler = ["-m", "cProfile", "-o", str(tmp / f"instance{n}.prof")] if profile else []
        procs.append(
            await asyncio.create_subprocess_exec(
                sys.executable, *profiler, "-m", "bot", cwd=tmp, env=env, stdout=log, stderr=log
            )
        )
    for port in ports:
        await fake.wait_for(_healthy(port), timeout=120, interval=0.2)
    return procs


def _healthy(port: int) -> Any:
    async def check() -> bool:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return False
        writer.close()
        return True

    return check


async def run_scale(
    backend: str,
    instances: int,
    games: int,
    seconds: float,
    tmp: Path,
    *,
    token: str,
    think: float,
    database_url: str | None,
    figures_cls: Any,
    taps_cls: Any,
    profile: bool = False,
) -> Any:
    """One configuration; returns bench/bot.py's Figures (plus ``floods``)."""
    from tests.support.pg_cluster import Cluster, start_cluster

    cluster: Cluster | None = None
    if backend == "sqlite":
        url = f"sqlite:{tmp / 'scale.sqlite3'}"
    elif database_url:
        url = database_url
    else:
        # pg_stat_statements counts the statements (round trips) each update costs.
        cluster = start_cluster("-c shared_preload_libraries=pg_stat_statements")
        url = await cluster.new_database()
        await _pg_exec(url, "CREATE EXTENSION pg_stat_statements")
    fig = figures_cls(f"{backend} x{instances}", games)
    procs: list[asyncio.subprocess.Process] = []
    try:
        async with FakeTelegram(token=token) as fake:
            fake.enforce_limits = True  # Telegram's limits: the bots must keep to them
            fake.callback_answer_timeout = 600
            fake.validate_updates = False
            arrivals = _record_arrivals(fake)
            lags: list[tuple[float, float]] = []
            monitor = asyncio.create_task(_loop_lag(lags))
            pauses = _record_gc_pauses()
            procs = await _start_instances(fake, url, instances, token, tmp, profile=profile)
            storage = await open_storage(url)
            bots = [p.pid for p in procs]
            server = _postmaster(cluster)

            def cpu() -> tuple[float, float]:
                return _cpu(bots), _cpu(_family(server)) if server else 0.0

            try:
                fig = await _drive(
                    fake,
                    storage,
                    fig,
                    games,
                    seconds,
                    think,
                    taps_cls,
                    url if cluster else None,
                    cpu,
                )
            finally:
                await storage.close()
            fig.floods = len(fake.flood_violations)
            monitor.cancel()
            gc.callbacks.remove(pauses.callback)
            fig.flood_detail = _flood_detail(fake.flood_violations, fig, arrivals, lags, pauses)
            fig.handovers = _sender_losses(tmp, instances)
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.terminate()
        for proc in procs:
            try:
                await asyncio.wait_for(proc.wait(), 20)
            except TimeoutError:
                proc.kill()
        if cluster is not None:
            cluster.stop()
    for n in range(instances) if profile else ():
        _print_profile(tmp / f"instance{n}.prof", f"{backend} instance {n}")
    return fig


def _print_profile(path: Path, name: str) -> None:
    if not path.exists():
        print(f"profile of {name}: not written (the process did not stop cleanly)")
        return
    out = io.StringIO()
    stats = pstats.Stats(str(path), stream=out)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(r"bot/|storage/|aiogram|aiohttp|pydantic", 40)
    print(f"profile of {name} (its whole life, start-up included):", out.getvalue())


async def _drive(
    fake: FakeTelegram,
    storage: Any,
    fig: Any,
    games: int,
    seconds: float,
    think: float,
    taps_cls: Any,
    stats_url: str | None,
    cpu: Any,
) -> Any:
    taps = taps_cls(fake)
    tables = [
        Table(fake.add_group(f"G{n}", members=users), users)
        for n in range(games)
        for users in [[fake.add_user(f"A{n}"), fake.add_user(f"B{n}")]]
    ]

    async def pause(rng: random.Random) -> None:
        if think > 0:
            await asyncio.sleep(rng.expovariate(1 / think))

    async def open_game(table: Table) -> None:
        first, second = table.users
        command = await first.send(table.group, "/newgame")

        async def lobby() -> int:
            game = await storage.open_game(table.group.id, None)
            return game.id if game is not None and game.status == "lobby" else 0

        table.game_id = await fake.wait_for(lobby, timeout=600, interval=0.05)
        await taps.tap(second, command, LobbyCb(game=table.game_id, action="join").pack())
        await taps.tap(first, command, LobbyCb(game=table.game_id, action="start").pack())
        table.series = burkozel.from_record(await storage.export_record(table.game_id))

    async def move(table: Table, rng: random.Random) -> bool:
        series = table.series
        assert series is not None
        if series.finished:
            return False
        if series.current is None:  # the bot dealt the next deal: read its deck
            record = await storage.export_record(table.game_id)
            series = table.series = burkozel.from_record(record)
        deal = series.current
        assert deal is not None and deal.turn is not None
        version = await storage.game_version(table.game_id)
        user = next(u for u in table.users if u.id == _seat_user(table, deal.turn))
        anchor = user.dm.messages[0]
        chosen = rng.choice(deal.legal_actions())
        codes, instant = card_taps(deal, chosen)  # before the taps change the live deal
        for code in codes:
            await pause(rng)
            await taps.tap(user, anchor, CardCb(game=table.game_id, v=version, card=code).pack())
        if instant:  # the card's tap played it (the one-tap rule)
            series.apply(chosen)
            fig.moves += 1
            return True
        await pause(rng)
        kind = "l" if chosen.beat is None else ("b" if chosen.beat else "d")
        codes = ".".join(c.code() for c in sorted(chosen.cards))
        data = PlayCb(game=table.game_id, v=version, kind=kind, cards=codes).pack()
        await taps.tap(user, anchor, data)
        series.apply(chosen)
        fig.moves += 1
        return True

    seats: dict[int, list[int]] = {}

    def _seat_user(table: Table, seat: int) -> int:
        return seats[table.game_id][seat]

    async def remember_seats(table: Table) -> None:
        game = await storage.get_game(table.game_id)
        seats[table.game_id] = [s.user_id for s in game.seats]

    gate = asyncio.Semaphore(20)

    async def setup(table: Table) -> None:
        async with gate:
            for user in table.users:
                await user.start_bot()
            await fake.wait_for(lambda: not fake.pending_updates, timeout=600, interval=0.1)
            await open_game(table)
            await remember_seats(table)

    await asyncio.gather(*(setup(t) for t in tables))
    stop = asyncio.Event()

    async def drive(table: Table, rng: random.Random) -> None:
        while not stop.is_set():
            if not await move(table, rng):
                fig.series += 1
                await fake.wait_for(
                    lambda: _finished(storage, table.game_id), timeout=600, interval=0.1
                )
                await open_game(table)
                await remember_seats(table)

    drivers = [asyncio.create_task(drive(t, random.Random(n))) for n, t in enumerate(tables)]
    await asyncio.sleep(min(2.0, seconds / 4))
    if stats_url:
        await _pg_exec(stats_url, "SELECT pg_stat_statements_reset()")
    in_bot = await _tap_buckets(fake)
    start = time.monotonic()
    fig.window = (start, float("inf"))
    cpu_start = cpu()
    taps.window = (start, float("inf"))
    await asyncio.sleep(seconds)
    taps.window = fig.window = (start, time.monotonic())
    after = await _tap_buckets(fake)
    fig.in_bot = {le: n - in_bot.get(le, 0.0) for le, n in after.items()}
    fig.bot_cpu, fig.pg_cpu = (b - a for a, b in zip(cpu_start, cpu(), strict=True))
    if stats_url:
        fig.statements = await _pg_statements(stats_url)
    stop.set()
    await asyncio.wait_for(asyncio.gather(*drivers), 300)
    return taps.figures(fig)


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) these processes have used so far."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone
        total += int(fields[11]) + int(fields[12])
    return total / _TICK


def _postmaster(cluster: Any) -> int | None:
    if cluster is None or cluster.directory is None:
        return None
    try:
        return int((cluster.directory / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _family(parent: int) -> list[int]:
    """The server and its backends (the children of the postmaster)."""
    pids = [parent]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            pids.append(int(stat.parent.name))
    return pids


async def _pg_exec(url: str, query: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(query)
    finally:
        await conn.close()


async def _pg_statements(url: str) -> list[tuple[int, str]]:
    """(calls, statement) in the timed window, most called first (this query left out)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT calls, query FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat%'"
            " ORDER BY calls DESC"
        )
    finally:
        await conn.close()
    return [(int(r[0]), " ".join(str(r[1]).split())) for r in rows]


async def _finished(storage: Any, game_id: int) -> bool:
    game = await storage.get_game(game_id)
    return game is not None and game.status != "playing"


def report_scale(figures: list[Any], think: float, *, statements: bool = False) -> None:
    pace = f"each tap after ~{think:g} s of thought" if think else "closed loop"
    print(
        f"{figures[0].games} concurrent two-player games ({pace}); bot instances are"
        " separate processes in webhook mode; Telegram's limits on at the fake"
    )
    print(
        f"{'':<16}{'updates/s':>10}{'p50 ms':>9}{'p95 ms':>9}{'answered':>10}{'429s':>7}"
        f"{'SQL/update':>11}{'bot CPU ms':>11}{'PG CPU ms':>10}"
    )
    for f in figures:
        calls = sum(c for c, _ in getattr(f, "statements", ()))
        per = f"{calls / f.answered:.1f}" if calls and f.answered else "-"
        print(
            f"{f.name:<16}{f.rate:>10.1f}{f.pct(0.5):>9.1f}{f.pct(0.95):>9.1f}"
            f"{f.answered:>10}{f.floods:>7}{per:>11}"
            f"{_per(getattr(f, 'bot_cpu', 0.0), f.answered):>11}"
            f"{_per(getattr(f, 'pg_cpu', 0.0), f.answered):>10}"
        )
    for f in figures:
        if getattr(f, "in_bot", None):
            print(
                f"inside the bot, {f.name}: tap-to-answer p50 {_bucket_quantile(f.in_bot, 0.5)},"
                f" p95 {_bucket_quantile(f.in_bot, 0.95)} (its /metrics histogram)"
            )
        if getattr(f, "flood_detail", ""):
            print(f"429s, {f.name}: {f.flood_detail}; sender hand-overs: {f.handovers}")
    for f in figures if statements else ():
        if getattr(f, "statements", None):
            print(f"statements per answered update, {f.name}:")
            for calls, query in f.statements[:25]:
                print(f"{calls / max(1, f.answered):8.2f}  {query[:150]}")
    print("CPU ms: per answered update, all bot instances together / the PostgreSQL server")
    print("goal: postgresql x2 updates/s >= sqlite x1, p95 < 100 ms at a human pace")


def _record_arrivals(fake: FakeTelegram) -> list[float]:
    """When the fake admitted each message operation (its clock)."""
    arrivals: list[float] = []
    limiter = fake._limiter
    admit = limiter.admit

    def recording(chat_id: int, is_private: bool, now: float) -> None:
        arrivals.append(now)
        admit(chat_id, is_private, now)

    limiter.admit = recording  # type: ignore[method-assign]
    return arrivals


# The bot's sender starts at most global_capacity + global_rate * t operations in any t
# seconds (bot/delivery/worker.py Limits: 3 + 25 t); more arriving at the fake within BUNCH
# seconds were sent further apart and bunched up on the way (a busy event loop).
BUNCH = 0.04


async def _loop_lag(lags: list[tuple[float, float]]) -> None:
    """How late this process's event loop (the fake's, shared with the driver) wakes a
    10 ms sleep: (when, seconds late). Requests that wait for a stalled loop are
    admitted together when it runs again, whatever spacing the bot sent them at."""
    frozen = time.monotonic()
    while True:
        before = time.monotonic()
        await asyncio.sleep(0.01)
        after = time.monotonic()
        lags.append((after, after - before - 0.01))
        if after - frozen > 1.0:
            # The fake keeps every message: a full collection of that heap stalled this
            # loop 0.4-0.6 s, and the requests that waited were admitted together (429s
            # from the global limit that no bot's pacing could avoid). Frozen objects
            # are left out of collections.
            gc.freeze()
            frozen = after


@dataclass
class GcPauses:
    """Collections of this process's oldest generation: (when it ended, seconds)."""

    pauses: list[tuple[float, float]]
    callback: Any = None


def _record_gc_pauses() -> GcPauses:
    record = GcPauses([])
    started = [0.0]

    def callback(phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            started[0] = time.monotonic()
        else:
            record.pauses.append((time.monotonic(), time.monotonic() - started[0]))

    record.callback = callback
    gc.callbacks.append(callback)
    return record


def _flood_detail(
    violations: list[Any],
    fig: Any,
    arrivals: list[float],
    lags: list[tuple[float, float]],
    gcs: GcPauses,
) -> str:
    """Which limit each 429 was for, the method, and when (setting up the games, in the
    timed window, or after it), and the most operations that reached the fake within
    BUNCH seconds before a 429: where a 429 comes from is the first question."""
    start, end = getattr(fig, "window", (float("inf"), float("inf")))
    counts: dict[str, int] = {}
    for v in violations:
        when = "setup" if v.time < start else "window" if v.time <= end else "after"
        key = f"{v.kind}/{v.method}/{when}"
        counts[key] = counts.get(key, 0) + 1
    bunched = max((_densest(arrivals, v.time) for v in violations), default=0)
    detail = ", ".join(f"{k} x{n}" for k, n in sorted(counts.items()))
    if violations:
        stalled = max(
            (lag for v in violations for at, lag in lags if v.time - 1.0 <= at <= v.time),
            default=0.0,
        )
        collected = max(
            (p for v in violations for at, p in gcs.pauses if v.time - 1.0 <= at <= v.time),
            default=0.0,
        )
        detail += (
            f"; up to {bunched} operations reached the fake within {BUNCH * 1000:g} ms"
            f" in the second before a 429, when the fake's event loop had stalled up to"
            f" {stalled * 1000:.0f} ms (a full garbage collection: up to"
            f" {collected * 1000:.0f} ms)"
        )
    return detail


async def _tap_buckets(fake: FakeTelegram) -> dict[float, float]:
    """The instances' tap-to-answer histograms (/metrics, measured inside the bot from
    the update's arrival to its answer), summed: bucket bound -> cumulative count."""
    totals: dict[float, float] = {}
    prefix = "burkozel_tap_to_answer_seconds_bucket{"
    async with aiohttp.ClientSession() as session:
        for target in fake.webhook_targets or ():
            base = target.rsplit("/", 1)[0]
            async with session.get(base + "/metrics") as response:
                text = await response.text()
            for line in text.splitlines():
                if line.startswith(prefix):
                    bound = line.split('le="', 1)[1].split('"', 1)[0]
                    le = float("inf") if bound == "+Inf" else float(bound)
                    totals[le] = totals.get(le, 0.0) + float(line.rsplit(" ", 1)[1])
    return totals


def _bucket_quantile(buckets: dict[float, float], q: float) -> str:
    """The histogram bucket holding the q-quantile ("<= 50 ms")."""
    total = buckets.get(float("inf"), 0.0)
    if not total:
        return "-"
    for le in sorted(buckets):
        if buckets[le] >= q * total:
            return f"<= {le * 1000:g} ms" if le != float("inf") else "> 5 s"
    return "-"


def _densest(arrivals: list[float], at: float) -> int:
    """The most arrivals within BUNCH seconds of each other in the second before ``at``."""
    inside = sorted(a for a in arrivals if at - 1.0 <= a <= at)
    most, first = 0, 0
    for last, t in enumerate(inside):
        while t - inside[first] > BUNCH:
            first += 1
        most = max(most, last - first + 1)
    return most


def _sender_losses(tmp: Path, instances: int) -> int:
    """How often an instance gave up the sender role (the logs are at WARNING)."""
    return sum(
        (tmp / f"instance{n}.log").read_text(errors="replace").count("no longer the sender")
        for n in range(instances)
        if (tmp / f"instance{n}.log").exists()
    )


def _per(seconds: float, answered: int) -> str:
    return f"{seconds / answered * 1000:.1f}" if seconds and answered else "-"
