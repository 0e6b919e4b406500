"""Updates as Telegram sends them, read one at a time.

Telegram adds fields and update kinds over time, and aiogram's models lag behind or differ
(a ``kicked`` chat member without ``until_date`` failed a whole ``getUpdates`` batch, and
the bot fetched the same batch again and again). So each update is read on its own: one
that does not parse is skipped, counted and logged by id and kind, and the updates around
it are served. Nothing of an update's content is logged: it carries users' names and texts.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final

from aiogram import Bot
from aiogram.exceptions import ClientDecodeError, TelegramAPIError, TelegramNetworkError
from aiogram.methods import TelegramMethod
from aiogram.types import Update
from pydantic import ValidationError

from bot import metrics

log = logging.getLogger(__name__)

KINDS: Final = frozenset(Update.model_fields) - {"update_id"}
_NAME = re.compile(r"[A-Za-z0-9_\-\[\].,]{1,64}")  # a field name or a model's, not a user's value
_LOCATIONS_SHOWN = 3


class ReadUpdates(TelegramMethod[list[Any]]):
    """getUpdates, its updates left as JSON for :func:`parse` to read one by one."""

    __returning__ = list[Any]
    __api_method__ = "getUpdates"

    offset: int | None = None
    timeout: int | None = None
    allowed_updates: list[str] | None = None


def update_id(raw: Any) -> int | None:
    value = raw.get("update_id") if isinstance(raw, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse(raw: Any, bot: Bot) -> Update | None:
    """The update, or None (logged and counted) when it does not parse."""
    try:
        return Update.model_validate(raw, context={"bot": bot})
    except ValidationError as exc:
        kind = _kind(raw)
        metrics.UPDATES_UNREADABLE.labels(kind if kind in KINDS else "other").inc()
        log.warning(
            "update %s (%s) skipped: it does not parse (%s)",
            update_id(raw),
            kind,
            describe(exc),
        )
        return None


def describe(exc: BaseException) -> str:
    """One line on a failed call or parse, without the payload: aiogram's own messages
    quote the whole answer (a getUpdates batch: users' messages and names), pydantic's the
    values it refused."""
    if isinstance(exc, ValidationError):
        where = {f"{_path(error['loc'])}: {error['type']}" for error in exc.errors()}
        shown = sorted(where)[:_LOCATIONS_SHOWN]
        more = f" and {len(where) - len(shown)} more" if len(where) > len(shown) else ""
        return f"{', '.join(shown)}{more}"
    if isinstance(exc, ClientDecodeError):  # e.g. a proxy's HTML error page
        return f"an answer that is not the Bot API's ({type(exc.original).__name__})"
    if isinstance(exc, TelegramNetworkError):
        return f"network: {exc.message}"
    if isinstance(exc, TelegramAPIError):
        return f"{type(exc).__name__}: {exc.message}"
    return type(exc).__name__


def _kind(raw: Any) -> str:
    if not isinstance(raw, dict):
        return "not an object"
    names = [key for key in raw if key != "update_id"]
    return ",".join(_safe(name) for name in names) or "none"


def _path(loc: tuple[int | str, ...]) -> str:
    return ".".join(_safe(part) for part in loc)


def _safe(part: object) -> str:
    text = str(part)
    return text if _NAME.fullmatch(text) else "?"
