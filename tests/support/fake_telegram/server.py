"""A fake Telegram Bot API server (aiohttp on 127.0.0.1) that keeps real state: its
HTTP side, the updates it holds for the bot, and what tests ask of it. What people do
is in ``world.py``, the methods it answers in ``methods.py``, injected faults in
``faults.py``."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import time
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiogram.methods as aiogram_methods
from aiogram.methods.base import TelegramMethod
from aiogram.types import Update
from aiohttp import web
from pydantic import ValidationError

from .entities import FakeChat, PendingCallback
from .faults import FaultInjection
from .limits import Faults, FloodViolation, InjectedFault, OneOffFault, RateLimiter, RateLimits
from .methods import UPLOADS, BotMethods
from .text import ApiError, bad_request
from .users import FakeUser
from .webhook import WebhookDelivery
from .world import World


def _collect_methods() -> dict[str, type[TelegramMethod[Any]]]:
    found: dict[str, type[TelegramMethod[Any]]] = {}
    for obj in vars(aiogram_methods).values():
        if (
            inspect.isclass(obj)
            and issubclass(obj, TelegramMethod)
            and obj is not TelegramMethod
            and isinstance(getattr(obj, "__api_method__", None), str)
        ):
            found[obj.__api_method__.lower()] = obj
    return found


METHODS = _collect_methods()


def _admits_str(annotation: Any) -> bool:
    if annotation is str:
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) or origin is typing.Annotated:
        return any(_admits_str(a) for a in typing.get_args(annotation))
    return False


def decode_params(cls: type[TelegramMethod[Any]], raw: dict[str, Any]) -> dict[str, Any]:
    """Undo aiogram's form encoding: JSON-decode every field whose type is not a string."""
    fields = cls.model_fields
    by_alias = {(f.alias or name): f for name, f in fields.items()}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        info = by_alias.get(key) or fields.get(key)
        if isinstance(value, str) and not (info is not None and _admits_str(info.annotation)):
            try:
                out[key] = json.loads(value)
            except ValueError:
                out[key] = value
        else:
            out[key] = value
    return out


@dataclass(frozen=True)
class RequestRecord:
    method: str
    params: dict[str, Any]
    status: int
    time: float
    description: str | None = None
    result: Any = None

    @property
    def ok(self) -> bool:
        return self.status == 200


@dataclass(frozen=True)
class InvalidRequest:
    method: str
    params: dict[str, Any]
    error: str


Predicate = Callable[[], Any]


class FakeTelegram(World, FaultInjection, BotMethods):
    """The fake Bot API. See the package docstring for the whole surface."""

    def __init__(
        self,
        token: str = "123456:TEST",
        bot_username: str = "burkozel_test_bot",
        bot_name: str = "Burkozel Test",
    ) -> None:
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_name = bot_name
        self.privacy_mode = True
        self.enforce_limits = True
        self.limits = RateLimits()
        self.faults = Faults(seed=0)
        self.callback_answer_timeout = 15.0
        # Ephemeral messages: how long after a user's tap a bot that is not an
        # administrator may send them one, whether they count against the group's limit
        # (Telegram has not said; by default the receiver's private one), and the losses
        # queued by ``lose_ephemeral`` (user id -> how many of their next ones).
        self.ephemeral_window = 15.0
        self.ephemeral_counts_in_group = False
        self._lost_ephemerals: dict[int, int] = {}
        # Users' apps send a command the bot marked is_ephemeral as an ephemeral message
        # (seen by its sender and the bot). Off by default: apps from before Bot API 10.3,
        # and a command typed in full, send a plain message.
        self.ephemeral_commands = False
        self.validate_updates = True
        # The Mini Apps the owner set up in @BotFather (miniapps.py): the Main Mini App's
        # URL, and named apps' URLs by short name.
        self.main_mini_app: str | None = None
        self.mini_apps: dict[str, str] = {}

        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.requests: list[RequestRecord] = []
        self.invalid_requests: list[InvalidRequest] = []
        self.unsupported_requests: list[RequestRecord] = []
        self.flood_violations: list[FloodViolation] = []
        self.injected_faults: list[InjectedFault] = []
        self.callbacks: dict[str, PendingCallback] = {}
        self.commands: dict[tuple[str, str], list[dict[str, str]]] = {}
        self.bot_settings: dict[str, dict[str, Any]] = {}
        self.all_updates: list[dict[str, Any]] = []
        self.webhook_url: str | None = None
        # Webhook mode (tests/support/fake_telegram/webhook.py): the secret setWebhook gave, the
        # instances' URLs updates go to in turn (None: webhook_url itself), and pacing.
        self.webhook_secret: str | None = None
        self.webhook_targets: list[str] | None = None
        self.webhook_timeout = 30.0
        self.webhook_retry_delay = 0.2
        self.webhook_max_connections = 40
        self.webhook = WebhookDelivery(self)

        self._pending: list[dict[str, Any]] = []
        self._update_ids = itertools.count(700_000_001)
        self._user_ids = itertools.count(1_000_001)
        self._group_ids = itertools.count(4_000_000_001)
        self._supergroup_ids = itertools.count(1_002_000_000_001)
        self._callback_ids = itertools.count(5_000_000_000_000_001, 7919)
        self._limiter = RateLimiter(self.limits)
        self._one_off: list[OneOffFault] = []
        self._cond: asyncio.Condition | None = None
        self._poll_generation = 0
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._handlers = self.handlers()
        self._current_method = ""

    # --- lifecycle ------------------------------------------------------------------

    async def start(self) -> FakeTelegram:
        self._cond = asyncio.Condition()
        self._closing = False
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def stop(self) -> None:
        self._closing = True
        await self.webhook.stop()
        await self._notify()
        for cb in self.callbacks.values():
            if not cb.future.done():
                cb.future.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def api_url(self) -> str:
        if not self.port:
            raise RuntimeError("FakeTelegram is not started")
        return f"http://127.0.0.1:{self.port}"

    # --- updates --------------------------------------------------------------------

    def _push_update(self, kind: str, payload: Any, *, validate: bool = True) -> dict[str, Any]:
        update = {"update_id": next(self._update_ids), kind: payload}
        if validate and self.validate_updates:
            Update.model_validate(update)
        self._pending.append(update)
        self.all_updates.append(update)
        if self._cond is not None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return update
            task = loop.create_task(self._notify())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return update

    async def _notify(self) -> None:
        self.webhook.wake()
        if self._cond is None:
            return
        async with self._cond:
            self._cond.notify_all()

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates not yet confirmed by the bot (via getUpdates offset)."""
        return list(self._pending)

    async def wait_updates_confirmed(self, timeout: float = 10.0) -> None:
        await self.wait_for(lambda: not self._pending, timeout, "all updates confirmed")

    # --- helpers for tests ----------------------------------------------------------

    def reset_limits(self) -> None:
        """Forget the requests counted against Telegram's limits so far."""
        self._limiter = RateLimiter(self.limits)

    def lose_ephemeral(self, user: FakeUser, count: int = 1) -> None:
        """The next ``count`` ephemeral messages sent to ``user`` are taken (the bot gets
        its usual answer) and never reach them, as when they are offline."""
        self._lost_ephemerals[user.id] = self._lost_ephemerals.get(user.id, 0) + count

    def requests_for(self, method: str) -> list[RequestRecord]:
        return [r for r in self.requests if r.method.lower() == method.lower()]

    def get_commands(self, scope: str = "default", language_code: str = "") -> list[dict[str, str]]:
        """Commands set for a scope key ("default", "all_private_chats",
        "all_group_chats", "chat:<id>", ...) and language ("" = all languages)."""
        return self.commands.get((scope, language_code), [])

    async def wait_for(
        self,
        predicate: Predicate,
        timeout: float = 10.0,
        description: str | None = None,
        interval: float = 0.02,
    ) -> Any:
        """Poll ``predicate`` (sync or async) until truthy; return its value, or raise
        AssertionError describing what was awaited and the recent traffic."""
        deadline = time.monotonic() + timeout
        while True:
            result = predicate()
            if inspect.isawaitable(result):
                result = await result
            if result:
                return result
            if time.monotonic() >= deadline:
                what = description or _describe_callable(predicate)
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}\n{self.describe_state()}"
                )
            await asyncio.sleep(interval)

    def describe_state(self, requests: int = 15, messages: int = 4) -> str:
        lines = ["last requests:"]
        for r in self.requests[-requests:]:
            params = {k: v for k, v in r.params.items() if k != "reply_markup"}
            desc = f" {r.description}" if r.description else ""
            lines.append(f"  {r.method} {r.status}{desc} {str(params)[:160]}")
        lines.append(f"pending updates: {len(self._pending)}")
        for chat in self.chats.values():
            if chat.all_messages:
                lines.append(chat.describe(messages))
        return "\n".join(lines)

    # --- HTTP -----------------------------------------------------------------------

    async def _not_found(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
        )

    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        params: dict[str, Any] = dict(request.query)
        if request.method == "POST" and request.can_read_body:
            if request.content_type == "application/json":
                body = await request.json()
                if isinstance(body, dict):
                    params.update(body)
            else:
                form = await request.post()
                uploads: dict[str, tuple[str, bytes]] = {}
                for key, value in form.items():
                    if isinstance(value, str):
                        params[key] = value
                    else:
                        params[key] = "<file>"
                        uploads[key] = (value.filename or key, value.file.read())
                UPLOADS.set(uploads)
        return params

    def _record(
        self,
        method: str,
        params: dict[str, Any],
        status: int,
        description: str | None = None,
        result: Any = None,
    ) -> RequestRecord:
        rec = RequestRecord(method, params, status, time.monotonic(), description, result)
        self.requests.append(rec)
        return rec

    @staticmethod
    def _error_response(err: ApiError) -> web.Response:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": err.code,
            "description": err.description,
        }
        if err.parameters:
            body["parameters"] = err.parameters
        return web.json_response(body, status=err.code)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        method_name = request.match_info["method"]
        if token != self.token:
            self._record(method_name, {}, 401, "Unauthorized")
            return self._error_response(ApiError(401, "Unauthorized"))
        try:
            raw = await self._read_params(request)
        except Exception as exc:
            err = bad_request(f"can't parse request: {exc}")
            self._record(method_name, {}, 400, err.description)
            return self._error_response(err)
        cls = METHODS.get(method_name.lower())
        if cls is None:
            self._record(method_name, raw, 404, "Not Found")
            return self._error_response(ApiError(404, "Not Found"))
        name = cls.__api_method__
        params = decode_params(cls, raw)
        try:
            cls.model_validate(params)
        except ValidationError as exc:
            self.invalid_requests.append(InvalidRequest(name, params, str(exc)))
            err = bad_request(f"invalid request: {exc.errors(include_url=False)}")
            self._record(name, params, 400, err.description)
            return self._error_response(err)

        accepted = self._draw_after_effect(name, params)
        fault = None if accepted is not None else await self._draw_fault(name, params, request)
        if fault is not None:
            return fault

        handler = self._handlers.get(name.lower())
        if handler is None:
            err = bad_request(f"method {name} is not implemented by FakeTelegram")
            rec = self._record(name, params, 400, err.description)
            self.unsupported_requests.append(rec)
            return self._error_response(err)
        self._current_method = name
        try:
            result = await handler(params)
        except ApiError as err:
            self._record(name, params, err.code, err.description)
            return self._error_response(err)
        if accepted is not None:
            return self._serve_after_effect(name, params, accepted)
        self._record(name, params, 200, None, result)
        return web.json_response({"ok": True, "result": result})


def _describe_callable(fn: Callable[..., Any]) -> str:
    try:
        source = inspect.getsource(fn).strip()
    except (OSError, TypeError):
        return repr(fn)
    return source[:300]
