"""The Mini App's API end to end (issue 29), without a browser: the real bot, polling the
fake Bot API, serving the app on WEBAPP_LISTEN. One player mixes the app and the text
buttons, the other plays by text; the app follows every move; a player in the app gets
no hand edit and no ping, and with everyone in the app the group table is edited once a
trick."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from pathlib import Path
from typing import Any

import aiohttp

from tests.bot.webapp.test_webapp_api import sign_init_data
from tests.e2e.harness import hand_message, new_fake, play_one_move, running_bot
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class AppPlayer:
    """A player's Mini App: its session, the live stream's newest state, its actions."""

    def __init__(self, http: aiohttp.ClientSession, base: str, fake: FakeTelegram, user: FakeUser):
        self.http, self.base, self.fake, self.user = http, base, fake, user
        self.token = ""
        self.game = 0
        self.latest: dict[str, Any] = {}
        self.events = 0
        self._reader: asyncio.Task[None] | None = None

    async def open(self, game_id: int) -> None:
        init = sign_init_data(self.fake.token, self.user.id, auth_date=time.time())
        async with self.http.post(
            f"{self.base}/webapp/api/session", json={"init_data": init, "game": game_id}
        ) as resp:
            assert resp.status == 200, await resp.text()
            self.token = (await resp.json())["token"]
        self.game = game_id
        self._reader = asyncio.create_task(self._read())
        await self.fake.wait_for(lambda: self.latest, description="the first live state")

    async def _read(self) -> None:
        url = f"{self.base}/webapp/api/live?game={self.game}&token={self.token}"
        async with self.http.get(url, timeout=aiohttp.ClientTimeout(total=None)) as resp:
            assert resp.status == 200
            event = ""
            async for raw in resp.content:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "state":
                    self.latest = json.loads(line[6:])
                    self.events += 1

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
            self._reader = None

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        body = {
            "game": self.game,
            "version": self.latest["version"],
            "kind": action["kind"],
            "cards": action["cards"] or [],
        }
        headers = {"Authorization": f"Bearer {self.token}"}
        async with self.http.post(
            f"{self.base}/webapp/api/action", json=body, headers=headers
        ) as resp:
            assert resp.status == 200, await resp.text()
            return dict(await resp.json())


async def start_game(fake: FakeTelegram, group: FakeChat, users: list[FakeUser]) -> None:
    for user in users:
        await user.start_bot()
    await users[0].send(group, "/newgame")
    lobby = await fake.wait_for(lambda: group.last_bot_message(), description="lobby")
    for user in users[1:]:
        await (await user.tap(lobby, "✋ Join")).wait()
    await fake.wait_for(lambda: all(u.first_name in lobby.text for u in users))
    await (await users[0].tap(lobby, "▶️ Start")).wait()
    await fake.wait_for(lambda: all(hand_message(u) for u in users))


def app_button(user: FakeUser) -> dict[str, Any] | None:
    message = hand_message(user)
    assert message is not None
    for row in message.buttons:
        for button in row:
            if "web_app" in button.raw:
                return dict(button.raw)
    return None


async def test_one_player_mixes_the_app_and_text_buttons_and_the_app_follows_every_move(
    tmp_path: Path,
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with new_fake() as fake:
        fake.enforce_limits = False
        ann = fake.add_user("Ann", language_code="en")
        ben = fake.add_user("Ben", language_code="en")
        group = fake.add_group("Friends", members=[ann, ben])
        async with (
            running_bot(
                fake,
                tmp_path / "bot.sqlite3",
                webapp_url=base,
                webapp_listen=f"127.0.0.1:{port}",
            ) as app,
            aiohttp.ClientSession() as http,
        ):
            await start_game(fake, group, [ann, ben])
            assert app.service is not None
            game = await app.service.storage.open_game(group.id, None)
            assert game is not None
            # The hand carries the «Open table» web_app button; the group never does.
            button = app_button(ann)
            assert button is not None and button["text"] == "🃏 Open table"
            assert button["web_app"]["url"] == f"{base}/webapp/?game={game.id}"
            assert not any(
                "web_app" in b.raw for m in group.bot_messages() for row in m.buttons for b in row
            )
            async with http.get(f"{base}/webapp/") as resp:
                assert resp.status == 200 and "html" in resp.headers["Content-Type"]

            player = AppPlayer(http, base, fake, ann)
            await player.open(game.id)
            async with http.get(f"{base}/healthz") as resp:
                assert (await resp.json())["webapp"] == {"connections": 1}
            async with http.get(f"{base}/metrics") as resp:
                assert "burkozel_webapp_connections 1.0" in await resp.text()
            await asyncio.sleep(0.3)  # edits queued before Ann opened the app go out
            since = len(fake.requests)
            rng = random.Random(5)
            by_app = by_text = 0
            for turn in range(14):
                state = player.latest
                if state["finished"]:
                    break
                version = state["version"]
                if state["turn"] == state["me"] and turn % 3 != 2:
                    # Ann plays in the app.
                    answer = await player.act(rng.choice(state["actions"]))
                    assert answer["version"] > version
                    by_app += 1
                else:
                    # Ann (now and then) or Ben taps text buttons.
                    if state["turn"] == state["me"]:
                        await player.close()  # she goes back to the chat
                        await fake.wait_for(
                            lambda: not app.webapp or app.webapp.hub.connections == 0
                        )
                        hand = hand_message(ann)
                        # Her hand message is brought up to date once she has left.
                        await fake.wait_for(
                            lambda h=hand: (
                                h is not None and f":{version}:" in json.dumps(h.reply_markup)
                            ),
                            timeout=30,
                            description="Ann's hand brought up to date",
                        )
                        await play_one_move(fake, ann, rng)
                        await player.open(game.id)
                        since = len(fake.requests)
                    else:
                        await play_one_move(fake, ben, rng)
                    by_text += 1
                # The app follows the move, whoever made it and however.
                await fake.wait_for(
                    lambda v=version: player.latest["version"] > v,
                    timeout=30,
                    description="the live state after the move",
                )
                # While Ann is in the app, no edit of her hand and no ping reach her chat.
                to_ann = [
                    r
                    for r in fake.requests[since:]
                    if str(r.params.get("chat_id")) == str(ann.id)
                    and r.method in ("editMessageText", "sendMessage")
                ]
                assert to_ann == [], to_ann
            assert by_app >= 2 and by_text >= 2
            await player.close()
        assert fake.invalid_requests == []


async def test_with_everyone_in_the_app_the_group_table_is_edited_once_a_trick(
    tmp_path: Path,
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with new_fake() as fake:
        fake.enforce_limits = False
        users = [fake.add_user(name, language_code="en") for name in ("Ann", "Ben", "Cid")]
        group = fake.add_group("Friends", members=users)
        async with (
            running_bot(
                fake,
                tmp_path / "bot.sqlite3",
                webapp_url=base,
                webapp_listen=f"127.0.0.1:{port}",
            ) as app,
            aiohttp.ClientSession() as http,
        ):
            await start_game(fake, group, users)
            assert app.service is not None
            game = await app.service.storage.open_game(group.id, None)
            assert game is not None
            players = [AppPlayer(http, base, fake, u) for u in users]
            for player in players:
                await player.open(game.id)
            await asyncio.sleep(0.3)
            since = len(fake.requests)
            rng = random.Random(2)
            moves = tricks = 0
            while moves < 12:
                state = players[0].latest
                version = state["version"]
                mover = players[state["turn"]]
                await fake.wait_for(lambda p=mover, v=version: p.latest["version"] == v)
                after = await mover.act(rng.choice(mover.latest["actions"]))
                moves += 1
                if not after["table"]:
                    tricks += 1
                for player in players:
                    await fake.wait_for(lambda p=player, v=version: p.latest["version"] > v)
            await asyncio.sleep(0.5)
            sent = fake.requests[since:]
            private = [r for r in sent if int(str(r.params.get("chat_id", 0))) > 0]
            table_edits = [
                r
                for r in sent
                if r.method == "editMessageText" and str(r.params.get("chat_id")) == str(group.id)
            ]
            assert [r.method for r in private if r.method != "answerCallbackQuery"] == []
            assert 1 <= len(table_edits) <= tricks + 1, (len(table_edits), tricks, moves)
            for player in players:
                await player.close()
        assert fake.invalid_requests == []
