"""A fake Telegram Bot API server (aiohttp on 127.0.0.1) that keeps real state."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import itertools
import json
import time
import types
import typing
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import aiogram.methods as aiogram_methods
from aiogram.methods.base import TelegramMethod
from aiogram.types import Update
from aiohttp import web
from pydantic import ValidationError

from .entities import CallbackAnswer, FakeChat, FakeMessage, PendingCallback
from .limits import (
    Faults,
    FloodViolation,
    InjectedFault,
    OneOffFault,
    RateLimiter,
    RateLimits,
    retry_after_seconds,
)
from .text import ApiError, bad_request, check_reply_markup, render_text
from .users import FakeUser
from .webhook import WebhookDelivery

QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
MESSAGE_OPS = frozenset(
    {
        "sendmessage",
        "sendphoto",
        "senddocument",
        "editmessagetext",
        "editmessagereplymarkup",
        "deletemessage",
    }
)
# Files uploaded with the request being handled (multipart field name -> name, bytes).
_UPLOADS: contextvars.ContextVar[dict[str, tuple[str, bytes]]] = contextvars.ContextVar("uploads")


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


Handler = Callable[[dict[str, Any]], Awaitable[Any]]
Predicate = Callable[[], Any]


class FakeTelegram:
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
        self.validate_updates = True

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
        # Webhook mode (tests/fake_telegram/webhook.py): the secret setWebhook gave, the
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
        self._handlers: dict[str, Handler] = {
            "getme": self._get_me,
            "logout": self._true,
            "close": self._true,
            "deletewebhook": self._delete_webhook,
            "setwebhook": self._set_webhook,
            "getwebhookinfo": self._get_webhook_info,
            "getupdates": self._get_updates,
            "sendmessage": self._send_message,
            "sendphoto": self._send_photo,
            "senddocument": self._send_document,
            "editmessagetext": self._edit_message_text,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "deletemessage": self._delete_message,
            "deletemessages": self._delete_messages,
            "answercallbackquery": self._answer_callback_query,
            "setmycommands": self._set_my_commands,
            "deletemycommands": self._delete_my_commands,
            "getmycommands": self._get_my_commands,
            "pinchatmessage": self._pin_chat_message,
            "unpinchatmessage": self._unpin_chat_message,
            "unpinallchatmessages": self._unpin_all,
            "getchat": self._get_chat,
            "getchatmember": self._get_chat_member,
            "getchatmembercount": self._get_chat_member_count,
            "sendchataction": self._send_chat_action,
            "setmydescription": self._store_setting,
            "setmyshortdescription": self._store_setting,
            "setmyname": self._store_setting,
            "setchatmenubutton": self._store_setting,
            "setmydefaultadministratorrights": self._store_setting,
        }
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

    # --- world building -------------------------------------------------------------

    def add_user(
        self,
        first_name: str,
        username: str | None = None,
        language_code: str | None = "en",
        *,
        last_name: str | None = None,
        user_id: int | None = None,
        started: bool = False,
    ) -> FakeUser:
        user = FakeUser(
            self,
            user_id if user_id is not None else next(self._user_ids),
            first_name,
            last_name,
            username,
            language_code,
            started=started,
        )
        self.users[user.id] = user
        return user

    def add_group(
        self,
        title: str,
        members: Iterable[FakeUser] = (),
        *,
        supergroup: bool = False,
        forum: bool = False,
        username: str | None = None,
    ) -> FakeChat:
        if forum:
            supergroup = True
        chat_id = -next(self._supergroup_ids) if supergroup else -next(self._group_ids)
        chat = FakeChat(
            self,
            chat_id,
            "supergroup" if supergroup else "group",
            title=title,
            username=username,
            is_forum=forum,
            members=list(members),
        )
        self.chats[chat.id] = chat
        return chat

    def _private_chat(self, user: FakeUser) -> FakeChat:
        chat = self.chats.get(user.id)
        if chat is None:
            chat = FakeChat(self, user.id, "private", user=user)
            self.chats[user.id] = chat
        return chat

    def chat(self, chat_id: int) -> FakeChat:
        return self.chats[chat_id]

    def bot_user_api(self) -> dict[str, Any]:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_name,
            "username": self.bot_username,
        }

    def add_member(self, group: FakeChat, user: FakeUser) -> FakeMessage:
        """``user`` joins ``group``; the bot gets the new_chat_members service message."""
        if user not in group.members:
            group.members.append(user)
        msg = group._add_message(from_user=user, service={"new_chat_members": [user.to_api()]})
        self._push_update("message", msg.to_api())
        return msg

    def remove_member(self, group: FakeChat, user: FakeUser) -> FakeMessage:
        if user in group.members:
            group.members.remove(user)
        msg = group._add_message(from_user=user, service={"left_chat_member": user.to_api()})
        self._push_update("message", msg.to_api())
        return msg

    def block(self, user: FakeUser) -> None:
        """The user blocks the bot: further sends to their DM get 403."""
        if not user.blocked:
            user.blocked = True
            self._my_chat_member(user.dm, user, "member", "kicked")

    def unblock(self, user: FakeUser) -> None:
        if user.blocked:
            user.blocked = False
            self._my_chat_member(user.dm, user, "kicked", "member")

    def kick_bot(self, group: FakeChat) -> None:
        """Remove the bot from a group: sends there get 403."""
        group.bot_is_member = False
        by = group.members[0] if group.members else None
        if by is not None:
            self._my_chat_member(group, by, "member", "left")

    def _my_chat_member(self, chat: FakeChat, by: FakeUser, old: str, new: str) -> None:
        def member(status: str) -> dict[str, Any]:
            data: dict[str, Any] = {"status": status, "user": self.bot_user_api()}
            if status == "kicked":
                data["until_date"] = 0
            return data

        self._push_update(
            "my_chat_member",
            {
                "chat": chat.to_api(),
                "from": by.to_api(),
                "date": int(time.time()),
                "old_chat_member": member(old),
                "new_chat_member": member(new),
            },
        )

    def migrate(self, group: FakeChat, by: FakeUser | None = None) -> FakeChat:
        """Upgrade a basic group to a supergroup with a new id, as Telegram does."""
        if group.type != "group" or group.migrated_to is not None:
            raise AssertionError(f"{group!r} is not a basic group that can be migrated")
        new = FakeChat(
            self,
            -next(self._supergroup_ids),
            "supergroup",
            title=group.title,
            members=list(group.members),
        )
        self.chats[new.id] = new
        group.migrated_to = new
        new.migrated_from = group
        actor = by or (group.members[0] if group.members else None)
        old_msg = group._add_message(from_user=actor, service={"migrate_to_chat_id": new.id})
        new_msg = new._add_message(from_user=actor, service={"migrate_from_chat_id": group.id})
        self._push_update("message", old_msg.to_api())
        self._push_update("message", new_msg.to_api())
        return new

    # --- faults ---------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        status: int = 500,
        description: str | None = None,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        chat_id: int | None = None,
        times: int = 1,
        after_effect: bool = False,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` (optionally only for ``chat_id``)
        with ``status`` without any effect, or (``after_effect``) after doing what they
        ask: Telegram accepted the call, and the bot never learnt it (a lost reply)."""
        self._one_off.append(
            OneOffFault(
                method,
                status,
                description,
                retry_after,
                migrate_to_chat_id,
                chat_id,
                times,
                after_effect,
            )
        )

    def reset_limits(self) -> None:
        self._limiter = RateLimiter(self.limits)

    # --- updates --------------------------------------------------------------------

    def _push_update(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        update = {"update_id": next(self._update_ids), kind: payload}
        if self.validate_updates:
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

    def _user_sends(
        self,
        user: FakeUser,
        chat: FakeChat,
        text: str,
        thread_id: int | None,
        reply_to: FakeMessage | None,
    ) -> FakeMessage:
        if chat.is_private:
            if chat.user is not user:
                raise AssertionError(f"{user!r} cannot write in another user's DM")
            if user.blocked:
                raise AssertionError(f"{user!r} blocked the bot; call start_bot() to unblock")
            if not user.started:
                if not text.startswith("/start"):
                    raise AssertionError(f"{user!r} must press Start first (start_bot())")
                user.started = True
        else:
            if user not in chat.members:
                raise AssertionError(f"{user!r} is not a member of {chat!r}")
            if chat.migrated_to is not None:
                raise AssertionError(f"{chat!r} was migrated to {chat.migrated_to!r}")
            if chat.is_forum and thread_id is not None and thread_id not in chat.topics:
                raise AssertionError(f"no topic {thread_id} in {chat!r}")
        entities: list[dict[str, Any]] = []
        addressed_to_us = True
        if text.startswith("/"):
            token = text.split(maxsplit=1)[0]
            entities.append({"type": "bot_command", "offset": 0, "length": len(token)})
            if "@" in token:
                addressed_to_us = token.split("@", 1)[1].lower() == self.bot_username.lower()
        msg = chat._add_message(
            from_user=user,
            text=text,
            entities=entities,
            message_thread_id=thread_id,
            reply_to=reply_to,
        )
        deliver = chat.is_private or not self.privacy_mode
        if not deliver:
            mention = f"@{self.bot_username}".lower() in text.lower()
            replied = reply_to is not None and reply_to.is_from_bot
            deliver = (bool(entities) and addressed_to_us) or mention or replied
        if deliver:
            self._push_update("message", msg.to_api())
        return msg

    def _create_callback(self, user: FakeUser, message: FakeMessage, data: str) -> PendingCallback:
        cid = str(next(self._callback_ids))
        payload = {
            "id": cid,
            "from": user.to_api(),
            "message": message.to_api(),
            "chat_instance": str(abs(message.chat.id) * 31 + 17),
            "data": data,
        }
        update = self._push_update("callback_query", payload)
        pending = PendingCallback(
            cid,
            user,
            message,
            data,
            time.monotonic(),
            asyncio.get_running_loop().create_future(),
            update["update_id"],
        )
        self.callbacks[cid] = pending
        return pending

    def unanswered_callbacks(self) -> list[PendingCallback]:
        return [c for c in self.callbacks.values() if not c.answered]

    # --- helpers for tests ----------------------------------------------------------

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
                _UPLOADS.set(uploads)
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
        if accepted is not None:  # done, and the bot is told it failed
            desc = accepted.description or _default_description(accepted.status, None)
            chat_key = _int_or_none(params.get("chat_id"))
            return self._serve_fault(name, params, accepted.status, desc, {}, chat_key)
        self._record(name, params, 200, None, result)
        return web.json_response({"ok": True, "result": result})

    def _draw_after_effect(self, name: str, params: dict[str, Any]) -> OneOffFault | None:
        chat_key = _int_or_none(params.get("chat_id"))
        for fault in self._one_off:
            if (
                fault.after_effect
                and fault.method.lower() == name.lower()
                and (fault.chat_id is None or fault.chat_id == chat_key)
            ):
                fault.times -= 1
                if fault.times <= 0:
                    self._one_off.remove(fault)
                return fault
        return None

    async def _draw_fault(
        self, name: str, params: dict[str, Any], request: web.Request
    ) -> web.StreamResponse | None:
        chat_id = params.get("chat_id")
        chat_key = chat_id if isinstance(chat_id, int) else _int_or_none(chat_id)
        for fault in self._one_off:
            if (
                not fault.after_effect
                and fault.method.lower() == name.lower()
                and (fault.chat_id is None or fault.chat_id == chat_key)
            ):
                fault.times -= 1
                if fault.times <= 0:
                    self._one_off.remove(fault)
                parameters: dict[str, Any] = {}
                if fault.retry_after is not None:
                    parameters["retry_after"] = fault.retry_after
                if fault.migrate_to_chat_id is not None:
                    parameters["migrate_to_chat_id"] = fault.migrate_to_chat_id
                desc = fault.description or _default_description(fault.status, fault.retry_after)
                return self._serve_fault(name, params, fault.status, desc, parameters, chat_key)
        faults = self.faults
        if not faults.applies_to(name):
            return None
        lo, hi = faults.latency
        if hi > 0:
            await asyncio.sleep(faults.rng.uniform(lo, hi))
        roll = faults.rng.random()
        if roll < faults.p_429:
            lo_r, hi_r = faults.retry_after_range
            retry = faults.rng.randint(lo_r, hi_r)
            desc = _default_description(429, retry)
            return self._serve_fault(name, params, 429, desc, {"retry_after": retry}, chat_key)
        roll -= faults.p_429
        if roll < faults.p_5xx:
            status = faults.rng.choice(faults.statuses_5xx)
            desc = _default_description(status, None)
            if faults.html_5xx:
                self._record(name, params, status, desc)
                self.injected_faults.append(
                    InjectedFault(name, status, desc, time.monotonic(), chat_key)
                )
                html = f"<html><head><title>{status} {desc}</title></head><body></body></html>"
                return web.Response(text=html, status=status, content_type="text/html")
            return self._serve_fault(name, params, status, desc, {}, chat_key)
        roll -= faults.p_5xx
        if roll < faults.p_disconnect:
            self._record(name, params, 0, "connection dropped")
            self.injected_faults.append(
                InjectedFault(name, 0, "connection dropped", time.monotonic(), chat_key)
            )
            if request.transport is not None:
                request.transport.close()
            raise asyncio.CancelledError
        return None

    def _serve_fault(
        self,
        name: str,
        params: dict[str, Any],
        status: int,
        desc: str,
        parameters: dict[str, Any],
        chat_id: int | None,
    ) -> web.Response:
        self._record(name, params, status, desc)
        self.injected_faults.append(
            InjectedFault(name, status, desc, time.monotonic(), chat_id, dict(parameters))
        )
        return self._error_response(ApiError(status, desc, parameters or None))

    # --- common checks --------------------------------------------------------------

    def _resolve_chat(self, chat_id: Any) -> FakeChat:
        cid = _int_or_none(chat_id)
        chat: FakeChat | None = None
        if cid is not None:
            chat = self.chats.get(cid)
            if chat is None and cid in self.users:
                chat = self._private_chat(self.users[cid])
        elif isinstance(chat_id, str) and chat_id.startswith("@"):
            name = chat_id[1:].lower()
            chat = next(
                (c for c in self.chats.values() if c.username and c.username.lower() == name),
                None,
            )
        if chat is None:
            raise bad_request("chat not found")
        if chat.is_private and chat.user is not None and not chat.user.started:
            if self._current_method.lower() in ("sendmessage", "sendchataction"):
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            raise bad_request("chat not found")
        return chat

    def _check_writable(self, chat: FakeChat) -> None:
        if chat.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to.id},
            )
        if chat.is_private and chat.user is not None:
            if chat.user.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
        elif not chat.bot_is_member:
            kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind}")

    def _rate_limit(self, chat: FakeChat) -> None:
        now = time.monotonic()
        self._limiter.limits = self.limits
        verdict = self._limiter.check(chat.id, chat.is_private, now)
        if verdict is not None:
            kind, wait = verdict
            retry = retry_after_seconds(wait)
            self.flood_violations.append(
                FloodViolation(self._current_method, chat.id, kind, retry, now, self.enforce_limits)
            )
            if self.enforce_limits:
                raise ApiError(
                    429, f"Too Many Requests: retry after {retry}", {"retry_after": retry}
                )
        self._limiter.admit(chat.id, chat.is_private, now)

    def _message_for_edit(self, p: dict[str, Any], not_found: str) -> FakeMessage:
        if p.get("inline_message_id"):
            raise bad_request("MESSAGE_ID_INVALID")
        if p.get("chat_id") is None or p.get("message_id") is None:
            raise bad_request("message identifier is not specified")
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        msg = chat.get_message(int(p["message_id"]))
        self._rate_limit(chat)
        if msg is None or msg.deleted or msg.service:
            raise bad_request(not_found)
        return msg

    # --- method handlers ------------------------------------------------------------

    async def _true(self, p: dict[str, Any]) -> bool:
        return True

    async def _store_setting(self, p: dict[str, Any]) -> bool:
        self.bot_settings[self._current_method] = p
        return True

    async def _get_me(self, p: dict[str, Any]) -> dict[str, Any]:
        me = self.bot_user_api()
        me.update(
            can_join_groups=True,
            can_read_all_group_messages=not self.privacy_mode,
            supports_inline_queries=False,
        )
        return me

    async def _delete_webhook(self, p: dict[str, Any]) -> bool:
        self.webhook_url = None
        await self.webhook.stop()
        if p.get("drop_pending_updates"):
            self._pending.clear()
        return True

    async def _set_webhook(self, p: dict[str, Any]) -> bool:
        self.webhook_url = str(p.get("url") or "") or None
        self.webhook_secret = p.get("secret_token") or None
        if self.webhook_url:
            self.webhook.start()
        else:
            await self.webhook.stop()
        return True

    async def _get_webhook_info(self, p: dict[str, Any]) -> dict[str, Any]:
        return {
            "url": self.webhook_url or "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }

    async def _get_updates(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use "
                "deleteWebhook to delete the webhook first",
            )
        offset = _int_or_none(p.get("offset"))
        limit = max(1, min(100, _int_or_none(p.get("limit")) or 100))
        timeout = max(0, _int_or_none(p.get("timeout")) or 0)
        if offset is not None and offset > 0:
            self._pending = [u for u in self._pending if u["update_id"] >= offset]
        elif offset is not None and offset < 0:
            self._pending = self._pending[offset:]
        self._poll_generation += 1
        generation = self._poll_generation
        await self._notify()  # wakes an older long poll, which then answers 409
        assert self._cond is not None
        deadline = time.monotonic() + timeout
        while not self._pending and not self._closing:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            async with self._cond:
                with contextlib.suppress(TimeoutError):  # (asyncio.timeout keeps a cancel)
                    async with asyncio.timeout(remaining):
                        await self._cond.wait()
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; make sure that only "
                    "one bot instance is running",
                )
        return list(self._pending[:limit])

    async def _send_message(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        thread_id = _int_or_none(p.get("message_thread_id"))
        if chat.is_forum and thread_id is not None and thread_id not in chat.topics:
            raise bad_request("message thread not found")
        if not chat.is_forum:
            thread_id = None
        self._rate_limit(chat)
        text, entities = render_text(p.get("text"), p.get("parse_mode"), p.get("entities"))
        markup = check_reply_markup(p.get("reply_markup"))
        reply_to: FakeMessage | None = None
        reply_params = p.get("reply_parameters")
        reply_id = _int_or_none(p.get("reply_to_message_id"))
        allow_without = bool(p.get("allow_sending_without_reply"))
        if isinstance(reply_params, dict):
            reply_id = _int_or_none(reply_params.get("message_id"))
            allow_without = bool(reply_params.get("allow_sending_without_reply"))
        if reply_id is not None:
            reply_to = chat.get_message(reply_id)
            if reply_to is None or reply_to.deleted:
                if not allow_without:
                    raise bad_request("message to be replied not found")
                reply_to = None
        msg = chat._add_message(
            from_user=None,
            text=text,
            entities=entities,
            reply_markup=markup,
            message_thread_id=thread_id,
            reply_to=reply_to,
        )
        return msg.to_api()

    def _upload(self, p: dict[str, Any], field: str) -> tuple[str, bytes]:
        value = p.get(field)
        uploads = _UPLOADS.get({})
        if isinstance(value, str) and value.startswith("attach://"):
            value = value[len("attach://") :]
            found = uploads.get(value)
        else:
            found = uploads.get(field)
        if found is None:
            raise bad_request(f"{field}: only uploaded files are supported by FakeTelegram")
        return found

    async def _send_media(self, p: dict[str, Any], field: str) -> dict[str, Any]:
        """sendPhoto / sendDocument with an uploaded file; the caption is kept as the
        message's ``text`` (what people read) and sent back as ``caption``."""
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        name, content = self._upload(p, field)
        thread_id = _int_or_none(p.get("message_thread_id"))
        if chat.is_forum and thread_id is not None and thread_id not in chat.topics:
            raise bad_request("message thread not found")
        if not chat.is_forum:
            thread_id = None
        caption = p.get("caption")
        if field == "photo" and len(content) > 10 * 1024 * 1024:
            raise bad_request("PHOTO_INVALID_DIMENSIONS")
        self._rate_limit(chat)
        text: str | None = None
        entities: list[dict[str, Any]] = []
        if caption:
            text, entities = render_text(caption, p.get("parse_mode"), p.get("caption_entities"))
            if len(text) > 1024:
                raise bad_request("message caption is too long")
        msg = chat._add_message(
            from_user=None,
            text=text,
            entities=entities,
            reply_markup=check_reply_markup(p.get("reply_markup")),
            message_thread_id=thread_id,
            photo=content if field == "photo" else None,
            document=(name, content) if field == "document" else None,
        )
        return msg.to_api()

    async def _send_photo(self, p: dict[str, Any]) -> dict[str, Any]:
        return await self._send_media(p, "photo")

    async def _send_document(self, p: dict[str, Any]) -> dict[str, Any]:
        return await self._send_media(p, "document")

    def _apply_edit(
        self, msg: FakeMessage, text: str | None, entities: list[dict[str, Any]], markup: Any
    ) -> dict[str, Any]:
        new_text = msg.text if text is None else text
        new_entities = msg.entities if text is None else entities
        same = (
            new_text == msg.text
            and [(e.get("type"), e.get("offset"), e.get("length")) for e in new_entities]
            == [(e.get("type"), e.get("offset"), e.get("length")) for e in msg.entities]
            and markup == msg.reply_markup
        )
        if same:
            raise bad_request(NOT_MODIFIED[len("Bad Request: ") :])
        msg.text = new_text
        msg.entities = list(new_entities)
        msg.reply_markup = markup
        msg.edit_date = int(time.time())
        msg._remember()
        return msg.to_api()

    async def _edit_message_text(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._message_for_edit(p, "message to edit not found")
        if not msg.is_from_bot:
            raise bad_request("message can't be edited")
        if msg.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities = render_text(
            p.get("text"),
            p.get("parse_mode"),
            p.get("entities"),
            empty_error="text must be non-empty",
        )
        markup = check_reply_markup(p.get("reply_markup"))
        return self._apply_edit(msg, text, entities, markup)

    async def _edit_message_reply_markup(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._message_for_edit(p, "message to edit not found")
        if not msg.is_from_bot:
            raise bad_request("message can't be edited")
        markup = check_reply_markup(p.get("reply_markup"))
        return self._apply_edit(msg, None, [], markup)

    async def _delete_message(self, p: dict[str, Any]) -> bool:
        msg = self._message_for_edit(p, "message to delete not found")
        msg.deleted = True
        msg.pinned = False
        return True

    async def _delete_messages(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        ids = p.get("message_ids") or []
        if not 1 <= len(ids) <= 100:
            raise bad_request("message_ids must be 1-100 identifiers")
        self._rate_limit(chat)
        for mid in ids:
            msg = chat.get_message(int(mid))
            if msg is not None:
                msg.deleted = True
        return True

    async def _answer_callback_query(self, p: dict[str, Any]) -> bool:
        query = self.callbacks.get(str(p.get("callback_query_id")))
        if (
            query is None
            or query.answered
            or time.monotonic() - query.created > self.callback_answer_timeout
        ):
            raise bad_request(QUERY_TOO_OLD[len("Bad Request: ") :])
        text = p.get("text")
        if isinstance(text, str) and len(text) > 200:
            raise bad_request("MESSAGE_TOO_LONG")
        url = p.get("url")
        if url is not None and f"t.me/{self.bot_username.lower()}?start=" not in str(url).lower():
            raise bad_request("URL_INVALID")
        answer = CallbackAnswer(
            text if isinstance(text, str) else None,
            bool(p.get("show_alert")),
            str(url) if url is not None else None,
            _int_or_none(p.get("cache_time")),
        )
        if answer.text:
            query.user.seen_answers.append(answer.text)
        if not query.future.done():
            query.future.set_result(answer)
        return True

    @staticmethod
    def _scope_key(scope: Any) -> str:
        if not isinstance(scope, dict):
            return "default"
        key = str(scope.get("type", "default"))
        if "chat_id" in scope:
            key += f":{scope['chat_id']}"
        if "user_id" in scope:
            key += f":{scope['user_id']}"
        return key

    async def _set_my_commands(self, p: dict[str, Any]) -> bool:
        commands = p.get("commands") or []
        if len(commands) > 100:
            raise bad_request("too many commands")
        for cmd in commands:
            name = str(cmd.get("command", ""))
            if not (1 <= len(name) <= 32) or not all(
                c.islower() or c.isdigit() or c == "_" for c in name
            ):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(cmd.get("description", ""))) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        lang = str(p.get("language_code") or "")
        if lang and (len(lang) != 2 or not lang.isalpha()):
            raise bad_request("LANG_CODE_INVALID")
        key = (self._scope_key(p.get("scope")), lang)
        self.commands[key] = [
            {"command": str(c["command"]), "description": str(c["description"])} for c in commands
        ]
        return True

    async def _delete_my_commands(self, p: dict[str, Any]) -> bool:
        self.commands.pop(
            (self._scope_key(p.get("scope")), str(p.get("language_code") or "")), None
        )
        return True

    async def _get_my_commands(self, p: dict[str, Any]) -> list[dict[str, str]]:
        return self.get_commands(self._scope_key(p.get("scope")), str(p.get("language_code") or ""))

    async def _pin_chat_message(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        msg = chat.get_message(int(p["message_id"]))
        if msg is None or msg.deleted:
            raise bad_request("message to pin not found")
        msg.pinned = True
        if chat.is_group:
            chat._add_message(
                from_user=None, service={"pinned_message": msg.to_api(with_reply=False)}
            )
        return True

    async def _unpin_chat_message(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        mid = _int_or_none(p.get("message_id"))
        pinned = chat.pinned_messages
        target = [m for m in pinned if m.message_id == mid] if mid is not None else pinned[-1:]
        if mid is not None and not target:
            raise bad_request("message to unpin not found")
        for m in target:
            m.pinned = False
        return True

    async def _unpin_all(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        for m in chat.pinned_messages:
            m.pinned = False
        return True

    async def _get_chat(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._resolve_chat(p["chat_id"])
        info = chat.to_api()
        info.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        if chat.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to.id},
            )
        return info

    async def _get_chat_member(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._resolve_chat(p["chat_id"])
        uid = int(p["user_id"])
        if uid == self.bot_id:
            return {
                "status": "member" if chat.bot_is_member else "left",
                "user": self.bot_user_api(),
            }
        user = self.users.get(uid)
        if user is None:
            raise bad_request("user not found")
        if chat.is_private and chat.user is user:
            return {"status": "creator", "user": user.to_api(), "is_anonymous": False}
        if user in chat.members and uid in chat.admins:
            return {
                "status": "administrator",
                "user": user.to_api(),
                **{right: True for right in _ADMIN_RIGHTS},
                "can_be_edited": False,
                "is_anonymous": False,
            }
        in_chat = user in chat.members
        return {"status": "member" if in_chat else "left", "user": user.to_api()}

    async def _get_chat_member_count(self, p: dict[str, Any]) -> int:
        chat = self._resolve_chat(p["chat_id"])
        return 2 if chat.is_private else len(chat.members) + 1

    async def _send_chat_action(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        return True


_ADMIN_RIGHTS = (
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_promote_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
    "can_send_welcome_messages",
)


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _default_description(status: int, retry_after: int | None) -> str:
    if status == 429:
        return f"Too Many Requests: retry after {retry_after or 1}"
    return {
        400: "Bad Request",
        401: "Unauthorized",
        403: "Forbidden",
        404: "Not Found",
        409: "Conflict",
        500: "Internal Server Error",
        502: "Bad Gateway",
        503: "Service Unavailable",
        504: "Gateway Timeout",
    }.get(status, "Error")


def _describe_callable(fn: Callable[..., Any]) -> str:
    try:
        source = inspect.getsource(fn).strip()
    except (OSError, TypeError):
        return repr(fn)
    return source[:300]
