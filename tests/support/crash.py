"""A bot run as its own process (``python -m bot``), killed and restarted, and the checks
that a game it played through the kills ended exactly as its move log says."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bot.service.screens import table_role
from bot.views.callbacks import PlayCb
from engine import burkozel
from storage import Storage
from tests.support.fake_telegram import (
    CallbackNotAnswered,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
)
from tests.support.fake_telegram.entities import PendingCallback
from tests.support.harness import PLAYED, TOKEN


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


class KillPace:
    """Holds the humans back until the killer has killed: after ``taps_per_kill`` taps
    (of all tables) they wait for the next kill, until ``kills`` kills have happened. On a
    loaded machine a restart takes long, and the games played meanwhile could end before
    the kills a test is about (it happened after one kill of four)."""

    def __init__(self, kills: int, taps_per_kill: int) -> None:
        self.wanted = kills
        self.taps_per_kill = taps_per_kill
        self.kills = 0
        self.taps = 0

    def killed(self) -> None:
        self.kills += 1

    async def wait(self) -> None:
        while self.kills < self.wanted and self.taps >= (self.kills + 1) * self.taps_per_kill:
            await asyncio.sleep(0.05)


async def play_humans(
    fake: FakeTelegram,
    storage: Storage,
    table: Table,
    rng: random.Random,
    stop: asyncio.Event,
    pace: KillPace | None = None,
) -> None:
    """Whenever the database says it is a human's turn, that human taps a legal move.
    A tap the (killed) bot never answers is simply made again on the current state."""
    while not stop.is_set():
        if pace is not None:
            await pace.wait()
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
        if pace is not None:
            pace.taps += 1
        with contextlib.suppress(CallbackNotAnswered):
            await pending.wait(timeout=3)  # no answer: the bot was killed; look again
        await asyncio.sleep(rng.uniform(0, 0.2))


DEAL_ROW = re.compile(r"^(.+): (\d+) pts, penalty \+(\d+) \(total (\d+)\)$")


def deal_messages(group: FakeChat) -> dict[int, list[str]]:
    """Each "Deal N is over" message in the group, by deal number (resent copies too)."""
    found: dict[int, list[str]] = {}
    for message in group.bot_messages():
        hit = re.search(r"Deal (\d+) is over", message.text or "")
        if hit:
            found.setdefault(int(hit.group(1)), []).append(message.text or "")
    return found


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
