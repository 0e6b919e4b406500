"""The hot Bot API calls as plain JSON (CPU per tap).

Every tap is answered and most redraw a hand or the table. Through aiogram each such call
builds a pydantic method model, dumps it, form-encodes every field, and validates the
answer into ``Response[Message]`` with a whole ``Message`` model, of which the bot only
reads ``message_id``. Here the same calls go as one JSON body on aiogram's own HTTP
session and the answer is read as JSON.

A refusal is handed to aiogram's own ``check_response`` with the method model built then,
so it raises exactly the exception aiogram would (``TelegramRetryAfter``,
``TelegramBadRequest``, ``TelegramForbiddenError``, ``TelegramMigrateToChat``...) and the
callers' error handling is the same for both paths. Network failures become
``TelegramNetworkError`` as in aiogram.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import (
    AnswerCallbackQuery,
    DeleteEphemeralMessage,
    DeleteMessage,
    EditEphemeralMessageText,
    EditMessageText,
    SendMessage,
    TelegramMethod,
)
from aiogram.types import CallbackQuery
from aiohttp import ClientError, ClientTimeout

from bot.redact import describe

_MODELS: dict[str, type[TelegramMethod[Any]]] = {
    "answerCallbackQuery": AnswerCallbackQuery,
    "editMessageText": EditMessageText,
    "sendMessage": SendMessage,
    "deleteMessage": DeleteMessage,
    "editEphemeralMessageText": EditEphemeralMessageText,
    "deleteEphemeralMessage": DeleteEphemeralMessage,
}
_JSON = {"Content-Type": "application/json"}
_OK = range(HTTPStatus.OK, HTTPStatus.IM_USED + 1)


def _model(name: str, params: dict[str, Any]) -> TelegramMethod[Any]:
    """The aiogram method these params are (only built to describe a failure)."""
    try:
        return _MODELS[name].model_validate(params)
    except Exception:  # the exception still needs a method; an empty one of the kind
        return _MODELS[name].model_construct()


# A hand, a table, a ping: Telegram answers these within a second when it is well. A call
# that hangs (an outage: the connection is open and nothing comes) is given up after this
# long, not after the session's minute, so the chat it holds up moves again soon after
# Telegram does. (A send given up that Telegram did carry out is sent again: the tap path
# and the sender drop an older hand copy, see bot/handlers/play.py, bot/delivery/worker.py.)
CALL_TIMEOUT = 5.0
# A tap's answer is useless after Telegram's own deadline for it (about 15 s).
ANSWER_TIMEOUT = 5.0


def failure(exc: BaseException) -> str | None:
    """One line saying how Telegram failed, if ``exc`` is Telegram failing (out of reach, a
    5xx, a flood wait, an answer that is not the Bot API's, such as a proxy's HTML page);
    None for anything else. Never the answer's content: a page may quote the request."""
    if isinstance(
        exc, ClientDecodeError | TelegramNetworkError | TelegramServerError | TelegramRetryAfter
    ):
        return describe(exc).splitlines()[0]
    return None


async def call(
    bot: Bot, name: str, params: dict[str, Any], *, timeout: float = CALL_TIMEOUT
) -> Any:
    """POST ``params`` as JSON to method ``name``; its ``result``, or aiogram's exception.

    ``params`` hold only JSON values (keyboards as the dicts Telegram takes) and leave out
    what is unset; the bot's default parse mode is not applied here (see the helpers)."""
    session = bot.session
    if not isinstance(session, AiohttpSession):  # another session: let aiogram send it
        return await bot(_MODELS[name].model_validate(params))
    http = await session.create_session()
    url = session.api.api_url(token=bot.token, method=name)
    try:
        async with http.post(
            url,
            data=json.dumps(params),
            headers=_JSON,
            timeout=ClientTimeout(total=min(timeout, session.timeout)),
        ) as resp:
            status, raw = resp.status, await resp.text()
    except TimeoutError as exc:
        raise TelegramNetworkError(_model(name, params), "Request timeout error") from exc
    except ClientError as exc:
        message = f"{type(exc).__name__}: {exc}"
        raise TelegramNetworkError(_model(name, params), message) from exc
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if status in _OK and isinstance(data, dict) and data.get("ok") is True:
        return data.get("result")
    if not isinstance(data, dict):
        # Not the Bot API's answer (a proxy's HTML 502 page during an outage): Telegram
        # failing, as a 5xx is, not a decoding bug (aiogram would raise ClientDecodeError).
        error = TelegramServerError if status >= 500 else TelegramNetworkError
        raise error(_model(name, params), f"HTTP {status}, an answer that is not JSON")
    # A refusal (or an answer that is not JSON): aiogram raises what it always does.
    return session.check_response(bot, _model(name, params), status, raw).result


def _html(bot: Bot, params: dict[str, Any]) -> dict[str, Any]:
    mode = bot.default["parse_mode"]
    if mode is not None and "parse_mode" not in params:
        params["parse_mode"] = getattr(mode, "value", mode)  # ParseMode.HTML -> "HTML"
    return params


async def answer_callback(
    bot: Bot, query_id: str, text: str | None = None, *, show_alert: bool = False
) -> None:
    params: dict[str, Any] = {"callback_query_id": query_id}
    if text is not None:
        params["text"] = text
    if show_alert:
        params["show_alert"] = True
    await call(bot, "answerCallbackQuery", params, timeout=ANSWER_TIMEOUT)


async def answer(
    query: CallbackQuery, text: str | None = None, *, show_alert: bool = False
) -> None:
    """``query.answer(text, show_alert=...)``, as plain JSON."""
    if query.bot is None:  # a query not from a dispatcher (tests)
        await query.answer(text, show_alert=show_alert)
    else:
        await answer_callback(query.bot, query.id, text, show_alert=show_alert)


async def edit_text(
    bot: Bot, chat_id: int, message_id: int, text: str, markup: dict[str, Any] | None
) -> None:
    params: dict[str, Any] = {"chat_id": chat_id, "message_id": message_id, "text": text}
    if markup:
        params["reply_markup"] = markup
    await call(bot, "editMessageText", _html(bot, params))


async def send_text(
    bot: Bot, chat_id: int, text: str, markup: dict[str, Any] | None, **extra: Any
) -> int:
    """Send a message; its id."""
    params: dict[str, Any] = {"chat_id": chat_id, "text": text, **extra}
    if markup:
        params["reply_markup"] = markup
    result = await call(bot, "sendMessage", _html(bot, params))
    return int(result["message_id"])


async def delete(bot: Bot, chat_id: int, message_id: int) -> None:
    await call(bot, "deleteMessage", {"chat_id": chat_id, "message_id": message_id})


# --- ephemeral messages (a message in a group that one member sees) -----------------


async def send_ephemeral(
    bot: Bot,
    chat_id: int,
    receiver: int,
    text: str,
    markup: dict[str, Any] | None,
    *,
    callback_query_id: str | None = None,
    thread_id: int | None = None,
) -> int:
    """Send ``text`` to ``receiver`` alone, in group ``chat_id``; its ephemeral id (its
    ``message_id`` is 0). ``callback_query_id``: the receiver's tap it answers (a bot that
    is not an administrator may send one only within 15 s of such a tap)."""
    ephemeral: dict[str, Any] = {"receiver_user_id": receiver}
    if callback_query_id is not None:
        ephemeral["callback_query_id"] = callback_query_id
    params: dict[str, Any] = {
        "chat_id": chat_id,
        "text": text,
        "ephemeral_message_parameters": ephemeral,
    }
    if thread_id is not None:
        params["message_thread_id"] = thread_id
    if markup:
        params["reply_markup"] = markup
    result = await call(bot, "sendMessage", _html(bot, params))
    return int(result["ephemeral_message_id"])


async def edit_ephemeral(
    bot: Bot,
    chat_id: int,
    receiver: int,
    ephemeral_id: int,
    text: str,
    markup: dict[str, Any] | None,
) -> None:
    params: dict[str, Any] = {
        "chat_id": chat_id,
        "receiver_user_id": receiver,
        "ephemeral_message_id": ephemeral_id,
        "text": text,
    }
    if markup:
        params["reply_markup"] = markup
    await call(bot, "editEphemeralMessageText", _html(bot, params))


async def delete_ephemeral(bot: Bot, chat_id: int, receiver: int, ephemeral_id: int) -> None:
    params = {
        "chat_id": chat_id,
        "receiver_user_id": receiver,
        "ephemeral_message_id": ephemeral_id,
    }
    await call(bot, "deleteEphemeralMessage", params)
