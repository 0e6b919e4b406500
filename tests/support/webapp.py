"""The Mini App as tests drive it: launch data signed as Telegram signs it, a player's
app session over HTTP, and the cards a seat may not see."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bot.service import GameService
from tests.support.fake_telegram import FakeTelegram, FakeUser


def sign_init_data(
    bot_token: str, user_id: int, *, auth_date: float, first_name: str = "Ann", **extra: str
) -> str:
    """``Telegram.WebApp.initData`` as Telegram signs it: the fields sorted as
    ``key=value`` lines, HMAC-SHA256 under the key HMAC("WebAppData", bot token)."""
    user = {"id": user_id, "first_name": first_name, "language_code": "en"}
    fields = {
        "auth_date": str(int(auth_date)),
        "query_id": "AAE-test",
        "user": json.dumps(user, separators=(",", ":")),
        **extra,
    }
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def card_fields(state: dict[str, Any]) -> Iterator[str]:
    """Every card code the state names (not the trump card, turned for all to see)."""
    yield from state["hand"]
    yield from state["selected"]
    for play in state["table"]:
        yield from play["cards"]
    if state["last_trick"]:
        for play in state["last_trick"]["plays"]:
            yield from play["cards"]
    for action in state["actions"]:
        yield from action["cards"] or []


def hidden_cards(service: GameService, game_id: int, seat: int) -> set[str]:
    """The cards ``seat`` (``PUBLIC``: the group, an onlooker) may not see now, from the
    engine's own state: other hands, the stock (but its turned trump), and others'
    face-down discards (B1, D3)."""
    live = service.games.in_memory.get(game_id)
    if live is None:  # the series is over (its last deal finished: nothing is hidden)
        return set()
    assert live.played is not None
    deal = live.played.series.deals[-1]
    hidden: set[str] = set()
    if deal.finished:
        return hidden
    if live.game_side.name == "bura":
        for other, hand in enumerate(deal.hands):
            if other != seat:
                hidden |= {c.code() for c in hand}
        hidden |= {c.code() for c in deal.stock}
        for play in deal.plays:
            if play.closed and play.seat != seat:
                hidden |= {c.code() for c in play.cards}
        for pile in deal.piles:
            hidden |= {pc.card.code() for pc in pile if pc.closed and pc.by != seat}
    else:
        for other in range(deal.players):
            if other != seat:
                hidden |= {c.code() for c in deal.hand(other)}
        hidden |= {c.code() for c in deal._stock}
        hidden |= {c.code() for c, owner in deal._face_down.items() if owner != seat}
    hidden.discard(deal.trump_card.code())
    return hidden


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
        async for state in live_states(self.http, self.base, self.game, self.token):
            self.latest = state
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


async def live_states(
    http: aiohttp.ClientSession, base: str, game: int, token: str
) -> AsyncIterator[dict[str, Any]]:
    """The Mini App's live stream (server-sent events): each ``state`` event's data."""
    url = f"{base}/webapp/api/live?game={game}&token={token}"
    async with http.get(url, timeout=aiohttp.ClientTimeout(total=None)) as resp:
        assert resp.status == 200
        event = ""
        async for raw in resp.content:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "state":
                yield json.loads(line[6:])
