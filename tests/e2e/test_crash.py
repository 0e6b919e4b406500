"""Crash safety: the bot process is killed with SIGKILL at random moments of
several games and restarted each time; every game still ends exactly as an uninterrupted
replay of its move log says it should, and the fake, enforcing Telegram's flood limits,
never has to answer 429 (each restarted bot paces the chats from the operations
the killed ones logged).

The bot runs as a real subprocess (``python -m bot``) against the fake Bot API served
from this test process, with its default delivery limits. Games are mostly computer
seats (the private-chat pacing of about one message a second would make all-human games
take minutes). Human players tap the very callback data their hand keyboard carries for a
legal move (``p:<game>:<version>:<kind>:<cards>``); which move is legal is read from the
database, since after a kill the hand message may lag behind the committed state.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.service.screens import table_role
from bot.views.callbacks import PlayCb
from engine import burkozel
from storage import Storage
from tests.e2e.harness import TOKEN
from tests.support.fake_telegram import (
    CallbackNotAnswered,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
)
from tests.support.fake_telegram.entities import PendingCallback

KILLS = 6
PLAYED = "Played."
TIME_BUDGET = 300.0  # a hang guard for the games themselves (about 80 s on a quiet 2-core machine)


@dataclass
class Table:
    group: FakeChat
    humans: list[FakeUser]
    computers: int
    game_id: int = 0
    seats: dict[int, int] = field(default_factory=dict)  # user id -> seat
    taps: list[tuple[PendingCallback, int, dict[str, object]]] = field(default_factory=list)


class BotProcess:
    """``python -m bot`` in a subprocess that can be SIGKILLed and started again."""

    def __init__(self, fake: FakeTelegram, db: Path, workdir: Path) -> None:
        self.fake = fake
        self.workdir = workdir
        self.log = workdir / "bot.log"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "TELEGRAM_"))},
            "BOT_TOKEN": TOKEN,
            "DATABASE_PATH": str(db),
            "TELEGRAM_API_URL": fake.api_url,
            "DEFAULT_LANGUAGE": "en",
            "COMPUTER_PAUSE_SECONDS": "0.05",
            "TURN_TIMEOUT_SECONDS": "600",
            "LOG_LEVEL": "INFO",
        }
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0

    async def start(self) -> None:
        seen = len(self.fake.requests)
        with self.log.open("ab") as out:
            out.write(f"\n=== start {self.starts} ===\n".encode())
            out.flush()
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                cwd=self.workdir,  # no stray .env
                env=self.env,
                stdout=out,
                stderr=out,
            )
        self.starts += 1
        # Started = polling: a getUpdates from this process has reached the fake.
        await self.fake.wait_for(
            lambda: any(r.method == "getUpdates" for r in self.fake.requests[seen:]),
            # Importing aiogram alone takes ~10 s on a busy 2-core machine, and the first
            # getUpdates is recorded when its 10 s long poll ends (a hang guard, not a bound).
            timeout=180,
            description="the bot subprocess to start polling",
        )

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()

    async def stop(self) -> int:
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
                raise AssertionError("the bot did not stop on SIGTERM") from None
        assert self.proc.returncode is not None
        return self.proc.returncode

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


async def open_table(fake: FakeTelegram, table: Table) -> None:
    """The first human opens a lobby; the others join; computers are added; start."""
    first = table.humans[0]
    for user in table.humans:
        await user.start_bot()
    await first.send(table.group, "/newgame")
    lobby = await fake.wait_for(
        lambda: next((m for m in table.group.bot_messages() if "✋ Join" in m.button_texts), None),
        description="the lobby message",
    )
    assert isinstance(lobby, FakeMessage)
    for user in table.humans[1:]:
        answer = await (await user.tap(lobby, "✋ Join")).wait()
        assert not answer.show_alert, answer.text
    for _ in range(table.computers):
        answer = await (await first.tap(lobby, "🤖 + easy")).wait()
        assert not answer.show_alert, answer.text
    answer = await (await first.tap(lobby, "▶️ Start")).wait()
    assert not answer.show_alert, answer.text


def dm_message(user: FakeUser) -> FakeMessage:
    """Some message in the user's DM to hang a callback query on (the hand, ideally)."""
    for message in reversed(user.dm.messages):
        if message.is_from_bot and message.buttons:
            return message
    return user.dm.messages[-1]


async def play_humans(
    fake: FakeTelegram, storage: Storage, table: Table, rng: random.Random, stop: asyncio.Event
) -> None:
    """Whenever the database says it is a human's turn, that human taps a legal move.
    A tap the (killed) bot never answers is simply made again on the current state."""
    while not stop.is_set():
        game = await storage.get_game(table.game_id)
        assert game is not None
        if game.status != "playing":
            return
        series = burkozel.from_record(await storage.export_record(table.game_id))
        deal = series.current
        human = next(
            (u for u in table.humans if deal is not None and table.seats[u.id] == deal.turn),
            None,
        )
        if deal is None or human is None:
            await asyncio.sleep(0.05)
            continue
        move = rng.choice(deal.legal_actions())
        kind = "l" if move.beat is None else ("b" if move.beat else "d")
        data = PlayCb(
            game=table.game_id,
            v=game.version,
            kind=kind,
            cards=".".join(c.code() for c in sorted(move.cards)),
        ).pack()
        pending = await human.tap_raw(dm_message(human), data)
        table.taps.append((pending, game.version, move.to_json()))
        with contextlib.suppress(CallbackNotAnswered):
            await pending.wait(timeout=3)  # no answer: the bot was killed; look again
        await asyncio.sleep(rng.uniform(0, 0.2))


async def killer(bot: BotProcess, rng: random.Random, done: asyncio.Event) -> int:
    """SIGKILL the bot at random moments, restarting it each time."""
    kills = 0
    while kills < KILLS and not done.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), rng.uniform(1.0, 5.0))
        if done.is_set():
            break
        await bot.kill()
        kills += 1
        await asyncio.sleep(rng.uniform(0, 0.5))
        await bot.start()
    return kills


DEAL_ROW = re.compile(r"^(.+): (\d+) pts, penalty \+(\d+) \(total (\d+)\)$")


def deal_messages(group: FakeChat) -> dict[int, list[str]]:
    """Each "Deal N is over" message in the group, by deal number (resent copies too)."""
    found: dict[int, list[str]] = {}
    for message in group.bot_messages():
        hit = re.search(r"Deal (\d+) is over", message.text or "")
        if hit:
            found.setdefault(int(hit.group(1)), []).append(message.text or "")
    return found


@pytest.mark.soak
async def test_sigkill_at_random_moments_loses_and_repeats_no_move(tmp_path: Path) -> None:
    rng = random.Random(20240605)
    db = tmp_path / "bot.sqlite3"
    async with FakeTelegram(token=TOKEN) as fake:
        # Telegram's limits are enforced: a restarted bot paces each chat from what the
        # killed one sent (with full buckets after each start, a group got its
        # burst again and again within its minute, and 429s).
        fake.enforce_limits = True
        names = iter(["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus"])
        tables = []
        for title, humans, computers in (("Ann's", 2, 2), ("Cat's", 3, 1), ("Fay's", 2, 1)):
            users = [fake.add_user(next(names)) for _ in range(humans)]
            tables.append(Table(fake.add_group(title, members=users), users, computers))
        bot = BotProcess(fake, db, tmp_path)
        await bot.start()
        storage = await Storage.open(db)
        try:
            for table in tables:
                await open_table(fake, table)
                game = await storage.open_game(table.group.id, None)
                assert game is not None
                table.game_id = game.id
                table.seats = {s.user_id: s.seat for s in game.seats if s.user_id is not None}
            stop = asyncio.Event()
            all_done = asyncio.Event()
            players = [
                asyncio.create_task(play_humans(fake, storage, t, random.Random(i), stop))
                for i, t in enumerate(tables)
            ]
            kill_task = asyncio.create_task(killer(bot, rng, all_done))
            started = time.monotonic()
            try:
                finished = await asyncio.wait_for(asyncio.gather(*players), TIME_BUDGET)
            except TimeoutError:
                stop.set()
                states = [await storage.get_game(t.game_id) for t in tables]
                raise AssertionError(
                    f"games not over after {TIME_BUDGET}s: {states}\n{bot.tail()}"
                ) from None
            finally:
                all_done.set()
                kills = await kill_task
            assert finished and kills >= 3, f"only {kills} kills happened"
            played_for = time.monotonic() - started
            print(f"games over after {played_for:.1f}s")

            # Let the last bot instance deliver everything, then stop it cleanly.
            async def drained() -> bool:
                return await storage.outbox_size() == 0

            await fake.wait_for(drained, timeout=60, description="the outbox to drain")
            print(f"outbox drained after {time.monotonic() - started:.1f}s")
            assert await storage.outbox_size() == 0, bot.tail()
            code = await bot.stop()
            assert code == 0, bot.tail()
            assert await storage.outbox_size() == 0

            for table in tables:
                await check_game(storage, db, fake, table)
        finally:
            await storage.close()
            if bot.proc is not None and bot.proc.returncode is None:
                bot.proc.kill()
                await bot.proc.wait()
        assert fake.invalid_requests == []
        assert fake.flood_violations == [], fake.flood_violations
        log = bot.log.read_text(errors="replace")
        assert "Traceback" not in log, bot.tail(200)
        print(f"{kills} kills, {bot.starts} starts, games played in {played_for:.1f}s")


def same_move(a: dict[str, object] | None, b: dict[str, object]) -> bool:
    def key(m: dict[str, object]) -> tuple[object, ...]:
        cards = m["cards"]
        assert isinstance(cards, list)
        return (m["seat"], sorted(cards), m.get("beat"))

    return a is not None and key(a) == key(b)


async def check_game(
    storage: Storage,
    db: Path | None,
    fake: FakeTelegram,
    table: Table,
    versions: list[int] | None = None,
) -> None:
    """``versions``: the move log's versions, when the database is not the SQLite ``db``."""
    game = await storage.get_game(table.game_id)
    assert game is not None and game.status == "finished", game
    record = await storage.export_record(table.game_id)
    report = burkozel.replay(record)
    assert report.finished and report.winners == game.winners

    # No move applied twice or lost: the move log is one row per version, contiguous from
    # the first move to the last commit (every commit after the start is a move here), and
    # the record replays it move for move.
    if versions is None:
        assert db is not None
        with contextlib.closing(sqlite3.connect(db)) as conn:
            versions = [
                v
                for (v,) in conn.execute(
                    "SELECT version FROM moves WHERE game_id = ? ORDER BY version", (game.id,)
                )
            ]
    assert versions == list(range(versions[0], game.version + 1))
    assert len(versions) == sum(len(d["moves"]) for d in record["deals"])

    # Every move the bot acknowledged ("Played.") is in the log at the version it was for.
    logged = await storage.moves(game.id)
    by_version = dict(zip(versions, (m.move for m in logged), strict=True))
    acknowledged = 0
    for pending, version, move in table.taps:
        answer = pending.answer
        if answer is not None and answer.text == PLAYED:
            acknowledged += 1
            assert same_move(by_version.get(version + 1), move), (version, move)
    assert acknowledged > 0

    # Storage tallies, the group's deal messages and the replay agree deal by deal.
    tallies = await storage.tallies(game.id)
    assert [(t.points, t.penalties) for t in tallies] == [
        (d.points, d.penalties) for d in report.deals
    ]
    names = [s.name for s in game.seats]
    posted = deal_messages(table.group)
    assert sorted(posted) == list(range(1, len(report.deals) + 1)), posted.keys()
    totals = [0] * len(names)
    for number, deal in enumerate(report.deals, start=1):
        assert sum(deal.points) == 120  # R12
        assert deal.penalties is not None
        totals = [a + b for a, b in zip(totals, deal.penalties, strict=True)]
        texts = set(posted[number])
        assert len(texts) == 1, f"resent deal result differs: {texts}"
        rows = [DEAL_ROW.match(line) for line in texts.pop().splitlines()]
        shown = [(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))) for m in rows if m]
        expected = list(zip(names, deal.points, deal.penalties, totals, strict=True))
        assert shown == expected, (number, shown, expected)
    assert tuple(totals) == report.totals

    # The series result in the group, and the table and hands show the final state.
    final = [t for m in table.group.bot_messages() if "The series is over!" in (t := m.text or "")]
    assert final, "no series result in the group"
    for name, total in zip(names, report.totals, strict=True):
        assert f"{name}: {total}" in final[-1]
    refs = {r.role: r for r in await storage.game_messages(game.id)}
    # Each deal has its own table message (the ended ones show their results): the last.
    last_table = refs[table_role(burkozel.from_record(await storage.export_record(game.id)))]
    table_message = fake.chat(last_table.chat_id).get_message(last_table.message_id)
    assert table_message is not None and not table_message.deleted
    shown_table = table_message.text or ""
    # The last deal as it ended, its result, then the final tally.
    assert f"Deal {len(report.deals)} is over" in shown_table, shown_table
    assert "\n\n🏁 The series is over." in shown_table, shown_table
    for name, total in zip(names, report.totals, strict=True):
        assert f"{name}: {total}" in shown_table
    # The newest table-looking message in the group is that one (no stale copy after it).
    tables_shown = [m for m in table.group.bot_messages() if "Burkozel" in (m.text or "")]
    assert not tables_shown or tables_shown[-1].message_id <= table_message.message_id
    for user in table.humans:
        ref = refs[f"hand:{user.id}"]
        hand = user.dm.get_message(ref.message_id)
        assert hand is not None and "is over" in (hand.text or "") and not hand.buttons, hand
        # Any other hand-looking message left in the DM would show a stale game.
        stale = [m for m in user.dm.bot_messages() if "Your cards:" in (m.text or "")]
        assert not stale, [m.text for m in stale]
