"""Memory, tasks and a game's table lag while the bot is flooded with junk updates.

Usage: .venv/bin/python bench/junk.py [--junk 5000] [--think 6] [--webhook] [--trace]

The bot runs as its own process (``python -m bot``'s App, polling by default, webhook
mode with --webhook) against the fake Bot API (tests/fake_telegram) in this process,
with Telegram's limits on at the fake and the bot's own default pacing. The bot process
also reports, every 50 ms, how many asyncio tasks it has and its RSS (a sampler task
started beside the App; nothing of the bot is changed for it).

Two players play a game in a group, each move after --think seconds, while two bursts
of --junk updates each (sent as fast as the fake takes them) hit the bot: random
callback data and forged game buttons on the group's messages, strangers tapping the
lobby's real buttons, 4,096-character texts, and commands and DMs from 200 strangers
(half the junk is in the game's group, half in the strangers' private chats).

Figures, for the quiet start and each burst:
- tasks: the most asyncio tasks alive in the bot at once; also when the last junk update
  had been fetched from the fake and 20 s later;
- RSS: before the burst, its peak during it and 30 s after the bot caught up;
- table lag: from the tap that makes a move (its update created at the fake) to the
  group table's edit reaching the fake, for every move tapped in the burst's window
  (from its first junk update until the bot confirmed the last one, handled what it
  held and sent its outbox but for a table edit or two), and tap-to-answer for the same taps;
- dropped: junk updates the bot dropped (its burkozel_updates_dropped, from /metrics);
- answers: of every callback query created in the burst's window (the junk's and the
  players'), the share answered within 10 s (Telegram's answer deadline is about that;
  the fake here accepts late answers so that they can be timed), and the share answered
  at all;
- player taps: every tap of a seated player in the window (each card and play tap of a
  move, in their private chats), tap-to-answer p50 and max (goal: all within 2 s).
BENCH_PROFILE=FILE in the environment: the bot process runs under cProfile, its stats
written to FILE when it stops (pstats reads them).
--trace: where each seated player's tap spent its time, step by step, and the event
loops' lag and the storage's queues meanwhile (bench/tap_trace.py).
Nothing is asserted; the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import logging
import os
import random
import signal
import socket
import statistics
import string
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import tap_trace  # noqa: E402
from bot.games.burkozel.keyboard import card_taps  # noqa: E402
from bot.views.callbacks import CardCb, LobbyCb, PlayCb  # noqa: E402
from engine import burkozel  # noqa: E402
from storage import Backend, open_storage  # noqa: E402
from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser  # noqa: E402

TOKEN = "123456:BENCH-junk"
SECRET = "bench-secret"
SAMPLE_SECONDS = 0.05
STRANGERS = 200  # in private chats; a fifth of them are in the group too
AFTER_FETCH = 20.0  # tasks are looked at again this long after the last junk was fetched
SETTLE = 30.0  # RSS "after" is read this long after the bot caught up


# --- the bot's process -----------------------------------------------------------


def child() -> None:
    """The bot (settings from the environment, as ``python -m bot``) plus a sampler."""
    from bot.app import App
    from bot.config import load_settings

    settings = load_settings()
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    page = os.sysconf("SC_PAGE_SIZE")
    trace = os.environ.get("BENCH_TRACE")
    if trace:
        tap_trace.install(Path(trace))

    async def sample() -> None:
        statm = Path("/proc/self/statm")
        while True:
            rss = int(statm.read_text().split()[1]) * page // 1024
            cpu = time.process_time()
            print(f"{time.monotonic():.3f} {len(asyncio.all_tasks())} {rss} {cpu:.3f}", flush=True)
            await asyncio.sleep(SAMPLE_SECONDS)

    async def main() -> None:
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, dump_tasks)
        sampler = asyncio.create_task(sample())
        try:
            await App(settings).run()
        finally:
            sampler.cancel()

    profile_path = os.environ.get("BENCH_PROFILE")  # where the bot's CPU goes (cProfile)
    profile = cProfile.Profile() if profile_path else None
    if profile is not None:
        profile.enable()
    asyncio.run(main())
    if profile is not None:
        profile.disable()
        profile.dump_stats(profile_path)
    if trace:
        tap_trace.dump(Path(trace))


def progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def dump_tasks() -> None:
    """SIGUSR1: where every task of this process waits (a run that seems stuck)."""
    for task in asyncio.all_tasks():
        task.print_stack(limit=6, file=sys.stderr)


@dataclass
class Sample:
    at: float
    tasks: int
    rss_kb: int
    cpu: float  # the bot process's CPU seconds so far (all its threads)


@dataclass
class BotProcess:
    proc: asyncio.subprocess.Process
    metrics_url: str
    samples: list[Sample] = field(default_factory=list)
    reader: asyncio.Task[None] | None = None

    async def dropped(self) -> float | None:
        """Updates the bot dropped so far (None: a bot that does not count them)."""
        async with aiohttp.ClientSession() as session, session.get(self.metrics_url) as response:
            text = await response.text()
        for line in text.splitlines():
            if line.startswith("burkozel_updates_dropped_total "):
                return float(line.split()[1])
        return None

    async def read(self) -> None:
        assert self.proc.stdout is not None
        async for line in self.proc.stdout:
            at, tasks, rss, cpu = line.split()
            self.samples.append(Sample(float(at), int(tasks), int(rss), float(cpu)))

    def between(self, start: float, end: float) -> list[Sample]:
        return [s for s in self.samples if start <= s.at <= end]

    def at(self, when: float) -> Sample:
        """The last sample taken at or before ``when``."""
        before = [s for s in self.samples if s.at <= when]
        return before[-1] if before else self.samples[0]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def start_bot(
    fake: FakeTelegram, tmp: Path, webhook: bool, trace: Path | None = None
) -> BotProcess:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))},
        "BOT_TOKEN": TOKEN,
        "DATABASE_PATH": str(tmp / "junk.sqlite3"),
        "TELEGRAM_API_URL": fake.api_url,
        "DEFAULT_LANGUAGE": "en",
        "TURN_TIMEOUT_SECONDS": "3600",
        "LOG_LEVEL": "WARNING",
    }
    if trace is not None:
        env["BENCH_TRACE"] = str(trace)
    port = _free_port()  # /metrics is served here (polling mode: METRICS_LISTEN)
    if webhook:
        env |= {
            "WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
            "WEBHOOK_LISTEN": f"127.0.0.1:{port}",
            "WEBHOOK_SECRET": SECRET,
        }
    else:
        env["METRICS_LISTEN"] = f"127.0.0.1:{port}"
    log = (tmp / "bot.log").open("ab")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        cwd=tmp,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=log,
    )
    bot = BotProcess(proc, f"http://127.0.0.1:{port}/metrics")
    bot.reader = asyncio.create_task(bot.read())
    if webhook:
        await fake.wait_for(lambda: fake.webhook_url, timeout=120, interval=0.1)
    else:
        await fake.wait_for(lambda: fake.requests_for("getUpdates"), timeout=120, interval=0.1)
    return bot


# --- the game --------------------------------------------------------------------


@dataclass
class Action:
    tapped: float  # the move's tap created at the fake
    answered: float
    table: float  # the group table's next edit (or new table) reached the fake


@dataclass
class Game:
    fake: FakeTelegram
    storage: Backend
    group: FakeChat
    users: list[FakeUser]
    think: float
    game_id: int = 0
    seats: list[int] = field(default_factory=list)
    series: burkozel.Series | None = None
    moves: list[Action] = field(default_factory=list)
    # (tapped, answered, update id)
    taps: list[tuple[float, float, int]] = field(default_factory=list)
    seen: int = 0  # fake.requests already looked through for table edits
    tables: set[int] = field(default_factory=set)  # the group's table messages

    async def open(self) -> None:
        first, second = self.users
        command = await first.send(self.group, "/newgame")

        async def lobby() -> int:
            game = await self.storage.open_game(self.group.id, None)
            return game.id if game is not None and game.status == "lobby" else 0

        self.game_id = await self.fake.wait_for(lobby, timeout=600, interval=0.05)
        for user, action in ((second, "join"), (first, "start")):
            data = LobbyCb(game=self.game_id, action=action).pack()
            await (await user.tap_raw(command, data)).wait(timeout=600)

        async def dealt() -> bool:
            game = await self.storage.get_game(self.game_id)
            return game is not None and game.status == "playing"

        await self.fake.wait_for(dealt, timeout=600, interval=0.05)
        game = await self.storage.get_game(self.game_id)
        self.seats = [s.user_id for s in game.seats]
        self.series = burkozel.from_record(await self.storage.export_record(self.game_id))

    async def play(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await asyncio.sleep(self.think)
            if self.series is None or self.series.finished:
                await self.wait_finished()
                await self.open()
                continue
            await self.move()

    async def wait_finished(self) -> None:
        async def finished() -> bool:
            game = await self.storage.get_game(self.game_id)
            return game is None or game.status != "playing"

        if self.game_id:
            await self.fake.wait_for(finished, timeout=600, interval=0.1)

    async def move(self) -> None:
        series = self.series
        assert series is not None
        if series.current is None:  # the bot dealt the next deal: read its deck
            series = self.series = burkozel.from_record(
                await self.storage.export_record(self.game_id)
            )
        deal = series.current
        assert deal is not None and deal.turn is not None
        version = await self.storage.game_version(self.game_id)
        user = next(u for u in self.users if u.id == self.seats[deal.turn])
        anchor = user.dm.messages[0]
        chosen = random.Random(len(self.moves)).choice(deal.legal_actions())
        codes, instant = card_taps(deal, chosen)
        taps = [CardCb(game=self.game_id, v=version, card=code).pack() for code in codes]
        if not instant:
            kind = "l" if chosen.beat is None else ("b" if chosen.beat else "d")
            cards = ".".join(c.code() for c in sorted(chosen.cards))
            taps.append(PlayCb(game=self.game_id, v=version, kind=kind, cards=cards).pack())
        self.seen = len(self.fake.requests)
        self.tables.update(m.message_id for m in self.group.bot_messages_containing("Trump:"))
        for data in taps:
            pending = await user.tap_raw(anchor, data)
            await pending.wait(timeout=600)
            self.taps.append((pending.created, time.monotonic(), pending.update_id))
        series.apply(chosen)
        answered = time.monotonic()
        table = await self.fake.wait_for(self.table_edit_after(pending.created), timeout=600)
        self.moves.append(Action(pending.created, answered, table))

    def table_edit_after(self, tapped: float) -> Any:
        def found() -> float | None:
            requests = self.fake.requests
            for record in requests[self.seen :]:
                if not (record.ok and str(record.params.get("chat_id")) == str(self.group.id)):
                    continue
                if record.method == "sendMessage" and "Trump:" in str(record.params["text"]):
                    self.tables.add(int(record.result["message_id"]))
                elif not (
                    record.method == "editMessageText"
                    and int(record.params["message_id"]) in self.tables
                ):
                    continue
                if record.time >= tapped:
                    return record.time
            return None

        return found


# --- the junk --------------------------------------------------------------------


@dataclass
class Junk:
    fake: FakeTelegram
    group: FakeChat
    in_group: list[FakeUser]
    strangers: list[FakeUser]
    rng: random.Random

    # The junk is made from slices of one random text and the group's last messages are
    # looked up once per 50 updates: made a character at a time, with the group's whole
    # history searched each time, it took ~0.8 ms of the bench's CPU an update, in the
    # fake's own process, so a burst came over 8-25 s instead of Telegram's 1-2 s and the
    # fake's event loop lagged while it answered getUpdates.
    source: str = ""
    targets: list[FakeMessage] = field(default_factory=list)

    def text(self, length: int) -> str:
        if not self.source:
            alphabet = string.ascii_letters + "абвгдеёжзий <&>😀🂠 "
            self.source = "".join(self.rng.choice(alphabet) for _ in range(65536))
        start = self.rng.randrange(len(self.source) - length)
        return self.source[start : start + length]

    def group_message(self) -> FakeMessage | None:
        return self.rng.choice(self.targets) if self.targets else None

    async def one(self, game_id: int) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:  # in the game's group
            user = rng.choice(self.in_group)
            target = self.group_message()
            if roll < 0.15 and target is not None:  # random callback data
                data = self.text(rng.randint(1, 64))
                await user.tap_raw(target, data[:64])
            elif roll < 0.27 and target is not None:  # forged game buttons
                version, card = rng.randint(0, 500), rng.choice(["AS", "6H", "XX", "10D"])
                data = rng.choice(
                    [
                        CardCb(
                            game=max(1, game_id + rng.randint(-2, 2)), v=version, card=card
                        ).pack(),
                        PlayCb(game=game_id, v=version, kind="l", cards=card).pack(),
                        LobbyCb(game=rng.randint(0, 10**6), action="start").pack(),
                        f"t:{game_id}:{version}:+",
                    ]
                )
                await user.tap_raw(target, data)
            elif roll < 0.33 and target is not None and target.buttons:  # others' buttons
                buttons = [b for row in target.buttons for b in row if b.callback_data]
                if buttons:
                    await user.tap_raw(target, rng.choice(buttons).callback_data or "")
            elif roll < 0.40:  # a long command
                await user.send(self.group, "/score " + self.text(4090))
            else:
                command = rng.choice(
                    ["/score", "/rules", "/join", "/leave", "/help", "/stats", "/top", "/newgame@x"]
                )
                await user.send(self.group, command)
        else:  # strangers in their private chats
            user = rng.choice(self.strangers)
            if not user.started:
                await user.start_bot()
            elif roll < 0.65:
                await user.send_dm(self.text(4096))
            elif roll < 0.75 and user.dm.bot_messages():
                await user.tap_raw(user.dm.bot_messages()[-1], self.text(rng.randint(1, 64)))
            else:
                await user.send_dm(
                    rng.choice(["/start", "/help", "/newgame", "/stats", "/rules", "hi", "?"])
                )

    async def burst(self, count: int, game_id: int) -> None:
        for n in range(count):
            if n % 50 == 0:
                self.targets = self.group.bot_messages()[-5:]
            await self.one(game_id)
            if n % 50 == 49:
                await asyncio.sleep(0)  # let the fake serve the bot meanwhile


# --- the run ---------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    start: float
    fetched: float = 0.0  # the last junk update left the fake
    caught_up: float = 0.0  # ... and the bot held nothing more, its outbox empty
    end: float = 0.0
    junk: int = 0
    dropped: float | None = None  # junk updates the bot dropped in this burst


async def caught_up(fake: FakeTelegram, storage: Backend, bot: BotProcess, idle: int) -> bool:
    if fake.pending_updates:
        return False
    if await storage.outbox_size() > 3:  # the table's own edits may keep a few waiting
        return False
    return bool(bot.samples) and bot.samples[-1].tasks <= idle


async def run(junk_count: int, think: float, webhook: bool, tmp: Path, trace: bool) -> None:
    async with FakeTelegram(token=TOKEN) as fake:
        fake.enforce_limits = True
        fake.validate_updates = False
        fake.callback_answer_timeout = 3600
        trace_path = tmp / "trace.json" if trace else None
        fake_side = tap_trace.FakeSide(fake) if trace else None
        ticker = asyncio.create_task(fake_side.tick()) if fake_side is not None else None
        bot = await start_bot(fake, tmp, webhook, trace_path)
        storage = await open_storage(f"sqlite:{tmp / 'junk.sqlite3'}")
        phases: list[Phase] = []
        game: Game | None = None
        try:
            phases, game = await session(fake, storage, bot, junk_count, think)
        finally:
            await storage.close()
            if bot.proc.returncode is None:
                bot.proc.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(bot.proc.wait(), 30)
            if bot.proc.returncode is None:
                bot.proc.kill()
            if ticker is not None:
                ticker.cancel()
        if trace_path is not None and fake_side is not None and game is not None:
            for phase in phases[1:]:
                print(f"\n--- {phase.name} ---")
                taps = [
                    (update_id, tapped, answered)
                    for tapped, answered, update_id in game.taps
                    if phase.start <= tapped <= phase.caught_up
                ]
                window = (phase.start, phase.caught_up)
                tap_trace.report(trace_path, fake_side, taps, window, sys.stdout)


async def session(
    fake: FakeTelegram, storage: Backend, bot: BotProcess, junk_count: int, think: float
) -> tuple[list[Phase], Game]:
    players = [fake.add_user("Anna"), fake.add_user("Boris")]
    strangers = [fake.add_user(f"S{n}", language_code="ru") for n in range(STRANGERS)]
    in_group = strangers[: STRANGERS // 5]
    group = fake.add_group("Junk <&> 🃏", members=[*players, *in_group])
    for user in players:
        await user.start_bot()
    game = Game(fake, storage, group, players, think)
    await game.open()
    await fake.wait_for(lambda: not fake.pending_updates, timeout=120)
    await asyncio.sleep(2)
    idle = max(s.tasks for s in bot.samples[-10:]) + 2
    junk = Junk(fake, group, in_group, strangers, random.Random(27))
    stop = asyncio.Event()
    player = asyncio.create_task(game.play(stop))
    phases = [Phase("quiet", time.monotonic())]
    await asyncio.sleep(max(30.0, think * 5))
    phases[0].end = phases[0].fetched = phases[0].caught_up = time.monotonic()
    for name in ("burst 1", "burst 2"):
        dropped_before = await bot.dropped()
        phase = Phase(name, time.monotonic(), junk=junk_count)
        phases.append(phase)
        ids = len(fake.all_updates)
        await junk.burst(junk_count, game.game_id)
        last = fake.all_updates[-1]["update_id"] if len(fake.all_updates) > ids else 0
        await fake.wait_for(
            lambda last=last: all(u["update_id"] > last for u in fake.pending_updates),
            timeout=1200,
            interval=0.05,
        )
        phase.fetched = time.monotonic()
        progress(f"{name}: the last junk update fetched after {phase.fetched - phase.start:.1f} s")
        await fake.wait_for(lambda: caught_up(fake, storage, bot, idle), timeout=1800, interval=0.2)
        phase.caught_up = time.monotonic()
        dropped = await bot.dropped()
        if dropped is not None and dropped_before is not None:
            phase.dropped = dropped - dropped_before
        progress(f"{name}: caught up after {phase.caught_up - phase.start:.1f} s")
        await asyncio.sleep(max(SETTLE, AFTER_FETCH - (phase.caught_up - phase.fetched)))
        phase.end = time.monotonic()
    stop.set()
    await asyncio.wait_for(player, 600)
    report(phases, bot, game, junk_count, think, fake)
    return phases, game


ANSWER_DEADLINE = 10.0  # seconds: Telegram's «query is too old» comes about then


def answer_times(fake: FakeTelegram) -> dict[str, float]:
    """callback query id -> when the bot's (first good) answer to it reached the fake."""
    times: dict[str, float] = {}
    for record in fake.requests:
        if record.method == "answerCallbackQuery" and record.ok:
            times.setdefault(str(record.params.get("callback_query_id")), record.time)
    return times


def answer_shares(fake: FakeTelegram, start: float, end: float) -> tuple[int, float, float]:
    """Callback queries created between ``start`` and ``end``: how many, the share
    answered within ANSWER_DEADLINE, the share answered at all."""
    times = answer_times(fake)
    created = [c for c in fake.callbacks.values() if start <= c.created <= end]
    if not created:
        return 0, float("nan"), float("nan")
    waits = [times[c.id] - c.created for c in created if c.id in times]
    in_time = sum(1 for w in waits if w <= ANSWER_DEADLINE)
    return len(created), in_time / len(created), len(waits) / len(created)


def report(
    phases: list[Phase],
    bot: BotProcess,
    game: Game,
    junk: int,
    think: float,
    fake: FakeTelegram,
) -> None:
    print(
        f"two bursts of {junk} junk updates while two players play (a move every ~{think:g} s);"
        f" the bot in its own process, Telegram's limits on at the fake"
    )
    print(
        f"{'':<9}{'peak tasks':>11}{'at fetch':>9}{'+20 s':>7}{'RSS MB before':>14}"
        f"{'peak':>7}{'after':>7}{'caught up s':>12}{'moves':>6}{'lag p50 s':>10}"
        f"{'lag max s':>10}{'answer max s':>13}{'dropped':>8}"
        f"{'taps':>7}{'<=10 s':>8}{'at all':>8}{'player taps':>12}{'p50 s':>7}{'max s':>7}"
    )
    for phase in phases:
        window = bot.between(phase.start, phase.caught_up)
        before = bot.at(phase.start)
        after = bot.at(phase.end)
        moves = [m for m in game.moves if phase.start <= m.tapped <= phase.caught_up]
        lags = [m.table - m.tapped for m in moves]
        answers = [m.answered - m.tapped for m in moves]
        taps, in_time, at_all = answer_shares(fake, phase.start, phase.caught_up)
        player = [a - t for t, a, _ in game.taps if phase.start <= t <= phase.caught_up]
        fetched = (
            f"{bot.at(phase.fetched).tasks:>9}{bot.at(phase.fetched + AFTER_FETCH).tasks:>7}"
            if phase.junk
            else f"{'-':>9}{'-':>7}"
        )
        print(
            f"{phase.name:<9}{max((s.tasks for s in window), default=0):>11}{fetched}"
            f"{before.rss_kb / 1024:>14.0f}{max((s.rss_kb for s in window), default=0) / 1024:>7.0f}"
            f"{after.rss_kb / 1024:>7.0f}"
            f"{(phase.caught_up - phase.start) if phase.junk else 0:>12.1f}{len(moves):>6}"
            f"{statistics.median(lags) if lags else float('nan'):>10.1f}"
            f"{max(lags, default=float('nan')):>10.1f}{max(answers, default=float('nan')):>13.1f}"
            f"{'-' if phase.dropped is None else f'{phase.dropped:.0f}':>8}"
            f"{taps:>7}{in_time:>8.1%}{at_all:>8.1%}{len(player):>12}"
            f"{statistics.median(player) if player else float('nan'):>7.2f}"
            f"{max(player, default=float('nan')):>7.2f}"
        )
    for phase in phases[1:]:
        first, last = bot.at(phase.start), bot.at(phase.fetched)
        wall = max(1e-9, last.at - first.at)
        print(
            f"{phase.name}: until the last junk update was fetched ({wall:.1f} s) the bot"
            f" used {last.cpu - first.cpu:.1f} s of CPU ({(last.cpu - first.cpu) / wall:.0%}"
            f" of a core), {phase.junk / wall:.0f} junk updates read a second"
        )
    print(
        "peak tasks: the most asyncio tasks alive in the bot (sampled every 50 ms) from the"
        " burst's first junk update until it caught up; at fetch / +20 s: when the last junk"
        " update had been fetched and 20 s later. RSS after: 30 s after it caught up."
        " lag: tap that makes a move -> the group table's edit at the fake. dropped: junk"
        " updates the bot dropped (burkozel_updates_dropped; '-': a bot without it)."
        " taps: callback queries created in the window (junk and players'); <=10 s: the share"
        " answered within 10 s; at all: the share answered at all. player taps: the seated"
        " players' taps in the window (cards and plays, in their private chats), p50/max"
        " tap-to-answer."
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--junk", type=int, default=5000, help="junk updates per burst")
    parser.add_argument("--think", type=float, default=6.0, help="seconds before each move")
    parser.add_argument("--webhook", action="store_true", help="the bot in webhook mode")
    parser.add_argument("--trace", action="store_true", help="where the players' taps wait")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, dump_tasks)
    with tempfile.TemporaryDirectory(prefix="bench-junk-", dir=ROOT) as tmp:
        await run(args.junk, args.think, args.webhook, Path(tmp), args.trace)


if __name__ == "__main__":
    if "--child" in sys.argv:
        child()
    else:
        asyncio.run(main())
