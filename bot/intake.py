"""Updates as Telegram sends them, read one at a time.

Telegram adds fields and update kinds over time, and aiogram's models lag behind or differ
(a ``kicked`` chat member without ``until_date`` failed a whole ``getUpdates`` batch, and
the bot fetched the same batch again and again). So each update is read on its own: one
that does not parse is skipped, counted and logged by id and kind, and the updates around
it are served. Nothing of an update's content is logged: it carries users' names and texts.
"""

from __future__ import annotations

import logging
from typing import Any, Final

from aiogram import Bot
from aiogram.methods import TelegramMethod
from aiogram.types import Update
from pydantic import ValidationError

from bot import metrics
from bot.redact import describe, safe_name

log = logging.getLogger(__name__)

KINDS: Final = frozenset(Update.model_fields) - {"update_id"}


class ReadUpdates(TelegramMethod[list[Any]]):
    """getUpdates, its updates left as JSON for :func:`parse` to read one by one."""

    __returning__ = list[Any]
    __api_method__ = "getUpdates"

    offset: int | None = None
    limit: int | None = None
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


def _kind(raw: Any) -> str:
    if not isinstance(raw, dict):
        return "not an object"
    names = [key for key in raw if key != "update_id"]
    return ",".join(safe_name(name) for name in names) or "none"
