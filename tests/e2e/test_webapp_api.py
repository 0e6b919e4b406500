"""The Mini App's API end to end, without a browser: the real bot, polling the
fake Bot API, serving the app on WEBAPP_LISTEN. One player mixes the app and the text
buttons, the other plays by text; the app follows every move; a player in the app gets
no hand edit and no ping, and with everyone in the app the group table is edited once a
trick."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from engine.game import PUBLIC
from tests.support.fake_telegram import (
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
    MiniAppLaunch,
)
from tests.support.harness import (
    free_port,
    hand_cards,
    hand_message,
    new_fake,
    play_one_move,
    running_bot,
)
from tests.support.webapp import AppPlayer, card_fields, hidden_cards, live_states


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


# --- the table opened from the group ---------------------------------------------------


class Onlooker:
    """Someone in the group who taps «🃏 Table» there: the launch Telegram hands the app,
    the session, and every live frame; each frame is checked, as it arrives, for a card
    the group does not see (``hidden``: the cards hidden from the group right now)."""

    def __init__(self, http: aiohttp.ClientSession, base: str, launch: MiniAppLaunch) -> None:
        self.http, self.base, self.launch = http, base, launch
        self.session: dict[str, Any] = {}
        self.frames: list[dict[str, Any]] = []
        self.checked = 0
        self.leaks: list[tuple[int, set[str]]] = []
        self.hidden: Any = None  # () -> (game version, cards hidden from the group)
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> tuple[int, dict[str, Any]]:
        """The page's first request: its session, with the launch data only (no game)."""
        async with self.http.post(
            f"{self.base}/webapp/api/session", json={"init_data": self.launch.init_data}
        ) as resp:
            body = dict(await resp.json())
            if resp.status == 200:
                self.session = body
                self._reader = asyncio.create_task(self._read())
            return resp.status, body

    @property
    def latest(self) -> dict[str, Any]:
        return self.frames[-1] if self.frames else {"version": -1}

    def check(self, state: dict[str, Any]) -> None:
        version, hidden = self.hidden()
        if state["version"] != version:
            return  # (the game moved on meanwhile: the next frame is checked)
        self.checked += 1
        leaked = set(card_fields(state)) & hidden
        if leaked:
            self.leaks.append((state["version"], leaked))

    async def _read(self) -> None:
        game, token = self.session["game"], self.session["token"]
        async for state in live_states(self.http, self.base, game, token):
            self.check(state)
            self.frames.append(state)

    async def state(self) -> dict[str, Any]:
        game, token = self.session["game"], self.session["token"]
        async with self.http.get(
            f"{self.base}/webapp/api/state?game={game}",
            headers={"Authorization": f"Bearer {token}"},
        ) as resp:
            assert resp.status == 200, await resp.text()
            return dict(await resp.json())

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)


def table_message(group: FakeChat, label: str = "🃏 Table") -> FakeMessage | None:
    """The group's table message carrying the «🃏 Table» button (the newest deal's)."""
    for message in reversed(group.bot_messages()):
        if label in message.button_texts:
            return message
    return None


ONLOOKER_GAMES = [
    ("burkozel", ["Ann", "Ben"], {"burkozel": {"discards": "closed"}}),  # B1
    ("bura", ["Ann", "Ben", "Cid"], {"game": "bura"}),  # D3 closed: Bura's base
]


@pytest.mark.parametrize(("kind", "names", "rules"), ONLOOKER_GAMES, ids=["burkozel", "bura"])
async def test_an_onlooker_opens_the_table_from_the_group_and_follows_a_whole_deal_live(
    tmp_path: Path, kind: str, names: list[str], rules: dict[str, Any]
) -> None:
    """The group's table carries «🃏 Table», a direct link to the bot's Main Mini App with a
    signed start parameter. Zoë, in the group but not playing, taps it and follows a whole
    deal with closed discards (B1 / D3) live: a frame for every move, none holding a card
    the group does not see, her chat never written to (no Telegram operation for her).
    Ann, seated, taps the same button and gets her seat; a start parameter altered by one
    character is refused with the page's message, and nothing changes."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with new_fake() as fake:
        fake.enforce_limits = False
        fake.main_mini_app = f"{base}/webapp/"  # the owner's one step in @BotFather
        players = [fake.add_user(n, language_code="en") for n in names]
        zoe = fake.add_user("Zoë <z> & 🎲", language_code="en")
        group = fake.add_group("Friends", members=[*players, zoe])
        async with (
            running_bot(
                fake,
                tmp_path / "bot.sqlite3",
                webapp_url=base,
                webapp_listen=f"127.0.0.1:{port}",
                webapp_link="main",
            ) as app,
            aiohttp.ClientSession() as http,
        ):
            assert app.service is not None
            await app.service.storage.set_chat_rules(group.id, rules)
            app.service.settings.rng = random.Random(f"onlooker:{kind}")
            await start_game(fake, group, players)
            game = await app.service.storage.open_game(group.id, None)
            assert game is not None
            message = await fake.wait_for(lambda: table_message(group), description="«Table»")
            link = message.find_button(text="🃏 Table").url
            assert link is not None
            assert link.startswith(f"https://t.me/{fake.bot_username}?startapp=g{game.id}_")

            def hidden() -> tuple[int, set[str]]:
                assert app.service is not None
                live = app.service.games.in_memory.get(game.id)
                version = -1 if live is None else live.game.version
                return version, hidden_cards(app.service, game.id, PUBLIC)

            onlooker = Onlooker(http, base, zoe.open_app_button(message, "🃏 Table"))
            onlooker.hidden = hidden
            status, opened = await onlooker.open()
            assert status == 200, opened
            assert (opened["game"], opened["me"], opened["watching"]) == (game.id, None, True)
            await fake.wait_for(lambda: onlooker.frames, description="the first frame")

            # Ann, seated, opens the same button in the group: her own seat and hand.
            ann = players[0]
            seated = AppPlayer(http, base, fake, ann)
            init = ann.open_app_button(message, "🃏 Table").init_data
            async with http.post(f"{base}/webapp/api/session", json={"init_data": init}) as r:
                body = await r.json()
                assert (r.status, body["me"], body["watching"]) == (200, 0, False), body
            seated.token, seated.game = body["token"], game.id
            async with http.get(
                f"{base}/webapp/api/state?game={game.id}",
                headers={"Authorization": f"Bearer {seated.token}"},
            ) as r:
                mine = await r.json()
            assert mine["me"] == 0 and mine["hand"] and mine["actions"] is not None
            assert sorted(mine["hand"]) == sorted(hand_codes(ann, group))

            # A start parameter altered by one character: refused, with the page's reason.
            start = link.split("startapp=")[1]
            altered = start[:-1] + ("A" if start[-1] != "A" else "B")
            forged = Onlooker(http, base, zoe.open_mini_app(link.replace(start, altered), group))
            versions = await app.service.storage.game_version(game.id)
            status, refused = await forged.open()
            assert (status, refused["error"]) == (400, "bad_start")
            assert refused["message"] == (
                "This link to the table is not valid. Open the table with the «🃏 Table» "
                "button under the game in the group."
            )
            assert await app.service.storage.game_version(game.id) == versions

            # The players play a whole deal in the app; Zoë's page follows every move.
            apps = [AppPlayer(http, base, fake, u) for u in players]
            for player in apps:
                await player.open(game.id)
            rng = random.Random(3)
            moves = 0
            first_deal = onlooker.latest["deal"]  # (a Bura deal void from the deal, D9: the next)
            while True:
                version = await app.service.storage.game_version(game.id)
                assert version is not None
                await fake.wait_for(
                    lambda v=version: (
                        onlooker.latest["version"] >= v
                        and all(p.latest["version"] >= v for p in apps)
                    ),
                    timeout=30,
                    description="every page at the game's version",
                )
                frame = onlooker.latest
                if frame["deal"] > first_deal or frame["finished"]:
                    break
                assert frame["hand"] == [] and frame["actions"] == []
                assert await onlooker.state() == frame  # the API's answer is the frame
                movers = [p for p in apps if p.latest["actions"]]
                if not movers:
                    await asyncio.sleep(0.05)
                    continue
                mover = next((p for p in movers if p.latest["turn"] == p.latest["me"]), movers[0])
                actions = mover.latest["actions"]
                # (a closed discard now and then, where one may be made: something to hide)
                discards = [a for a in actions if a["kind"] == "d"]
                await mover.act(
                    rng.choice(discards if discards and rng.random() < 0.6 else actions)
                )
                moves += 1
                assert moves < 300
            # The deal's result reached her page as the group reads it.
            result = frame["notes"][0].splitlines()[0]
            await fake.wait_for(
                lambda: result in "\n".join(group.all_texts(False)), description="the result"
            )
            face_down = sum(
                p["closed"]
                for f in onlooker.frames
                for p in f["table"] + (f["last_trick"] or {"plays": []})["plays"]
            )
            assert face_down > 0, "no closed discard was made: nothing could have leaked"
            assert onlooker.leaks == []
            assert onlooker.checked >= moves // 2, (onlooker.checked, moves)
            assert len({f["version"] for f in onlooker.frames}) >= moves
            # Nothing was ever sent to Zoë: watching costs no Telegram operation.
            assert [r for r in fake.requests if str(r.params.get("chat_id")) == str(zoe.id)] == []
            await onlooker.close()
            for player in apps:
                await player.close()
        assert fake.invalid_requests == []


def hand_codes(user: FakeUser, group: FakeChat) -> list[str]:
    suits = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
    return [c[:-1] + suits[c[-1]] for c in hand_cards(user, group)]
