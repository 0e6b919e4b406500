"""Failures told without the payloads they quote.

aiogram's ``ClientDecodeError`` quotes the whole answer it could not read (a getUpdates
batch: users' private messages and names) and pydantic's ``ValidationError`` the values it
refused. Logs carry ids, kinds and where a parse failed, never what users wrote.
"""

from __future__ import annotations

import logging
import re
import traceback
from types import TracebackType
from typing import Final

from aiogram.exceptions import ClientDecodeError, TelegramAPIError, TelegramNetworkError
from pydantic import ValidationError

LOG_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_NAME = re.compile(r"[A-Za-z0-9_\-\[\].,]{1,64}")  # a field's or a model's name, not a value
_LOCATIONS_SHOWN = 3
QUOTING: Final = (ClientDecodeError, ValidationError)  # exceptions whose text quotes data

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]


def describe(exc: BaseException) -> str:
    """One line on a failed call or parse, without its payload."""
    if isinstance(exc, ValidationError):
        where = {f"{_path(error['loc'])}: {error['type']}" for error in exc.errors()}
        shown = sorted(where)[:_LOCATIONS_SHOWN]
        more = f" and {len(where) - len(shown)} more" if len(where) > len(shown) else ""
        return f"{', '.join(shown)}{more}"
    if isinstance(exc, ClientDecodeError):  # e.g. a proxy's HTML error page
        return f"an answer that is not the Bot API's ({type(exc.original).__name__})"
    if isinstance(exc, TelegramNetworkError):
        return f"network: {exc.message}"
    if isinstance(exc, TelegramAPIError):  # Telegram's own description of the refusal
        return f"{type(exc).__name__}: {exc.message}"
    return type(exc).__name__


def safe_name(part: object) -> str:
    """``part`` if it reads as a name (a field, a kind, a model), else ``?``."""
    text = str(part)
    return text if _NAME.fullmatch(text) else "?"


def _path(loc: tuple[int | str, ...]) -> str:
    return ".".join(safe_name(part) for part in loc) or "top level"


class RedactingFormatter(logging.Formatter):
    """Tracebacks as usual, but an exception that quotes data is told by :func:`describe`
    (whoever logged it: the bot, aiogram or aiohttp)."""

    def formatException(self, ei: ExcInfo) -> str:
        exc = ei[1]
        chain: list[BaseException] = []
        while exc is not None and exc not in chain:
            chain.append(exc)
            exc = exc.__cause__ or exc.__context__
        if not any(isinstance(e, QUOTING) for e in chain):
            return super().formatException(ei)
        parts = []
        for e in reversed(chain):  # the oldest first, as Python prints a chain
            told = (
                f"{type(e).__name__}: {describe(e)}\n"
                if isinstance(e, QUOTING)
                else "".join(traceback.format_exception_only(e))
            )
            parts.append("".join(traceback.format_tb(e.__traceback__)) + told)
        return (
            "Traceback (most recent call last):\n" + "\nwhile handling it:\n".join(parts).rstrip()
        )


def configure_logging(level: str) -> None:
    logging.basicConfig(level=level, format=LOG_FORMAT)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(RedactingFormatter(LOG_FORMAT))
