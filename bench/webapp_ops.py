"""Telegram operations per move with players in the Mini App.

Usage: .venv/bin/python bench/webapp_ops.py [--moves M] [--players 2 4] [--spectators 0 50]
       [--hands-in-group]

Whole Burkozel games (base rules) between people, through the real bot (bot.app.App:
handlers, service, SQLite, delivery worker, the Mini App's web server) and the fake Bot
API: players "in the app" hold a live connection (SSE) open and play through
POST /webapp/api/action; the others tap the text buttons as in ``bench/bot.py --ops``
(a tap plays a card; «➕ Several cards» / «🗑 Discard, don't beat» and the cards first
where one tap cannot make the move; those selection redraws are counted too). Moves are
picked by our greedy computer player. The outbox is drained after each move, so no
edit is coalesced away by the sender's pace: the figures are what each move costs at
the least. For 2- and 4-player tables with all, half and none of the players in the
app, it prints the operations per move by kind and what they mean: how many tables one
bot can host at a move every 4 s, with Telegram's ~30 operations a second for the whole
bot (30 / ops per move / 0.25). ``--spectators``: each row again with that many onlookers
who opened the table from the group's «🃏 Table» link (its signed start parameter) and
follow it live; every one of them must have heard of each move before the next.
``--hands-in-group``: rows where nobody is in the app and every player plays on their hand
shown inside the group (an ephemeral message: «🂠 My cards» tapped once a game), the
private hand kept up to date as the durable copy; ephemeral sends and edits are a column
of their own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
from pydantic import SecretStr  # noqa: E402

from bench.bot import OP_KINDS, TOKEN, UNPACED, op_kind  # noqa: E402
from bot.app import App  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.delivery.ephemeral import GroupHands  # noqa: E402
from bot.games.burkozel.keyboard import card_taps  # noqa: E402
from bot.views.callbacks import CardCb, LobbyCb, MyCardsCb, PlayCb  # noqa: E402
from engine.burkozel.ai import make_player  # noqa: E402
from tests.support.fake_telegram import FakeTelegram  # noqa: E402
from tests.support.webapp import sign_init_data  # noqa: E402

TELEGRAM_OPS_PER_SECOND = 30.0
MOVE_EVERY = 4.0  # seconds between moves at one table


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class InApp:
    """One player's open Mini App: a session and a live connection kept open."""

    def __init__(
        self, http: aiohttp.ClientSession, base: str, user_id: int, start_param: str = ""
    ) -> None:
        self.http, self.base, self.user_id = http, base, user_id
        self.start_param = start_param  # an onlooker's: the group's link
        self.token = ""
        self.game = 0
        self.version = -1
        self.reader: asyncio.Task[None] | None = None

    async def open(self, game_id: int) -> None:
        await self.close()
        extra = {"start_param": self.start_param} if self.start_param else {}
        init = sign_init_data(TOKEN, self.user_id, auth_date=time.time(), **extra)
        async with self.http.post(
            f"{self.base}/webapp/api/session", json={"init_data": init, "game": game_id}
        ) as resp:
            assert resp.status == 200, await resp.text()
            body = await resp.json()
            assert body["watching"] == bool(self.start_param), body
            self.token = body["token"]
        self.game, self.version = game_id, -1
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        url = f"{self.base}/webapp/api/live?game={self.game}&token={self.token}"
        async with self.http.get(url, timeout=aiohttp.ClientTimeout(total=None)) as resp:
            async for raw in resp.content:
                line = raw.decode()
                if line.startswith("data: "):
                    self.version = int(json.loads(line[6:]).get("version", self.version))

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            await asyncio.gather(self.reader, return_exceptions=True)
            self.reader = None

    async def act(self, version: int, kind: str, cards: list[str]) -> None:
        body = {"game": self.game, "version": version, "kind": kind, "cards": cards}
        headers = {"Authorization": f"Bearer {self.token}"}
        async with self.http.post(
            f"{self.base}/webapp/api/action", json=body, headers=headers
        ) as resp:
            assert resp.status == 200, await resp.text()


async def wait(predicate: Any, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.005)


async def ops_per_move(
    players: int,
    in_app: int,
    moves_wanted: int,
    tmp: Path,
    spectators: int = 0,
    in_group: bool = False,
) -> tuple[int, dict[str, int]]:
    counts = dict.fromkeys(OP_KINDS, 0)
    applied = 0
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with FakeTelegram(token=TOKEN) as fake, aiohttp.ClientSession() as http:
        fake.enforce_limits = False
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            bot_token=SecretStr(TOKEN),
            database_path=tmp / f"ops{players}-{in_app}-{spectators}.sqlite3",
            telegram_api_url=fake.api_url,
            default_language="en",
            turn_timeout_seconds=3600,
            log_level="WARNING",
            webapp_url=base,
            webapp_listen=f"127.0.0.1:{port}",
            webapp_link="main",
        )
        app = App(settings, limits=UNPACED, handle_signals=False)
        task = asyncio.create_task(app.run())
        await asyncio.wait_for(app.ready.wait(), 30)
        service = app.service
        assert service is not None and app.delivery is not None
        users = [fake.add_user(f"P{i}") for i in range(players)]
        group = fake.add_group("Ops", members=users)
        for user in users:
            await user.start_bot()
        # Half in the app: every other seat (so at a 4-player table, partners alike).
        apps = {u.id: InApp(http, base, u.id) for i, u in enumerate(users) if i % 2 == 0}
        apps = dict(list(apps.items())[:in_app])
        for user in users:
            if len(apps) < in_app and user.id not in apps:
                apps[user.id] = InApp(http, base, user.id)
        onlookers: list[InApp] = []

        hands = service.hand_copies
        assert isinstance(hands, GroupHands)

        async def drained() -> bool:
            assert app.delivery is not None
            copying = any(c.task is not None and not c.task.done() for c in hands._copies.values())
            return (
                not copying
                and not app.delivery._in_flight
                and await service.storage.outbox_size() == 0
            )

        while applied < moves_wanted:
            command = await users[0].send(group, "/newgame")

            async def lobby() -> int:
                game = await service.storage.open_game(group.id, None)
                return game.id if game is not None and game.status == "lobby" else 0

            game_id = await fake.wait_for(lobby, timeout=60, interval=0.02)
            for user in users[1:]:
                data = LobbyCb(game=game_id, action="join").pack()
                await (await user.tap_raw(command, data)).wait()
            data = LobbyCb(game=game_id, action="start").pack()
            await (await users[0].tap_raw(command, data)).wait()
            await wait(drained, "the start drained")
            for player in apps.values():  # opened from the hand message that just came
                await player.open(game_id)
            assert app.webapp is not None
            start_param = app.webapp.table_start(game_id)
            for onlooker in onlookers:
                await onlooker.close()
            onlookers = [InApp(http, base, 10_000 + n, start_param) for n in range(spectators)]
            for onlooker in onlookers:  # opened from the group's «🃏 Table»
                await onlooker.open(game_id)
            if in_group:  # each player taps «🂠 My cards» once: their hand in the group
                for user in users:
                    data = MyCardsCb(game=game_id).pack()
                    await (await user.tap_raw(command, data)).wait()
                    await wait(lambda u=user: group.last_ephemeral(u) is not None, "a hand")
                await wait(drained, "the hands in the group")
            following = [*apps.values(), *onlookers]
            await wait(lambda f=following: all(p.version >= 0 for p in f), "live states")
            await wait(drained, "drained")
            while applied < moves_wanted:
                live = await service.live(game_id)
                deal = live.played.series.current if live.played is not None else None
                if live.game.status != "playing" or deal is None or deal.turn is None:
                    break
                user = next(u for u in users if u.id == live.game.seats[deal.turn].user_id)
                version = live.game.version
                chosen = make_player("greedy", seed=applied).choose(
                    deal.view(deal.turn), deal.legal_actions()
                )
                kind = "l" if chosen.beat is None else ("b" if chosen.beat else "d")
                cards = [c.code() for c in sorted(chosen.cards)]
                start = len(fake.requests)
                if user.id in apps:
                    await apps[user.id].act(version, kind, cards)
                else:
                    anchor = user.dm.messages[0]
                    if in_group:
                        copy = group.last_ephemeral(user)
                        assert copy is not None
                        anchor = copy
                    codes, instant = card_taps(deal, chosen)
                    for code in codes:
                        data = CardCb(game=game_id, v=version, card=code).pack()
                        await (await user.tap_raw(anchor, data)).wait()
                        await wait(drained, "drained")
                    if not instant:
                        for record in fake.requests[start:]:  # redraws showing the selection
                            if op_kind(record) in ("hand edit", "ephemeral") and record.ok:
                                counts["selection"] += 1
                        start = len(fake.requests)
                        data = PlayCb(
                            game=game_id, v=version, kind=kind, cards=".".join(cards)
                        ).pack()
                        await (await user.tap_raw(anchor, data)).wait()
                await wait(drained, "drained")
                # Every open app has heard of the move (a second at most).
                await wait(lambda v=version, f=following: all(p.version > v for p in f), "live", 5)
                applied += 1
                for record in fake.requests[start:]:
                    kind_of = op_kind(record)
                    if kind_of is not None and record.ok:
                        counts[kind_of] += 1
        for player in [*apps.values(), *onlookers]:
            await player.close()
        await app.stop()
        await asyncio.wait_for(task, 30)
    return applied, counts


async def report(
    moves: int, player_counts: list[int], spectator_counts: list[int], in_group: bool
) -> None:
    print(
        f"Telegram operations per move with players in the Mini App ({moves} moves a row,"
        " Burkozel, greedy moves, outbox drained after each move)"
    )
    head = f"{'players':<8}{'in app':>8}{'watching':>9}" + "".join(f"{k:>12}" for k in OP_KINDS)
    print(head + f"{'total':>8}{'tables':>8}")
    with tempfile.TemporaryDirectory(prefix="bench-webapp-", dir=ROOT) as tmp:
        for players in player_counts:
            rows = [(players, "all"), (players // 2, "half"), (0, "none")]
            if in_group:
                rows = [(0, "group")]  # nobody in the app: hands in the group
            for in_app, label in rows:
                for spectators in spectator_counts:
                    applied, counts = await ops_per_move(
                        players, in_app, moves, Path(tmp), spectators, label == "group"
                    )
                    per = {k: v / applied for k, v in counts.items()}
                    total = sum(per.values())
                    tables = TELEGRAM_OPS_PER_SECOND / total / (1 / MOVE_EVERY) if total else 0
                    print(
                        f"{players:<8}{label:>8}{spectators:>9}"
                        + "".join(f"{per[k]:>12.2f}" for k in OP_KINDS)
                        + f"{total:>8.2f}{tables:>8.0f}",
                        flush=True,
                    )
    print(
        f"tables: what one bot can host at a move every {MOVE_EVERY:g} s with Telegram's"
        f" ~{TELEGRAM_OPS_PER_SECOND:g} operations a second ({TELEGRAM_OPS_PER_SECOND:g}"
        f" / ops per move / {1 / MOVE_EVERY:g}); goal with everyone in the app: >= 200"
        " (<= 0.6 ops per move)."
    )
    print(
        "Group sends are each new deal's table (sent with its first move) and series"
        " results; with everyone in the app the group table is edited once a trick."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=200, help="moves per row")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument(
        "--spectators",
        type=int,
        nargs="+",
        default=[0],
        help="onlookers following each table from the group's link (one row each)",
    )
    parser.add_argument(
        "--hands-in-group",
        action="store_true",
        help="players play on their hands shown inside the group (ephemeral messages)",
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    random.seed(0)
    asyncio.run(report(args.moves, args.players, args.spectators, args.hands_in_group))


if __name__ == "__main__":
    main()
