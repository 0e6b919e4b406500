"""The Mini App's HTTP side (docs/webapp-api.md): its page, its session, state, action
and live (Server-Sent Events) endpoints, on the bot's own aiohttp server.

Every request proves its user: a launch with Telegram's signed ``initData``, then the
session token it gets (bot/webapp/auth.py). Every answer is built from the viewer's
seat's engine view (bot/webapp/views.py), and every action goes through the service
path of a text button tap (``GameService.play``).

Opened from the group's table by its signed start parameter, the app gives a seated
player their seat and anyone else the onlooker's view: the public view, live over the
same stream, at no Telegram operation however many watch."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from functools import cache
from pathlib import Path
from typing import NoReturn

from aiohttp import web

from bot import metrics
from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog_keys, plain, texts
from bot.json import Json
from bot.service import GameService, LiveGame, UserError
from bot.webapp.auth import (
    TOKEN_SECONDS,
    AuthError,
    Session,
    check_init_data,
    check_token,
    game_of_start,
    issue_token,
    session_key,
    start_key,
    table_start,
)
from bot.webapp.live import Hub
from bot.webapp.views import state, watching_state
from engine import Card, CardCodeError
from storage import Seat

log = logging.getLogger(__name__)

PREFIX = "/webapp"
STATIC_DIR = Path(__file__).with_name("static")
HEARTBEAT_SECONDS = 15.0  # a comment line on an idle live connection
CHECK_SECONDS = 1.0  # how often an idle live connection checks that its client is there
MAX_BODY = 16 * 1024

# A refusal of the service (``UserError`` key) as the API's status and error code.
SERVICE_ERRORS: dict[str, tuple[int, str]] = {
    "error.no_game": (404, "no_game"),
    "error.not_seated": (403, "not_seated"),
    "error.game_over": (409, "game_over"),
    "error.stale": (409, "stale"),
    "error.conflict": (409, "conflict"),
    "error.not_your_turn": (409, "not_your_turn"),
    "error.forged": (400, "forged"),
    "error.illegal": (400, "illegal"),
    "error.not_your_card": (400, "not_your_card"),
    "error.does_not_fit": (400, "illegal"),
    "error.corrupt": (500, "corrupt"),
}
# The API's own refusals (auth.AuthError codes and the like): status, text key.
OWN_ERRORS: dict[str, int] = {
    "bad_request": 400,
    "bad_start": 400,
    "bad_init_data": 401,
    "expired_init_data": 401,
    "bad_token": 401,
    "expired_token": 401,
    "wrong_game": 403,
    "stale": 409,
}
# The text of an error code where the service's own text would not fit the app.
TEXT_OF: dict[str, str] = {
    **{code: f"webapp.error.{code}" for code in OWN_ERRORS},
    **{code: key for key, (_, code) in SERVICE_ERRORS.items()},
    "stale": "webapp.error.stale",  # (the text one promises a redrawn keyboard)
    "illegal": "error.illegal",
}

_KIND = re.compile(r"^[A-Za-z]{1,2}$")
_STATIC_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$")

PLACEHOLDER = (
    "<!doctype html><meta charset='utf-8'><title>Burkozel</title>"
    "<p>The Mini App page is not installed (bot/webapp/static/index.html).</p>"
)


class Refused(Exception):
    def __init__(self, code: str, language: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.language = language


@cache
def page_texts(language: str) -> dict[str, str]:
    """The page's strings (``webapp.*`` keys, prefix dropped; placeholders left in)."""
    t = texts(language)
    return {
        key.removeprefix("webapp."): plain(t(key))
        for key in sorted(catalog_keys(t.language))
        if key.startswith("webapp.")
    }


@cache
def texts_module() -> str:
    """``export const TEXTS = {"en": {...}, "ru": {...}};``: ``page_texts`` of each language."""
    every = {language: page_texts(language) for language in sorted(LANGUAGES)}
    return f"export const TEXTS = {json.dumps(every, ensure_ascii=False, sort_keys=True)};\n"


def _language(language: str | None) -> str:
    return language if language in LANGUAGES else DEFAULT_LANGUAGE


def refusal(code: str, language: str | None) -> web.Response:
    status = OWN_ERRORS.get(code) or next((s for s, c in SERVICE_ERRORS.values() if c == code), 400)
    message = plain(texts(_language(language))(TEXT_OF.get(code, "error.internal")))
    metrics.WEBAPP_REFUSALS.labels(error=code).inc()
    return web.json_response({"error": code, "message": message}, status=status)


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _int(value: object) -> int:
    """A JSON or query integer; ``bad_request`` otherwise."""
    if isinstance(value, bool):
        raise Refused("bad_request")
    if isinstance(value, str) and re.fullmatch(r"-?\d{1,19}", value):
        value = int(value)
    if not isinstance(value, int) or not -(2**63) < value < 2**63:
        raise Refused("bad_request")
    return value


class WebApp:
    """The Mini App's routes for one bot process (``add_routes``)."""

    def __init__(
        self,
        service: GameService,
        *,
        bot_token: str,
        max_age: float,
        hub: Hub | None = None,
        clock: Callable[[], float] = time.time,
        static_dir: Path = STATIC_DIR,
    ) -> None:
        self.service = service
        self.bot_token = bot_token
        self.max_age = max_age
        self.key = session_key(bot_token)
        self.start_key = start_key(bot_token)
        self.hub = hub or Hub()
        self.clock = clock
        self.static_dir = static_dir
        service.watchers = self.hub
        self.hub.on_leave = service.app_left
        if service.storage.shared:  # several instances: who is in the app, told to all
            self.hub.announce = service.storage.notify_presence
        metrics.WEBAPP_CONNECTIONS.set_function(lambda: self.hub.connections)

    def table_start(self, game_id: int) -> str:
        """The signed start parameter of the group's link to game ``game_id``'s table."""
        return table_start(self.start_key, game_id)

    def health(self) -> Json:
        return {"webapp": {"connections": self.hub.connections}}

    def add_routes(self, app: web.Application) -> web.Application:
        r = app.router
        r.add_get(PREFIX, self._to_index)
        r.add_get(PREFIX + "/", self.index)
        r.add_get(PREFIX + "/static/{name:.+}", self.static)
        r.add_get(PREFIX + "/texts.js", self.texts_module)
        r.add_post(PREFIX + "/api/session", self._guarded(self.session))
        r.add_get(PREFIX + "/api/state", self._guarded(self.state))
        r.add_post(PREFIX + "/api/action", self._guarded(self.action))
        r.add_get(PREFIX + "/api/live", self._guarded(self.live))
        app.on_shutdown.append(lambda _: self.hub.close())
        return app

    # --- files --------------------------------------------------------------------

    async def _to_index(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(
            PREFIX + "/" + (f"?{request.query_string}" if request.query_string else "")
        )

    async def index(self, _: web.Request) -> web.StreamResponse:
        page = self.static_dir / "index.html"
        headers = {"Cache-Control": "no-cache"}
        if not page.is_file():
            return web.Response(text=PLACEHOLDER, content_type="text/html", headers=headers)
        return web.FileResponse(page, headers=headers)

    async def texts_module(self, _: web.Request) -> web.StreamResponse:
        """The page's words in every language, as the module ``static/words.js`` imports:
        the bot's own texts, so the page keeps no copy of them."""
        return web.Response(
            text=texts_module(),
            content_type="text/javascript",
            headers={"Cache-Control": "no-cache"},
        )

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if not _STATIC_NAME.match(name) or ".." in name:
            raise web.HTTPNotFound()
        path = (self.static_dir / name).resolve()
        if not path.is_relative_to(self.static_dir.resolve()) or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-cache"})

    # --- refusals -----------------------------------------------------------------

    def _guarded(
        self, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def guarded(request: web.Request) -> web.StreamResponse:
            try:
                response: web.StreamResponse = await handler(request)
                return response
            except Refused as exc:
                return refusal(exc.code, exc.language)
            except AuthError as exc:
                return refusal(exc.code, exc.language)

        return guarded

    @staticmethod
    def _service_refusal(exc: UserError, language: str | None) -> NoReturn:
        status_code = SERVICE_ERRORS.get(exc.key)
        if status_code is None:
            log.warning("webapp: unexpected refusal %s", exc.key)
            raise Refused("bad_request", language) from None
        raise Refused(status_code[1], language) from None

    async def _json(self, request: web.Request) -> Json:
        if request.content_length is not None and request.content_length > MAX_BODY:
            raise Refused("bad_request")
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            raise Refused("bad_request") from None
        if not isinstance(body, dict):
            raise Refused("bad_request")
        return body

    def _session(self, token: str | None) -> Session:
        return check_token(self.key, token, now=self.clock())

    def _bearer(self, request: web.Request) -> Session:
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer":
            raise AuthError("bad_token")
        return self._session(token.strip())

    async def _seat(self, game_id: int, user_id: int) -> tuple[LiveGame, Seat]:
        """The game and the user's seat at it; 404 / 403 otherwise."""
        try:
            live = await self.service.live(game_id)
        except UserError as exc:
            self._service_refusal(exc, None)
        seat = live.seat_of(user_id)
        if seat is None:
            raise Refused("not_seated", live.language)
        return live, seat

    async def _view(
        self, game_id: int, user_id: int, watching: bool
    ) -> tuple[LiveGame, Seat | None]:
        """The game and the user's seat at it; ``watching`` (the user came by the group's
        signed link): None for an onlooker (a seated player always gets their seat)."""
        if not watching:
            return await self._seat(game_id, user_id)
        try:
            live = await self.service.live(game_id)
        except UserError as exc:
            self._service_refusal(exc, None)
        return live, live.seat_of(user_id)

    def _state(self, live: LiveGame, seat: Seat | None) -> Json:
        if seat is None:
            return watching_state(live)
        assert seat.user_id is not None
        selected = live.selections.get(seat.user_id, [])
        return state(live, seat.seat, selected=selected)

    # --- the API ------------------------------------------------------------------

    async def session(self, request: web.Request) -> web.StreamResponse:
        body = await self._json(request)
        init_data = body.get("init_data")
        if not isinstance(init_data, str):
            raise Refused("bad_request")
        launch = check_init_data(self.bot_token, init_data, max_age=self.max_age, now=self.clock())
        # Opened by a direct link (the group's table): the game is the one the signed start
        # parameter names, whatever the page asks; else the hand's button's ``?game=``.
        start = launch.start_param
        if start is not None:
            try:
                game_id = game_of_start(self.start_key, start)
            except AuthError as exc:
                raise AuthError(exc.code, launch.language) from None
        else:
            game_id = _int(body.get("game"))
        if not 0 < game_id < 2**63:
            raise Refused("no_game", launch.language)
        try:
            live, seat = await self._view(game_id, launch.user_id, start is not None)
        except Refused as exc:  # (no game to take a language from: the user's own)
            raise Refused(exc.code, exc.language or launch.language) from None
        expires = self.clock() + TOKEN_SECONDS
        watching = seat is None
        token = issue_token(self.key, launch.user_id, game_id, expires, watching=watching)
        metrics.WEBAPP_SESSIONS.inc()
        language = live.t.language
        return web.json_response(
            {
                "token": token,
                "expires_in": TOKEN_SECONDS,
                "game": game_id,
                "lang": language,
                "me": None if seat is None else seat.seat,
                "watching": watching,
                "texts": page_texts(language),
            }
        )

    def _game_of(self, request: web.Request, session: Session) -> int:
        game_id = _int(request.query.get("game", ""))
        if game_id != session.game_id:
            raise Refused("wrong_game")
        return game_id

    async def state(self, request: web.Request) -> web.StreamResponse:
        session = self._bearer(request)
        game_id = self._game_of(request, session)
        live, seat = await self._view(game_id, session.user_id, session.watching)
        return web.json_response(self._state(live, seat), dumps=_dumps)

    async def action(self, request: web.Request) -> web.StreamResponse:
        session = self._bearer(request)
        body = await self._json(request)
        game_id = _int(body.get("game"))
        if game_id != session.game_id:
            raise Refused("wrong_game")
        version = _int(body.get("version"))
        kind = body.get("kind")
        raw_cards = body.get("cards") or []
        if (
            not isinstance(kind, str)
            or not _KIND.match(kind)
            or not isinstance(raw_cards, list)
            or len(raw_cards) > 6
            or not all(isinstance(c, str) and len(c) <= 4 for c in raw_cards)
        ):
            raise Refused("bad_request")
        live, seat = await self._seat(game_id, session.user_id)
        language = live.language
        try:
            cards = tuple(Card.parse(c) for c in raw_cards)
        except CardCodeError:
            raise Refused("forged", language) from None
        # Checked here first (the service checks again under the game's lock) so that a
        # refusal costs no Telegram operation (a stale text tap redraws the hand).
        game = live.game
        played = live.played
        if game.status != "playing" or played is None:
            raise Refused("game_over", language)
        if not game.state_version <= version <= game.version:
            raise Refused("stale", language)
        if seat.seat not in played.actors():
            raise Refused("not_your_turn", language)
        if not all(played.in_hand(seat.seat, c) for c in cards):
            raise Refused("not_your_card", language)
        codes = ".".join(c.code() for c in cards)
        try:
            await self.service.play(game_id, session.user_id, version, kind, codes)
        except UserError as exc:
            self._service_refusal(exc, language)
        metrics.WEBAPP_ACTIONS.inc()
        live, seat = await self._seat(game_id, session.user_id)
        return web.json_response(self._state(live, seat), dumps=_dumps)

    async def live(self, request: web.Request) -> web.StreamResponse:
        session = self._session(request.query.get("token"))
        game_id = self._game_of(request, session)
        live, seat = await self._view(game_id, session.user_id, session.watching)  # 404/403
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # nginx: pass each event on at once
            }
        )
        await response.prepare(request)
        # (ConnectionResetError, RuntimeError: the client went away while written to.)
        # (An onlooker's connection only listens: being "in the app" spares a seated
        # player's hand edits and pings, and an onlooker has neither.)
        present = seat is not None
        with (
            self.hub.connection(game_id, session.user_id, live.game.version, present) as changed,
            contextlib.suppress(ConnectionResetError, RuntimeError),
        ):
            await self._stream(request, response, changed, session)
        return response

    async def _stream(
        self,
        request: web.Request,
        response: web.StreamResponse,
        changed: asyncio.Event,
        session: Session,
    ) -> None:
        sent: int | None = None
        quiet = 0.0
        while not self.hub.closing:
            changed.clear()
            live = await self.service.live(session.game_id)
            seat = live.seat_of(session.user_id)
            if seat is None and not session.watching:
                return
            if live.game.version != sent:
                sent = live.game.version
                data = _dumps(self._state(live, seat))
                await response.write(f"event: state\ndata: {data}\n\n".encode())
                quiet = 0.0
            # (A finished game's stream stays open, quiet: a closed one would only be
            # opened again by the browser's EventSource, again and again.)
            if self.clock() >= session.expires_at:
                data = _dumps({"error": "expired_token"})
                await response.write(f"event: error\ndata: {data}\n\n".encode())
                return
            while not changed.is_set() and not self.hub.closing:
                try:
                    await asyncio.wait_for(changed.wait(), CHECK_SECONDS)
                except TimeoutError:
                    transport = request.transport
                    if transport is None or transport.is_closing():
                        return
                    quiet += CHECK_SECONDS
                    if quiet >= HEARTBEAT_SECONDS:
                        await response.write(b": ping\n\n")
                        quiet = 0.0
                    if self.clock() >= session.expires_at:
                        break
