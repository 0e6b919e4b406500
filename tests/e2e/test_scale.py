"""Running at scale: webhook mode, PostgreSQL, several bot instances.

Bots run in webhook mode against the fake Bot API, which delivers each update to the
instances in turn (as a load balancer would) and re-delivers any update not answered
with 200. The database is a real PostgreSQL server (tests/conftest.py; skipped loudly
when none can be started).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from pathlib import Path

import aiohttp
import asyncpg
import pytest

from storage import PgStorage, open_storage
from tests.support.crash import BotProcess, KillPace, Table, check_game, open_table, play_humans
from tests.support.fake_telegram import FakeTelegram
from tests.support.harness import TOKEN, free_port, running_bot

SECRET = "test-secret_42"
KILLS = 4
TAPS_PER_KILL = 5  # the humans wait for the next kill after so many taps (KillPace)
TIME_BUDGET = 480.0  # a hang guard only: a loaded 2-core machine plays these games slowly


def webhook_settings(pg_url: str, port: int, **extra: object) -> dict[str, object]:
    return {
        "database_url": pg_url,
        "webhook_url": f"http://127.0.0.1:{port}/hook",
        "webhook_listen": f"127.0.0.1:{port}",
        "webhook_secret": SECRET,
        **extra,
    }


class WebhookBot(BotProcess):
    """``python -m bot`` in webhook mode on its own port, sharing the PostgreSQL database."""

    def __init__(self, fake: FakeTelegram, pg_url: str, workdir: Path, name: str) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        super().__init__(fake, workdir / "unused.sqlite3", workdir)
        self.name = name
        self.port = free_port()
        self.env.pop("DATABASE_PATH")
        self.env |= {
            "DATABASE_URL": pg_url,
            "WEBHOOK_URL": f"http://127.0.0.1:{self.port}/hook",
            "WEBHOOK_LISTEN": f"127.0.0.1:{self.port}",
            "WEBHOOK_SECRET": SECRET,
        }

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def health(self) -> dict[str, object] | None:
        try:
            async with (
                aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2)) as session,
                session.get(f"http://127.0.0.1:{self.port}/healthz") as response,
            ):
                return dict(await response.json()) if response.status == 200 else None
        except (aiohttp.ClientError, TimeoutError, OSError):
            return None

    async def start(self) -> None:
        assert self.proc is None or self.proc.returncode is not None
        with self.log.open("ab") as out:
            out.write(f"\n=== start {self.starts} ===\n".encode())
        self.proc = await asyncio.create_subprocess_exec(
            *self._command(), cwd=self.workdir, env=self.env, stdout=None, stderr=None
        )
        self.starts += 1
        deadline = time.monotonic() + 90  # a busy 2-core machine starts Python slowly
        while await self.health() is None:
            assert self.proc.returncode is None, self.tail()
            assert time.monotonic() < deadline, f"{self.name} did not start\n{self.tail()}"
            await asyncio.sleep(0.1)

    def _command(self) -> list[str]:
        import sys

        log = str(self.log)
        # The shell appends both streams to the log, as BotProcess does.
        return ["sh", "-c", f'exec "$0" -m bot >> "{log}" 2>&1', sys.executable]


async def sender_of(bots: list[WebhookBot]) -> WebhookBot | None:
    for bot in bots:
        health = await bot.health()
        if health is not None and health.get("sender"):
            return bot
    return None


async def test_webhook_checks_the_secret_and_serves_health_and_metrics(
    tmp_path: Path, pg_url: str
) -> None:
    port = free_port()
    settings = webhook_settings(pg_url, port)
    async with FakeTelegram(token=TOKEN) as fake, running_bot(fake, tmp_path / "x", **settings):
        assert fake.webhook_url == f"http://127.0.0.1:{port}/hook"
        assert fake.webhook_secret == SECRET  # setWebhook was called with it
        async with aiohttp.ClientSession() as session:
            update = {"update_id": 1, "message": None}
            for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": "wrong"}):
                async with session.post(fake.webhook_url, json=update, headers=headers) as r:
                    assert r.status == 401  # refused before anything is parsed
            async with session.get(f"http://127.0.0.1:{port}/healthz") as r:
                assert r.status == 200
                assert await r.json() == {"database": "ok", "sender": True}
            async with session.get(f"http://127.0.0.1:{port}/metrics") as r:
                text = await r.text()
                assert r.status == 200 and "text/plain" in r.headers["Content-Type"]
        for name in (
            "burkozel_updates_handled_total",
            "burkozel_updates_held",
            "burkozel_updates_dropped_total",
            "burkozel_moves_applied_total",
            "burkozel_outbox_depth",
            "burkozel_outbox_age_seconds",
            "burkozel_telegram_429_total",
            "burkozel_tap_to_answer_seconds_bucket",
        ):
            assert name in text, name


async def test_a_redelivered_update_is_applied_once(tmp_path: Path, pg_url: str) -> None:
    """The same update posted twice (the first answer "lost") opens one lobby, not two
    lobby messages; the second delivery is recognised by its update_id."""
    port = free_port()
    async with FakeTelegram(token=TOKEN) as fake:
        fake.webhook_targets = []  # deliver by hand below
        ann = fake.add_user("Ann")
        group = fake.add_group("Cards", members=[ann])
        async with running_bot(fake, tmp_path / "x.sqlite3", **webhook_settings(pg_url, port)):
            fake.webhook_targets = []
            update = fake._push_update(
                "message",
                {
                    "message_id": 1,
                    "date": int(time.time()),
                    "chat": {"id": group.id, "type": "group", "title": "Cards"},
                    "from": ann.to_api(),
                    "text": "/newgame",
                    "entities": [{"type": "bot_command", "offset": 0, "length": 8}],
                },
            )
            headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
            async with aiohttp.ClientSession() as session:
                for _ in range(3):
                    async with session.post(
                        f"http://127.0.0.1:{port}/hook", json=update, headers=headers
                    ) as r:
                        assert r.status == 200
            await fake.wait_for(lambda: any("✋ Join" in m.button_texts for m in group.messages))
            await asyncio.sleep(0.5)
        lobbies = [m for m in group.bot_messages() if "✋ Join" in m.button_texts]
        assert len(lobbies) == 1
    conn = await asyncpg.connect(pg_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM games") == 1
        assert await conn.fetchval(
            "SELECT count(*) FROM updates WHERE update_id = $1", update["update_id"]
        )
    finally:
        await conn.close()


async def outbox_rows(storage: PgStorage) -> str:
    """The rows still in the outbox, as the sender sees them (a stall's diagnosis)."""
    now = time.time()
    async with storage._pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT id, chat_id, method, role, attempts, not_before, last_error FROM outbox"
            " ORDER BY id LIMIT 60"
        )
    return "outbox:\n" + "\n".join(
        f"  #{r['id']} chat {r['chat_id']} {r['method']} {r['role']} tries {r['attempts']}"
        f" due in {r['not_before'] - now:+.1f} s {r['last_error'] or ''}"
        for r in rows
    )


async def killer(
    bots: list[WebhookBot], rng: random.Random, done: asyncio.Event, pace: KillPace
) -> list[str]:
    """SIGKILL an instance now and then (every other time the sender) while the other is
    up, and start it again in the background (Python starts slowly on a busy machine)."""
    kills: list[str] = []
    restarts: list[asyncio.Task[None]] = []
    while len(kills) < KILLS and not done.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), rng.uniform(1.0, 2.5))
        if done.is_set():
            break
        if any(not task.done() for task in restarts):
            continue
        sender = await sender_of(bots)
        if sender is None:
            continue  # a takeover is under way
        if len(kills) % 2 == 0:
            victim, role = sender, "sender"
        else:
            victim = rng.choice(bots)
            role = "sender" if victim is sender else "other"
        await victim.kill()
        kills.append(f"{victim.name}:{role}")
        pace.killed()
        restarts.append(asyncio.create_task(victim.start()))
    await asyncio.gather(*restarts)
    return kills


@pytest.mark.soak
async def test_two_instances_with_kills_finish_every_game_exactly(
    tmp_path: Path, pg_url: str
) -> None:
    rng = random.Random(15)
    async with FakeTelegram(token=TOKEN) as fake:
        # Telegram's limits stay on: the sender that takes over must keep to them too.
        bots = [WebhookBot(fake, pg_url, tmp_path / n, n) for n in ("a", "b")]
        fake.webhook_targets = [bot.url for bot in bots]
        names = iter(["Ann", "Ben", "Cat", "Dan"])
        tables = []
        for title, humans, computers in (("Two", 2, 0), ("Four", 2, 2)):
            users = [fake.add_user(next(names)) for _ in range(humans)]
            tables.append(Table(fake.add_group(title, members=users), users, computers))
        for bot in bots:
            await bot.start()
        storage = await open_storage(pg_url)
        assert isinstance(storage, PgStorage)
        try:
            for table in tables:
                # Updates of different chats are handled in parallel (as from Telegram):
                # the DM's /start must be in before the group's /newgame seats its sender.
                for user in table.humans:
                    await user.start_bot()
                await fake.wait_for(lambda: not fake.pending_updates, timeout=30)
                await open_table(fake, table)
                game = await storage.open_game(table.group.id, None)
                assert game is not None
                table.game_id = game.id
                table.seats = {s.user_id: s.seat for s in game.seats if s.user_id is not None}
            stop, all_done = asyncio.Event(), asyncio.Event()
            pace = KillPace(KILLS, TAPS_PER_KILL)
            players = [
                asyncio.create_task(play_humans(fake, storage, t, random.Random(i), stop, pace))
                for i, t in enumerate(tables)
            ]
            kill_task = asyncio.create_task(killer(bots, rng, all_done, pace))
            started = time.monotonic()
            try:
                await asyncio.wait_for(asyncio.gather(*players), TIME_BUDGET)
            except TimeoutError:
                stop.set()
                states = [await storage.get_game(t.game_id) for t in tables]
                raise AssertionError(
                    f"games not over after {TIME_BUDGET}s: {states}\n"
                    + "\n".join(b.tail() for b in bots)
                ) from None
            finally:
                all_done.set()
                kills = await kill_task
            assert len(kills) >= 2 and any(k.endswith(":sender") for k in kills), kills
            print(
                f"games over after {time.monotonic() - started:.1f}s; kills {kills}; taps {pace.taps}"
            )

            async def drained() -> bool:
                return await storage.outbox_size() == 0

            drain_started = time.monotonic()
            try:
                await fake.wait_for(drained, timeout=90, description="the outbox to drain")
                print(f"outbox drained in {time.monotonic() - drain_started:.1f}s")
            except AssertionError as exc:
                raise AssertionError(
                    f"{exc}\n{await outbox_rows(storage)}\n"
                    + "\n".join(f"--- {b.name}\n{b.tail(120)}" for b in bots)
                ) from None
            for bot in bots:
                assert await bot.stop() == 0, bot.tail()
            assert await storage.outbox_size() == 0
            assert fake.flood_violations == [], fake.flood_violations
            for table in tables:
                async with storage._pool.acquire() as conn:
                    versions = [
                        r[0]
                        for r in await conn.fetch(
                            "SELECT version FROM moves WHERE game_id = $1 ORDER BY version",
                            table.game_id,
                        )
                    ]
                await check_game(storage, None, fake, table, versions)
            # Both instances handled updates; some were re-delivered after a kill.
            targets = {d.target for d in fake.webhook.deliveries if d.outcome == "200"}
            assert targets == {bot.url for bot in bots}
        finally:
            await storage.close()
            for bot in bots:
                if bot.proc is not None and bot.proc.returncode is None:
                    bot.proc.kill()
                    await bot.proc.wait()
        assert fake.invalid_requests == []
        for bot in bots:
            log = bot.log.read_text(errors="replace")
            assert "Traceback" not in log, bot.tail(200)


async def test_polling_mode_serves_health_and_metrics_on_metrics_listen(tmp_path: Path) -> None:
    port = free_port()
    settings = {"metrics_listen": f"127.0.0.1:{port}"}
    async with FakeTelegram(token=TOKEN) as fake, running_bot(fake, tmp_path / "x", **settings):
        ann = fake.add_user("Ann")
        group = fake.add_group("Cards", members=[ann])
        await ann.start_bot()
        await ann.send(group, "/newgame")
        await fake.wait_for(lambda: any("✋ Join" in m.button_texts for m in group.messages))
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/healthz") as r:
                assert (r.status, await r.json()) == (200, {"database": "ok", "sender": True})
            async with session.get(f"http://127.0.0.1:{port}/metrics") as r:
                text = await r.text()
    assert 'burkozel_updates_handled_total{kind="message"}' in text
    assert "burkozel_sender 1.0" in text
