"""Bot throughput: updates/s, tap-to-answer latency and memory per game, vs a minimal bot.

Usage: .venv/bin/python bench/bot.py [--games N] [--seconds S] [--quick] [--think T]
       .venv/bin/python bench/bot.py --scale [--think T]      # SQLite x1, PostgreSQL x1, x2
       .venv/bin/python bench/bot.py --backend postgresql --instances 2 [--think T]
       .venv/bin/python bench/bot.py --ops [--moves M]

--ops: Telegram operations per applied move, by kind (hand edit, table edit, ping,
delete, other), for 2, 3 and 4 players: whole games played through the fake's buttons
(a tap plays a card; «➕ Several cards» / «🗑 Discard, don't beat» first where one tap
cannot make the move), the outbox drained after each move so nothing is coalesced away.
Twice: moves picked as our greedy computer player picks them (a stand-in for people's
play) and uniformly among the legal moves (many more multi-card leads). Telegram allows a
bot about 30 operations a second in all, so this sets how many tables one bot can host.

Drives N concurrent two-player games (default 200) through the fake Bot API server
(tests/fake_telegram), with the real bot (bot.app.App: handlers, game service, SQLite,
delivery worker) running in this process. Each game has one player acting at a time, who
taps the cards of a legal move one by one and then the play button, waiting for each
answer as a person's client does (a closed loop per game). Pacing is off on both sides
(the fake does not enforce Telegram's limits, the bot's delivery limits are huge): this
measures our processing, not Telegram's pacing. A series that ends is followed by a new
one in the same group. With --think T each tap comes after a pause of about T seconds
(exponential), as people play: the closed loop shows the most the bot can take, --think
the latency at a human pace.

Then, in the same run and against the same fake, a minimal aiogram bot (a Dispatcher with
one callback_query handler that only answers) gets the same closed-loop taps from the
same number of players, so the ratio shows what game logic and persistence cost on top
of aiogram itself.

Figures:
- updates/s: callback queries answered per second in the timed window;
- tap-to-answer p50/p95: from the fake creating the callback update to the bot's
  answerCallbackQuery reaching the fake;
- memory per active game: Python memory allocated and still held after setting up the
  games and playing a few moves in each (tracemalloc, allocations made with the fake
  server or this driver on the stack left out), divided by the number of games.
  SQLite's own page cache is outside Python's allocator and not per game.
- CPU ms/update: this process's CPU time (every thread) in the timed window per answered
  update, and CPU % of one core; the fake server is in-process, so it counts for both
  bots. On a shared machine this is steadier than updates/s.
Targets: at least half the minimal bot's updates/s, p95 < 100 ms, < 100 KB per
active game. Nothing is asserted; the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import io
import logging
import pstats
import random
import signal
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aiogram import Bot, Dispatcher, Router  # noqa: E402
from aiogram.client.session.aiohttp import AiohttpSession  # noqa: E402
from aiogram.client.telegram import TelegramAPIServer  # noqa: E402
from aiogram.types import CallbackQuery  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from bot.app import App  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.delivery.worker import Limits  # noqa: E402
from bot.games.burkozel.keyboard import card_taps  # noqa: E402
from bot.views.callbacks import CardCb, LobbyCb, PlayCb  # noqa: E402
from engine.burkozel.ai import make_player  # noqa: E402
from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser  # noqa: E402

TOKEN = "123456:BENCH-token"
UNPACED = Limits(
    group_capacity=1e6,
    group_rate=1e6,
    private_capacity=1e6,
    private_rate=1e6,
    global_capacity=1e6,
    global_rate=1e6,
)
WARMUP_MOVES = 4  # per game, before memory is measured
FRAMES = 12  # deep enough to see the fake server or the driver on an allocation's stack


@dataclass
class Figures:
    name: str
    games: int
    answered: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    alerts: int = 0
    bytes_per_game: float = 0.0
    moves: int = 0
    series: int = 0
    cpu_seconds: float = 0.0  # this process's CPU time (all threads) in the window

    @property
    def cpu_ms_per_update(self) -> float:
        return self.cpu_seconds / self.answered * 1000 if self.answered else float("nan")

    @property
    def rate(self) -> float:
        return self.answered / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


class Taps:
    """Closed-loop tapping with the timed window's bookkeeping."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.window: tuple[float, float] | None = None
        self.cpu: tuple[float, float] = (0.0, 0.0)
        self.created: dict[str, float] = {}
        self.alerts = 0

    async def tap(self, user: FakeUser, message: FakeMessage, data: str) -> None:
        pending = await user.tap_raw(message, data)
        if self.window is not None:
            self.created[pending.id] = pending.created
        answer = await pending.wait(timeout=60)
        if answer.show_alert:
            self.alerts += 1

    def figures(self, fig: Figures) -> Figures:
        assert self.window is not None
        start, end = self.window
        answered_at = {
            str(r.params.get("callback_query_id")): r.time
            for r in self.fake.requests
            if r.method == "answerCallbackQuery" and r.ok and start <= r.time <= end
        }
        fig.answered = len(answered_at)
        fig.seconds = end - start
        fig.latencies = [
            answered_at[cid] - created
            for cid, created in self.created.items()
            if cid in answered_at and created >= start
        ]
        fig.alerts = self.alerts
        fig.cpu_seconds = self.cpu[1] - self.cpu[0]
        return fig


def python_bytes_without(snapshot: tracemalloc.Snapshot) -> int:
    """Memory held, leaving out what the fake server and this driver allocated."""
    filtered = snapshot.filter_traces(
        [
            tracemalloc.Filter(False, "*/tests/fake_telegram/*", all_frames=True),
            tracemalloc.Filter(False, __file__, all_frames=True),
            tracemalloc.Filter(False, tracemalloc.__file__),
        ]
    )
    return sum(stat.size for stat in filtered.statistics("filename"))


async def measure_memory(games: int, setup: Callable[[range], Awaitable[None]]) -> float:
    """Bytes per game: the first tenth of the games is set up untraced (caches, pools
    and other one-off costs), the rest under tracemalloc."""
    warm = max(1, games // 10)
    await setup(range(warm))
    gc.collect()
    tracemalloc.start(FRAMES)
    try:
        before = python_bytes_without(tracemalloc.take_snapshot())
        await setup(range(warm, games))
        gc.collect()
        after = python_bytes_without(tracemalloc.take_snapshot())
    finally:
        tracemalloc.stop()
    return (after - before) / max(1, games - warm)


PROFILE: cProfile.Profile | None = None  # --profile: our bot's timed window only


async def timed(
    taps: Taps,
    seconds: float,
    stop: asyncio.Event,
    drivers: list[asyncio.Task[None]],
    profile: cProfile.Profile | None = None,
) -> None:
    await asyncio.sleep(min(2.0, seconds / 4))  # the loop settles after setup
    start, cpu = time.monotonic(), time.process_time()
    taps.window = (start, float("inf"))
    if profile is not None:
        profile.enable()
    await asyncio.sleep(seconds)
    if profile is not None:
        profile.disable()
    taps.window = (start, time.monotonic())
    taps.cpu = (cpu, time.process_time())
    stop.set()
    await asyncio.wait_for(asyncio.gather(*drivers), 120)


# Mean seconds a player "thinks" before each tap; 0 is the saturating closed loop.
THINK = 0.0


async def think(rng: random.Random) -> None:
    """A person's pause before a tap: exponential, so taps of many players arrive at random."""
    if THINK > 0:
        await asyncio.sleep(rng.expovariate(1 / THINK))


# --- our bot -------------------------------------------------------------------------


@dataclass
class Game:
    group: FakeChat
    users: list[FakeUser]
    game_id: int = 0


async def run_ours(games: int, seconds: float, tmp: Path) -> Figures:
    fig = Figures("burkozel bot", games)
    async with FakeTelegram(token=TOKEN) as fake:
        fake.enforce_limits = False
        fake.callback_answer_timeout = 600
        fake.validate_updates = False  # the driver's cost, not the bot's
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            bot_token=SecretStr(TOKEN),
            database_path=tmp / "bench.sqlite3",
            telegram_api_url=fake.api_url,
            default_language="en",
            turn_timeout_seconds=3600,
            log_level="WARNING",
        )
        app = App(settings, limits=UNPACED, handle_signals=False)
        task = asyncio.create_task(app.run())
        await asyncio.wait_for(app.ready.wait(), 30)
        service = app.service
        assert service is not None
        taps = Taps(fake)
        tables = [
            Game(fake.add_group(f"G{n}", members=users), users)
            for n in range(games)
            for users in [[fake.add_user(f"A{n}"), fake.add_user(f"B{n}")]]
        ]

        async def open_game(table: Game) -> None:
            first, second = table.users
            command = await first.send(table.group, "/newgame")

            async def game_id() -> int:
                game = await service.storage.open_game(table.group.id, None)
                return game.id if game is not None and game.status == "lobby" else 0

            table.game_id = await fake.wait_for(game_id, timeout=600, interval=0.05)
            await taps.tap(second, command, LobbyCb(game=table.game_id, action="join").pack())
            await taps.tap(first, command, LobbyCb(game=table.game_id, action="start").pack())

        async def move(table: Game, rng: random.Random) -> bool:
            live = await service.live(table.game_id)
            deal = live.played.series.current if live.played is not None else None
            if live.game.status != "playing" or deal is None or deal.turn is None:
                return False
            user_id = live.game.seats[deal.turn].user_id
            user = next(u for u in table.users if u.id == user_id)
            # Any message of the DM carries the tap; the hand message may still be on its
            # way (delivery runs behind under this load), and waiting for it would measure
            # the delivery backlog rather than the handling of taps.
            anchor, version = user.dm.messages[0], live.game.version
            chosen = rng.choice(deal.legal_actions())
            codes, instant = card_taps(deal, chosen)  # before the taps change the live deal
            for code in codes:
                data = CardCb(game=table.game_id, v=version, card=code).pack()
                await think(rng)
                await taps.tap(user, anchor, data)
            if instant:
                fig.moves += 1
                return True
            await think(rng)
            kind = "l" if chosen.beat is None else ("b" if chosen.beat else "d")
            codes = ".".join(c.code() for c in sorted(chosen.cards))
            data = PlayCb(game=table.game_id, v=version, kind=kind, cards=codes).pack()
            await taps.tap(user, anchor, data)
            fig.moves += 1
            return True

        async def setup(numbers: range) -> None:
            gate = asyncio.Semaphore(50)

            async def one(table: Game, n: int) -> None:
                async with gate:
                    for user in table.users:
                        await user.start_bot()
                    await open_game(table)
                rng = random.Random(n)
                for _ in range(WARMUP_MOVES):
                    await move(table, rng)

            await asyncio.gather(*(one(tables[n], n) for n in numbers))

        fig.bytes_per_game = await measure_memory(games, setup)
        stop = asyncio.Event()

        async def drive(table: Game, rng: random.Random) -> None:
            while not stop.is_set():
                if not await move(table, rng):
                    fig.series += 1
                    await open_game(table)

        drivers = [
            asyncio.create_task(drive(t, random.Random(1000 + n))) for n, t in enumerate(tables)
        ]
        fig.moves = 0
        await timed(taps, seconds, stop, drivers, PROFILE)
        await app.stop()
        await asyncio.wait_for(task, 30)
        return taps.figures(fig)


# --- the minimal aiogram bot ---------------------------------------------------------


async def only_answer(query: CallbackQuery) -> None:
    await query.answer()


async def run_minimal(games: int, seconds: float) -> Figures:
    fig = Figures("minimal aiogram bot", games)
    async with FakeTelegram(token=TOKEN) as fake:
        fake.enforce_limits = False
        fake.callback_answer_timeout = 600
        fake.validate_updates = False
        bot = Bot(TOKEN, session=AiohttpSession(api=TelegramAPIServer.from_base(fake.api_url)))
        router = Router()
        router.callback_query.register(only_answer)
        dispatcher = Dispatcher()
        dispatcher.include_router(router)
        ready = asyncio.Event()

        async def started() -> None:
            ready.set()

        dispatcher.startup.register(started)
        task = asyncio.create_task(
            dispatcher.start_polling(
                bot,
                allowed_updates=["message", "callback_query"],
                handle_signals=False,
                close_bot_session=False,
                polling_timeout=10,
            )
        )
        await asyncio.wait_for(ready.wait(), 30)
        taps = Taps(fake)
        players: list[tuple[FakeUser, FakeMessage]] = []

        async def setup(numbers: range) -> None:
            for n in numbers:
                user = fake.add_user(f"A{n}")
                group = fake.add_group(f"G{n}", members=[user])
                players.append((user, await user.send(group, "hello")))
            await asyncio.gather(
                *(
                    taps.tap(u, m, CardCb(game=n + 1, v=7, card="AS").pack())
                    for n, (u, m) in list(enumerate(players))[numbers.start : numbers.stop]
                )
            )

        fig.bytes_per_game = await measure_memory(games, setup)
        stop = asyncio.Event()

        async def drive(n: int, user: FakeUser, message: FakeMessage) -> None:
            rng = random.Random(n)
            while not stop.is_set():
                data = CardCb(game=n + 1, v=rng.randrange(200), card="AS").pack()
                await think(rng)
                await taps.tap(user, message, data)

        drivers = [asyncio.create_task(drive(n, u, m)) for n, (u, m) in enumerate(players)]
        await timed(taps, seconds, stop, drivers)
        await dispatcher.stop_polling()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 30)
        await bot.session.close()
        return taps.figures(fig)


# --- operations per move -------------------------------------------------------------


OP_KINDS = (
    "selection",
    "hand edit",
    "table edit",
    "ping",
    "delete",
    "group send",
    "ephemeral",
    "other",
)


def op_kind(record: object) -> str | None:
    method = getattr(record, "method", "")
    params = getattr(record, "params", {})
    private = int(str(params.get("chat_id", "0"))) > 0
    if "Ephemeral" in method or params.get("ephemeral_message_parameters"):
        return "ephemeral"  # a hand (or an answer) inside the group, seen by one member
    if method == "editMessageText":
        return "hand edit" if private else "table edit"
    if method == "sendMessage":
        return "ping" if private else "group send"
    if method in ("deleteMessage", "deleteMessages"):
        return "delete"
    if method in ("getUpdates", "answerCallbackQuery", "getMe", "setMyCommands"):
        return None
    return "other"


async def ops_per_move(
    players: int, moves_wanted: int, tmp: Path, driver: str
) -> tuple[int, dict[str, int]]:
    counts = dict.fromkeys(OP_KINDS, 0)
    applied = 0
    async with FakeTelegram(token=TOKEN) as fake:
        fake.enforce_limits = False
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            bot_token=SecretStr(TOKEN),
            database_path=tmp / f"ops{players}-{driver}.sqlite3",
            telegram_api_url=fake.api_url,
            default_language="en",
            turn_timeout_seconds=3600,
            log_level="WARNING",
        )
        app = App(settings, limits=UNPACED, handle_signals=False)
        task = asyncio.create_task(app.run())
        await asyncio.wait_for(app.ready.wait(), 30)
        service = app.service
        assert service is not None and app.delivery is not None
        rng = random.Random(players)
        users = [fake.add_user(f"P{i}") for i in range(players)]
        group = fake.add_group("Ops", members=users)
        for user in users:
            await user.start_bot()

        async def drained() -> bool:
            assert app.delivery is not None
            return not app.delivery._in_flight and await service.storage.outbox_size() == 0

        while applied < moves_wanted:
            command = await users[0].send(group, "/newgame")

            async def lobby() -> int:
                game = await service.storage.open_game(group.id, None)
                return game.id if game is not None and game.status == "lobby" else 0

            game_id = await fake.wait_for(lobby, timeout=60, interval=0.02)
            for user in users[1:]:
                await (
                    await user.tap_raw(command, LobbyCb(game=game_id, action="join").pack())
                ).wait()
            await (
                await users[0].tap_raw(command, LobbyCb(game=game_id, action="start").pack())
            ).wait()
            await fake.wait_for(drained, timeout=60, interval=0.01)
            while applied < moves_wanted:
                live = await service.live(game_id)
                deal = live.played.series.current if live.played is not None else None
                if live.game.status != "playing" or deal is None or deal.turn is None:
                    break
                user = next(u for u in users if u.id == live.game.seats[deal.turn].user_id)
                anchor, version = user.dm.messages[0], live.game.version
                if driver == "greedy":
                    player = make_player("greedy", seed=applied)
                    chosen = player.choose(deal.view(deal.turn), deal.legal_actions())
                else:
                    chosen = rng.choice(deal.legal_actions())
                codes, instant = card_taps(deal, chosen)  # before the taps change the live deal
                start = len(fake.requests)
                for code in codes:
                    data = CardCb(game=game_id, v=version, card=code).pack()
                    await (await user.tap_raw(anchor, data)).wait()
                    await fake.wait_for(drained, timeout=60, interval=0.01)
                if not instant:
                    for record in fake.requests[start:]:  # the redraws showing the selection
                        if op_kind(record) == "hand edit" and record.ok:
                            counts["selection"] += 1
                    start = len(fake.requests)
                    kind = "l" if chosen.beat is None else ("b" if chosen.beat else "d")
                    codes = ".".join(c.code() for c in sorted(chosen.cards))
                    data = PlayCb(game=game_id, v=version, kind=kind, cards=codes).pack()
                    await (await user.tap_raw(anchor, data)).wait()
                await fake.wait_for(drained, timeout=60, interval=0.01)
                applied += 1
                for record in fake.requests[start:]:
                    kind_of = op_kind(record)
                    if kind_of is not None and record.ok:
                        counts[kind_of] += 1
        await app.stop()
        await asyncio.wait_for(task, 30)
    return applied, counts


async def report_ops(moves: int) -> None:
    print(f"Telegram operations per applied move ({moves} moves per player count, drained each)")
    with tempfile.TemporaryDirectory(prefix="bench-ops-", dir=ROOT) as tmp:
        for driver in ("greedy", "uniform"):
            print(f"moves picked: {driver}")
            head = f"{'players':<9}" + "".join(f"{k:>12}" for k in OP_KINDS)
            print(head + f"{'total':>9}{'goal':>6}")
            for players in (2, 3, 4):
                applied, counts = await ops_per_move(players, moves, Path(tmp), driver)
                per = {k: v / applied for k, v in counts.items()}
                print(
                    f"{players:<9}"
                    + "".join(f"{per[k]:>12.2f}" for k in OP_KINDS)
                    + f"{sum(per.values()):>9.3f}{players + 1:>6}"
                )
    print("selection: hand redraws while a move is chosen (the switch, then each card), for")
    print("moves one tap cannot make: several cards, or discarding a card that could beat.")
    print("Group sends are each new deal's table (sent with its first move; the deal before")
    print("keeps its own table, which shows its result) and series results.")


def report(ours: Figures, minimal: Figures) -> None:
    loop = f"each tapping after ~{THINK:g} s of thought" if THINK else "closed loop"
    print(
        f"{ours.games} concurrent games, one player acting per game ({loop}),"
        f" {ours.seconds:.1f} s timed window, pacing off on both sides"
    )
    print(
        f"{'':<22}{'updates/s':>10}{'p50 ms':>9}{'p95 ms':>9}{'KB/game':>9}"
        f"{'answered':>10}{'alerts':>8}{'CPU ms/upd':>11}{'CPU %':>7}"
    )
    for f in (ours, minimal):
        print(
            f"{f.name:<22}{f.rate:>10.0f}{f.pct(0.5):>9.1f}{f.pct(0.95):>9.1f}"
            f"{f.bytes_per_game / 1024:>9.1f}{f.answered:>10}{f.alerts:>8}"
            f"{f.cpu_ms_per_update:>11.2f}{f.cpu_seconds / f.seconds * 100 if f.seconds else 0:>7.0f}"
        )
    ratio = ours.rate / minimal.rate if minimal.rate else float("nan")
    per_move = (ours.answered / ours.moves) if ours.moves else float("nan")
    print(
        f"ratio {ratio:.2f} of the minimal bot's updates/s (target >= 0.5);"
        f" p95 target < 100 ms; memory target < 100 KB per active game"
    )
    print(
        "CPU ms/upd: this process's CPU time in the window per answered update (the fake"
        " server runs in-process, so it is included for both bots); steadier than updates/s"
        " on a shared machine. CPU % well under 100 means the process waited for a core."
    )
    print(
        f"our bot: {ours.moves} moves committed in the window ({per_move:.1f} taps a move),"
        f" {ours.series} series finished and restarted;"
        f" median latency over {len(ours.latencies)} taps:"
        f" {statistics.median(ours.latencies) * 1000 if ours.latencies else float('nan'):.1f} ms"
    )


def _dump_tasks() -> None:
    """SIGUSR1: where every task of this process waits (a run that seems stuck)."""
    for task in asyncio.all_tasks():
        task.print_stack(limit=6, file=sys.stderr)


async def main() -> None:
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, _dump_tasks)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="concurrent games (default 200)")
    parser.add_argument("--seconds", type=float, default=15.0, help="timed window (default 15)")
    parser.add_argument("--quick", action="store_true", help="50 games, 5 s")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds before each tap, as a person pauses (default 0: saturating)",
    )
    parser.add_argument(
        "--backend",
        choices=("sqlite", "postgresql"),
        help="run the bot as separate webhook-mode processes on this database (bench/bot_scale.py)",
    )
    parser.add_argument("--instances", type=int, default=1, help="bot processes (with --backend)")
    parser.add_argument(
        "--scale",
        action="store_true",
        help="sqlite x1, postgresql x1 and postgresql x2 side by side (bench/bot_scale.py)",
    )
    parser.add_argument(
        "--database-url", help="an empty PostgreSQL database (default: a throw-away cluster)"
    )
    parser.add_argument(
        "--statements",
        action="store_true",
        help="with --scale/--backend: the SQL statements per update, most called first",
    )
    parser.add_argument("--ops", action="store_true", help="operations per move by kind")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="cProfile our bot's timed window (with --backend: each bot process); print the top",
    )
    parser.add_argument("--moves", type=int, default=200, help="moves per player count (--ops)")
    args = parser.parse_args()
    if args.ops:
        logging.basicConfig(level=logging.WARNING)
        await report_ops(args.moves)
        return
    global THINK, PROFILE
    THINK = args.think
    PROFILE = cProfile.Profile() if args.profile else None
    games, seconds = (50, 5.0) if args.quick else (args.games, args.seconds)
    logging.basicConfig(level=logging.WARNING)
    if args.scale or args.backend:
        from bench.bot_scale import report_scale, run_scale

        configs = (
            [("sqlite", 1), ("postgresql", 1), ("postgresql", 2)]
            if args.scale
            else [(args.backend, args.instances)]
        )
        results = []
        for backend, instances in configs:
            with tempfile.TemporaryDirectory(prefix="bench-scale-", dir=ROOT) as tmp:
                results.append(
                    await run_scale(
                        backend,
                        instances,
                        games,
                        seconds,
                        Path(tmp),
                        token=TOKEN,
                        think=THINK,
                        database_url=args.database_url,
                        figures_cls=Figures,
                        taps_cls=Taps,
                        profile=args.profile,
                    )
                )
            gc.collect()
        report_scale(results, THINK, statements=args.statements)
        return
    with tempfile.TemporaryDirectory(prefix="bench-bot-", dir=ROOT) as tmp:
        ours = await run_ours(games, seconds, Path(tmp))
    gc.collect()
    minimal = await run_minimal(games, seconds)
    report(ours, minimal)
    if PROFILE is not None:
        out = io.StringIO()
        stats = pstats.Stats(PROFILE, stream=out)
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(r"bot/|storage/|aiogram|pydantic", 30)
        print("profile of our bot's timed window (fake server included):", out.getvalue())


if __name__ == "__main__":
    asyncio.run(main())
