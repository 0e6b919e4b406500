"""The Mini App's API without a browser (docs/webapp-api.md): launches and
tokens, refusals that change nothing, the state of whole random games holding no card
the seat may not see, a text tap and an app action racing, and live events."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.service import GameService, UserError, UserInfo
from bot.webapp.api import WebApp
from bot.webapp.auth import TOKEN_SECONDS
from bot.webapp.live import Hub
from bot.webapp.views import state as seat_state
from engine.game import PUBLIC
from storage import Backend, Game, open_storage
from tests.support.harness import TOKEN
from tests.support.webapp import card_fields, hidden_cards, sign_init_data

MAX_AGE = 3600
CHAT = -100


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@dataclass
class Table:
    service: GameService
    storage: Backend
    client: TestClient
    clock: Clock
    webapp: WebApp
    game: Game
    users: list[UserInfo]
    tokens: dict[int, str] = field(default_factory=dict)

    async def session(self, user_id: int, game_id: int | None = None) -> str:
        init = sign_init_data(TOKEN, user_id, auth_date=self.clock())
        resp = await self.client.post(
            "/webapp/api/session", json={"init_data": init, "game": game_id or self.game.id}
        )
        assert resp.status == 200, await resp.text()
        body = await resp.json()
        assert body["expires_in"] == TOKEN_SECONDS
        self.tokens[user_id] = body["token"]
        return str(body["token"])

    async def watch(self, user_id: int, start_param: str | None = None) -> dict[str, Any]:
        """``user_id`` opens the group's «🃏 Table» link (its signed start parameter, or
        ``start_param``); the session answer. The token is kept as the user's."""
        start = self.webapp.table_start(self.game.id) if start_param is None else start_param
        init = sign_init_data(TOKEN, user_id, auth_date=self.clock(), start_param=start)
        resp = await self.client.post("/webapp/api/session", json={"init_data": init})
        body = dict(await resp.json())
        if resp.status == 200:
            self.tokens[user_id] = body["token"]
        body["status"] = resp.status
        return body

    async def state(self, user_id: int) -> dict[str, Any]:
        resp = await self.client.get(
            f"/webapp/api/state?game={self.game.id}",
            headers={"Authorization": f"Bearer {self.tokens[user_id]}"},
        )
        assert resp.status == 200, await resp.text()
        return dict(await resp.json())

    async def act(
        self, user_id: int, version: int, kind: str, cards: list[str] | None
    ) -> tuple[int, dict[str, Any]]:
        resp = await self.client.post(
            "/webapp/api/action",
            json={"game": self.game.id, "version": version, "kind": kind, "cards": cards or []},
            headers={"Authorization": f"Bearer {self.tokens[user_id]}"},
        )
        return resp.status, dict(await resp.json())

    async def snapshot(self) -> tuple[int, int, int]:
        """What a refusal must leave as it was: version, moves logged, outbox rows."""
        game = await self.storage.get_game(self.game.id)
        assert game is not None
        moves = await self.storage.moves(self.game.id)
        return game.version, len(moves), await self.storage.outbox_size()


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Backend]:
    db = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        yield db
    finally:
        await db.close()


@contextlib.asynccontextmanager
async def open_table(
    storage: Backend,
    players: int,
    rules: dict[str, Any] | None = None,
    *,
    seed: int = 1,
    grace: float = 5.0,
) -> AsyncIterator[Table]:
    clock = Clock()
    service = GameService(
        storage,
        bot_username="cards_bot",
        computer_pause=0,
        rng=random.Random(seed),
        default_language="en",
    )
    users = [UserInfo(10 + i, f"P{i}") for i in range(players)]
    for user in users:
        await storage.upsert_user(user.id, user.name, None, None)
        await storage.set_user_started(user.id, True)
    if rules:
        await storage.set_chat_rules(CHAT, rules)
    game = await service.new_game(CHAT, "Group", None, users[0])
    for user in users[1:]:
        await service.join(game.id, user)
    game = await service.start(game.id, users[0].id)
    webapp = WebApp(service, bot_token=TOKEN, max_age=MAX_AGE, clock=clock, hub=Hub(grace=grace))
    app = webapp.add_routes(web.Application())
    async with TestClient(TestServer(app)) as client:
        yield Table(service, storage, client, clock, webapp, game, users)


def seat_user(table: Table, seat: int) -> int:
    user_id = table.game.seats[seat].user_id
    assert user_id is not None
    return user_id


# --- launches and tokens -------------------------------------------------------------


async def test_a_forged_expired_or_wrong_game_launch_is_refused(storage: Backend) -> None:
    async with open_table(storage, 2) as table:
        before = await table.snapshot()
        ann = table.users[0].id
        game_id = table.game.id

        async def launch(init: str, game: int = game_id) -> tuple[int, dict[str, Any]]:
            resp = await table.client.post(
                "/webapp/api/session", json={"init_data": init, "game": game}
            )
            return resp.status, await resp.json()

        good = sign_init_data(TOKEN, ann, auth_date=table.clock())
        assert (await launch(good))[0] == 200
        # Forged: signed with another bot's token; or a user id changed after signing.
        forged = sign_init_data("999:other-token", ann, auth_date=table.clock())
        assert await launch(forged) == (401, {"error": "bad_init_data", "message": _any()})
        tampered = good.replace(f"%22id%22%3A{ann}", "%22id%22%3A11")
        assert tampered != good
        assert (await launch(tampered))[1]["error"] == "bad_init_data"
        assert (await launch("user=x&hash=00"))[1]["error"] == "bad_init_data"
        # Expired: auth_date older than WEBAPP_MAX_AGE.
        old = sign_init_data(TOKEN, ann, auth_date=table.clock() - MAX_AGE - 1)
        status, body = await launch(old)
        assert (status, body["error"]) == (401, "expired_init_data")
        # Replayed later: the launch that passed above, once it is older than the age.
        table.clock.now += MAX_AGE + 1
        status, body = await launch(good)
        assert (status, body["error"]) == (401, "expired_init_data")
        table.clock.now -= MAX_AGE + 1
        # Wrong game: a user who does not sit at it; a game that does not exist.
        stranger = sign_init_data(TOKEN, 999, auth_date=table.clock())
        status, body = await launch(stranger)
        assert (status, body["error"]) == (403, "not_seated")
        assert body["message"] == "You are not playing in this game."
        status, body = await launch(good, game_id + 50)
        assert (status, body["error"]) == (404, "no_game")
        # Malformed.
        resp = await table.client.post("/webapp/api/session", data=b"{not json")
        assert resp.status == 400
        assert await table.snapshot() == before


class _any:
    def __eq__(self, other: object) -> bool:
        return True


async def test_a_forged_expired_or_other_games_token_is_refused(storage: Backend) -> None:
    async with open_table(storage, 2) as table:
        ann = table.users[0].id
        token = await table.session(ann)
        url = f"/webapp/api/state?game={table.game.id}"

        async def get(token: str, url: str = url) -> tuple[int, str]:
            resp = await table.client.get(url, headers={"Authorization": f"Bearer {token}"})
            return resp.status, (await resp.json()).get("error", "")

        assert (await get(token))[0] == 200
        body, _, mac = token.partition(".")
        assert await get(body + "." + mac[::-1]) == (401, "bad_token")
        assert await get("garbage") == (401, "bad_token")
        # A token claiming another user (its body re-encoded) fails its signature.
        other = table.webapp.key[::-1]
        from bot.webapp.auth import issue_token

        assert await get(issue_token(other, ann, table.game.id, table.clock() + 60)) == (
            401,
            "bad_token",
        )
        # Another game's token (replayed for this one), and this one's for another game.
        elsewhere = issue_token(table.webapp.key, ann, table.game.id + 1, table.clock() + 60)
        assert await get(elsewhere) == (403, "wrong_game")
        assert await get(token, f"/webapp/api/state?game={table.game.id + 1}") == (
            403,
            "wrong_game",
        )
        # Expired.
        table.clock.now += TOKEN_SECONDS + 1
        assert await get(token) == (401, "expired_token")
        resp = await table.client.get(f"/webapp/api/live?game={table.game.id}&token={token}")
        assert resp.status == 401


async def test_the_groups_link_seats_a_player_lets_anyone_else_watch_and_refuses_a_forgery(
    storage: Backend,
) -> None:
    """Opened by the group's «🃏 Table» link: a seated player gets their seat (a player's
    token, their hand and actions), anyone else the onlooker's view, who can do nothing;
    an altered or made-up start parameter is refused, whatever the page asks for, and a
    stranger without the link still cannot watch by naming the game."""
    async with open_table(storage, 2) as table:
        before = await table.snapshot()
        ann = seat_user(table, 0)
        seated = await table.watch(ann)
        assert (seated["status"], seated["me"], seated["watching"]) == (200, 0, False)
        assert seated["game"] == table.game.id
        assert len((await table.state(ann))["hand"]) == 4

        stranger = 999
        watching = await table.watch(stranger)
        assert (watching["status"], watching["me"], watching["watching"]) == (200, None, True)
        assert watching["lang"] == "en" and watching["texts"]["watching"] == "You are watching"
        state = await table.state(stranger)
        assert state["watching"] and state["hand"] == [] and state["actions"] == []
        assert [row["cards"] for row in state["seats"]] == [4, 4]
        assert not any(row["me"] for row in state["seats"])
        # An onlooker cannot play, whatever they send.
        status, body = await table.act(stranger, state["version"], "l", ["AS"])
        assert (status, body["error"]) == (403, "not_seated")
        assert await table.snapshot() == before

        good = table.webapp.table_start(table.game.id)
        other_game = table.webapp.table_start(table.game.id + 1)
        for bad in (
            good[:-1] + ("A" if good[-1] != "A" else "B"),
            other_game.split("_", 1)[0] + "_" + good.split("_", 1)[1],
            f"g{table.game.id}",
            "hi",
        ):
            refused = await table.watch(777, bad)
            assert (refused["status"], refused["error"]) == (400, "bad_start"), bad
            assert refused["message"].startswith("This link to the table is not valid")
            assert "token" not in refused
        # A stranger naming the game without the link: not seated, as before.
        init = sign_init_data(TOKEN, 777, auth_date=table.clock())
        resp = await table.client.post(
            "/webapp/api/session", json={"init_data": init, "game": table.game.id}
        )
        assert (resp.status, (await resp.json())["error"]) == (403, "not_seated")
        # The link names its own game, whatever the page sends beside it.
        init = sign_init_data(TOKEN, 777, auth_date=table.clock(), start_param=good)
        resp = await table.client.post(
            "/webapp/api/session", json={"init_data": init, "game": table.game.id + 5}
        )
        assert (resp.status, (await resp.json())["game"]) == (200, table.game.id)
        assert await table.snapshot() == before


async def test_onlookers_cost_no_telegram_operation_and_spare_no_hand(tmp_path: Path) -> None:
    """Twenty onlookers follow the game live: the first move enqueues exactly the
    operations the same move does at the same table with none (their connections make
    nobody "in the app", so the players' hands are still edited), and every onlooker's
    stream brings the new state."""

    async def first_move_ops(onlookers: int, folder: str) -> int:
        db = await open_storage(f"sqlite:{tmp_path / folder}.sqlite3")
        try:
            async with open_table(db, 2) as table:
                streams = []
                for n in range(onlookers):
                    opened = await table.watch(500 + n)
                    url = f"/webapp/api/live?game={table.game.id}&token={opened['token']}"
                    streams.append(await table.client.get(url))
                for stream in streams:
                    assert (await asyncio.wait_for(next_event(stream), 10))[0] == "state"
                assert table.webapp.hub.connections == onlookers
                for seat in (0, 1):
                    assert not table.webapp.hub.in_app(table.game.id, seat_user(table, seat))
                # The first move, made by the text path (the player is not in the app).
                version = (await table.snapshot())[0]
                live = await table.service.live(table.game.id)
                assert live.played is not None
                seat = live.played.actors()[0]
                user_id = seat_user(table, seat)
                action = seat_state(live, seat)["actions"][0]
                outbox = await db.outbox_size()
                codes = ".".join(action["cards"] or [])
                await table.service.play(table.game.id, user_id, version, action["kind"], codes)
                ops = await db.outbox_size() - outbox
                for stream in streams:
                    event, seen = await asyncio.wait_for(next_event(stream), 10)
                    assert (event, seen["version"], seen["watching"]) == (
                        "state",
                        version + 1,
                        True,
                    )
                    stream.close()
                return ops
        finally:
            await db.close()

    alone = await first_move_ops(0, "alone")
    assert alone > 0
    assert await first_move_ops(20, "watched") == alone


# --- actions -------------------------------------------------------------------------


async def test_an_action_out_of_turn_stale_or_with_a_card_not_held_changes_nothing(
    storage: Backend,
) -> None:
    async with open_table(storage, 2) as table:
        for user in table.users:
            await table.session(user.id)
        state = await table.state(table.users[0].id)
        turn = state["turn"]
        mover, other = seat_user(table, turn), seat_user(table, 1 - turn)
        mine = await table.state(mover)
        theirs = await table.state(other)
        version = mine["version"]
        assert theirs["actions"] == [] and mine["actions"]
        before = await table.snapshot()

        # Out of turn: the other player leads one of their own cards.
        status, body = await table.act(other, version, "l", [theirs["hand"][0]])
        assert (status, body["error"]) == (409, "not_your_turn")
        assert body["message"] == "It is not your turn."
        # A card not held (one of the other's).
        status, body = await table.act(mover, version, "l", [theirs["hand"][0]])
        assert (status, body["error"]) == (400, "not_your_card")
        # Not a card at all; a kind no button has.
        status, body = await table.act(mover, version, "l", ["ZZ"])
        assert (status, body["error"]) == (400, "forged")
        status, body = await table.act(mover, version, "q", [mine["hand"][0]])
        assert (status, body["error"]) == (400, "forged")
        # Illegal: a lead of two cards of different suits (R6).
        suits = {c[-1]: c for c in mine["hand"]}
        if len(suits) > 1:
            a, b = list(suits.values())[:2]
            status, body = await table.act(mover, version, "l", [a, b])
            assert (status, body["error"]) == (400, "illegal")
        # A version from the future, or from before the last move.
        status, body = await table.act(mover, version + 5, "l", [mine["hand"][0]])
        assert (status, body["error"]) == (409, "stale")
        assert await table.snapshot() == before

        # A legal action goes through and answers the new state.
        action = mine["actions"][0]
        status, after = await table.act(mover, version, action["kind"], action["cards"])
        assert status == 200, after
        assert after["version"] > version
        moved = await table.snapshot()
        assert moved[1] == before[1] + 1
        # The same request again is stale now: nothing changes.
        status, body = await table.act(mover, version, action["kind"], action["cards"])
        assert (status, body["error"]) in ((409, "stale"), (409, "not_your_turn"))
        assert await table.snapshot() == moved


async def test_a_text_tap_and_an_app_action_racing_make_exactly_one_move(
    storage: Backend,
) -> None:
    async with open_table(storage, 2, seed=3) as table:
        for user in table.users:
            await table.session(user.id)
        for _ in range(6):
            state = await table.state(table.users[0].id)
            mover = seat_user(table, state["turn"])
            mine = await table.state(mover)
            action = mine["actions"][0]
            codes = ".".join(action["cards"] or [])
            before = await table.snapshot()

            async def text_tap(action: dict[str, Any] = action, codes: str = codes) -> bool:
                try:
                    await table.service.play(
                        table.game.id, mover, mine["version"], action["kind"], codes
                    )
                except UserError:
                    return False
                return True

            tap, (status, _) = await asyncio.gather(
                text_tap(), table.act(mover, mine["version"], action["kind"], action["cards"])
            )
            assert [tap, status == 200].count(True) == 1, (tap, status)
            after = await table.snapshot()
            assert after[1] == before[1] + 1  # exactly one move logged


# --- what a seat sees ------------------------------------------------------------------


def hidden_from(table: Table, seat: int) -> set[str]:
    return hidden_cards(table.service, table.game.id, seat)


GAMES = [
    ("burkozel-2-closed", 2, {"burkozel": {"discards": "closed"}}),
    (
        "burkozel-4-closed-pairs-combinations",
        4,
        {"burkozel": {"discards": "closed", "teams": "pairs", "combinations": "on"}},
    ),
    (
        "burkozel-3-closed-elimination",
        3,
        {"burkozel": {"discards": "closed", "series_end": "elimination", "max_lead": 4}},
    ),
    ("bura-2-closed-dave", 2, {"game": "bura", "bura": {"dave": "on", "moscow": "on"}}),
    ("bura-3-closed", 3, {"game": "bura", "bura": {"same_rank_leads": "on"}}),
    ("bura-4-open", 4, {"game": "bura", "bura": {"discards": "open", "target": "31_50"}}),
]


@pytest.mark.parametrize(("players", "rules"), [g[1:] for g in GAMES], ids=[g[0] for g in GAMES])
async def test_every_state_of_whole_random_games_holds_only_cards_the_seat_may_see(
    storage: Backend, players: int, rules: dict[str, Any]
) -> None:
    """R8/B1/D3: every state answer, action answer and live event of whole games played
    through the API, for every seat after every move, names no card of another hand, of
    the stock or of another seat's face-down discard; each action listed is accepted.
    An onlooker who opened the group's link gets, in every answer and live event, no card
    the group does not see (no hand, no stock, no face-down discard of anyone), and every
    card the group sees on the table."""
    rng = random.Random(players * 7 + len(rules))
    async with open_table(storage, players, rules, seed=players) as table:
        users = [seat_user(table, s) for s in range(players)]
        streams = []
        for user_id in users:
            token = await table.session(user_id)
            url = f"/webapp/api/live?game={table.game.id}&token={token}"
            streams.append(await table.client.get(url))
        onlooker = 999
        opened = await table.watch(onlooker)
        assert opened["status"] == 200 and opened["watching"] and opened["me"] is None
        assert not re.search(r"\b(10|[6-9JQKA])[SHDC]\b", json.dumps(opened)), opened
        url = f"/webapp/api/live?game={table.game.id}&token={opened['token']}"
        streams.append(await table.client.get(url))
        viewers = [*range(players), PUBLIC]
        moves = kinds = face_down = 0
        seen_kinds: set[str] = set()
        while moves < 2000:
            states = {}
            for seat, user_id in enumerate(users):
                state = await table.state(user_id)
                leaked = set(card_fields(state)) & hidden_from(table, seat)
                assert not leaked, (seat, leaked, state)
                states[seat] = state
                plays = state["table"] + (state["last_trick"] or {"plays": []})["plays"]
                face_down += sum(p["closed"] for p in plays)
            watched = await table.state(onlooker)
            leaked = set(card_fields(watched)) & hidden_from(table, PUBLIC)
            assert not leaked, (leaked, watched)
            assert_the_groups_table(watched, states)
            if states[0]["finished"]:
                break
            actors = [s for s in range(players) if states[s]["actions"]]
            assert actors, states[0]
            seat = rng.choice(actors)
            action = rng.choice(states[seat]["actions"])
            seen_kinds.add(action["kind"])
            status, body = await table.act(
                users[seat], states[seat]["version"], action["kind"], action["cards"]
            )
            assert status == 200, (action, body)
            leaked = set(card_fields(body)) & hidden_from(table, seat)
            assert not leaked, (seat, leaked, body)
            # Every seat's live stream brings the new state, holding nothing hidden either.
            for viewer, stream in zip(viewers, streams, strict=True):
                event, live = "", {"version": -1}
                while live["version"] < body["version"]:
                    event, live = await asyncio.wait_for(next_event(stream), 30)
                assert event == "state" and live["version"] == body["version"]
                leaked = set(card_fields(live)) & hidden_from(table, viewer)
                assert not leaked, (viewer, leaked, live)
            moves += 1
        kinds = len(seen_kinds)
        for stream in streams:
            stream.close()
        assert states[0]["finished"] and states[0]["status"] == "finished", moves
        assert states[0]["notes"], "the series' result is told"
        assert kinds >= 2
        closed = "open" not in json.dumps(rules)  # (B1 asked for; D3 closed is Bura's base)
        assert (face_down > 0) == closed, face_down  # hidden cards were there to leak


def assert_the_groups_table(watched: dict[str, Any], states: dict[int, dict[str, Any]]) -> None:
    """An onlooker's state is the group's view of the seats' states: no hand, nothing to
    do, the same plays with only the face-up cards everyone sees, the same counts."""
    assert watched["watching"] and watched["me"] is None
    assert watched["hand"] == [] and watched["actions"] == [] and watched["selected"] == []
    seat = states[0]
    for key in ("version", "turn", "deadline", "stock", "trump", "tally", "notes", "deal"):
        assert watched[key] == seat[key], key
    assert [row["cards"] for row in watched["seats"]] == [row["cards"] for row in seat["seats"]]

    def as_everyone_sees(plays: list[dict[str, Any]]) -> list[tuple[int, str, int, int]]:
        # (seat, role, face-up cards, face-down cards): a seat's own face-down discard,
        # listed to it, lies face down for everyone else
        return [
            (p["seat"], p["role"], 0, len(p["cards"]))
            if p["mine_closed"]
            else (p["seat"], p["role"], len(p["cards"]), p["closed"])
            for p in plays
        ]

    def open_cards(plays: list[dict[str, Any]]) -> set[str]:
        return {c for p in plays if not p["mine_closed"] for c in p["cards"]}

    assert as_everyone_sees(watched["table"]) == as_everyone_sees(seat["table"])
    assert open_cards(watched["table"]) == open_cards(seat["table"])
    if seat["last_trick"] is None:
        assert watched["last_trick"] is None
    else:
        last, seen = watched["last_trick"], seat["last_trick"]
        assert last["taker"] == seen["taker"]
        assert as_everyone_sees(last["plays"]) == as_everyone_sees(seen["plays"])
        assert open_cards(last["plays"]) == open_cards(seen["plays"])
    for play in watched["table"] + (watched["last_trick"] or {"plays": []})["plays"]:
        assert not play["mine_closed"]


# --- live ------------------------------------------------------------------------------


async def next_event(resp: Any) -> tuple[str, dict[str, Any]]:
    """The next SSE event (comments skipped)."""
    event, data = "", ""
    while True:
        line = (await resp.content.readline()).decode()
        if line == "":
            raise EOFError
        line = line.rstrip("\n")
        if line.startswith(":"):
            continue
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "" and event:
            return event, json.loads(data)


async def test_a_move_made_by_a_text_button_reaches_the_live_connection(
    storage: Backend,
) -> None:
    async with open_table(storage, 2, grace=0.05) as table:
        ann, ben = (seat_user(table, s) for s in (0, 1))
        token = await table.session(ann)
        resp = await table.client.get(f"/webapp/api/live?game={table.game.id}&token={token}")
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/event-stream")
        event, first = await asyncio.wait_for(next_event(resp), 30)
        assert event == "state" and first["me"] == 0
        assert table.webapp.hub.connections == 1
        assert table.webapp.hub.in_app(table.game.id, ann)
        mover = seat_user(table, first["turn"])
        await table.session(mover)
        state = await table.state(mover)
        action = state["actions"][0]
        # The tap comes through the text button's path, not the app.
        queued = max(r.id for r in await outbox_rows(table))
        await table.service.play(
            table.game.id, mover, state["version"], action["kind"], ".".join(action["cards"] or [])
        )
        event, moved = await asyncio.wait_for(next_event(resp), 30)
        assert event == "state" and moved["version"] > first["version"]
        # Ann is in the app: her hand message was not edited, nor was she pinged.
        rows = [r for r in await outbox_rows(table) if r.id > queued]
        assert rows, "the move told the group and the other player"
        assert not [r for r in rows if r.chat_id == ann], rows
        resp.close()
        # Once she leaves, her hand message is brought up to date, once.
        await asyncio.wait_for(_until(lambda: table.webapp.hub.connections == 0), 30)
        await asyncio.wait_for(_until_async(lambda: _has_hand_edit(table, ann, queued)), 30)
        assert ben != ann


async def _has_hand_edit(table: Table, user_id: int, after: int) -> bool:
    rows = await outbox_rows(table)
    return any(r.id > after and r.role == f"hand:{user_id}" for r in rows)


async def outbox_rows(table: Table) -> list[Any]:
    return list(await table.storage.pending(time.time() + 1e9, limit=100_000))


async def _until(check: Any) -> None:
    while not check():
        await asyncio.sleep(0.02)


async def _until_async(check: Any) -> None:
    while not await check():
        await asyncio.sleep(0.02)


async def test_on_postgresql_a_move_through_one_instance_reaches_a_live_connection_on_another(
    pg_url: str,
) -> None:
    """Two instances on one database: Ann's app is connected to instance B; a move made
    through instance A (a text tap there) reaches her through PostgreSQL's NOTIFY from
    the move's transaction (migration 8), with no commit on B."""
    first, second = await open_storage(pg_url), await open_storage(pg_url)
    try:
        services = [
            GameService(s, bot_username="cards_bot", computer_pause=0, default_language="en")
            for s in (first, second)
        ]
        users = [UserInfo(10, "Ann"), UserInfo(11, "Ben")]
        for user in users:
            await first.upsert_user(user.id, user.name, None, None)
            await first.set_user_started(user.id, True)
        game = await services[0].new_game(CHAT, "Group", None, users[0])
        await services[0].join(game.id, users[1])
        game = await services[0].start(game.id, users[0].id)
        webapp = WebApp(services[1], bot_token=TOKEN, max_age=MAX_AGE)
        await second.listen_games(webapp.hub.changed, webapp.hub.heard)
        mover_app = WebApp(services[0], bot_token=TOKEN, max_age=MAX_AGE)  # instance A
        await first.listen_games(mover_app.hub.changed, mover_app.hub.heard)
        app = webapp.add_routes(web.Application())
        async with TestClient(TestServer(app)) as client:
            table = Table(services[1], second, client, Clock(), webapp, game, users)
            token = await table.session(10)
            resp = await client.get(f"/webapp/api/live?game={game.id}&token={token}")
            event, state = await asyncio.wait_for(next_event(resp), 30)
            # Instance A is told Ann is in the app (through B): it spares her hand's edits.
            await asyncio.wait_for(_until(lambda: mover_app.hub.in_app(game.id, 10)), 30)
            queued = max(r.id for r in await outbox_rows(table))
            for _ in range(3):  # a few moves, whoever's turn, all through instance A
                mover = seat_user(table, state["turn"])
                await table.session(mover)
                mine = await table.state(mover)
                action = mine["actions"][0]
                codes = ".".join(action["cards"] or [])
                await services[0].play(game.id, mover, mine["version"], action["kind"], codes)
                event, moved = await asyncio.wait_for(next_event(resp), 30)
                assert event == "state" and moved["version"] > state["version"]
                state = moved
            rows = [r for r in await outbox_rows(table) if r.id > queued]
            # (A "delete" of a ping A cannot know is down costs nothing when none is up.)
            assert rows and not [r for r in rows if r.chat_id == 10 and r.method != "delete"]
            resp.close()
            # She leaves: A hears it, and B (holding her connection) brings her hand up
            # to date once.
            await asyncio.wait_for(_until(lambda: not mover_app.hub.in_app(game.id, 10)), 30)
            await asyncio.wait_for(_until_async(lambda: _has_hand_edit(table, 10, queued)), 30)
    finally:
        await first.close()
        await second.close()
