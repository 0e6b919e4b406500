"""Mini Apps opened by a bot's direct link, as Telegram opens them.

The bot's owner registers, in @BotFather, the bot's Main Mini App and any named ones
(a short name each) with their URLs: here ``FakeTelegram.main_mini_app`` and
``FakeTelegram.mini_apps``. A link ``https://t.me/<bot>?startapp=<param>`` opens the Main
Mini App, ``https://t.me/<bot>/<short name>?startapp=<param>`` the named one, in the chat
where it was tapped; ``<param>`` (1-64 characters of A-Z a-z 0-9 _ -) reaches the app as
``start_param`` in its launch data, which Telegram signs with the bot token (HMAC-SHA256
under HMAC("WebAppData", token)), and as ``tgWebAppStartParam`` in the URL's query.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, quote, urlencode, urlparse

if TYPE_CHECKING:
    from .entities import FakeChat
    from .users import FakeUser

START_PARAM = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class MiniAppLaunch:
    """A Mini App as the client opens it: the page's URL (the registered URL with
    ``tgWebAppStartParam`` added) and the signed ``initData`` it is handed."""

    url: str
    init_data: str
    start_param: str | None


def mini_app_of(link: str, bot_username: str) -> tuple[str | None, str | None] | None:
    """``(short name or None for the Main Mini App, start parameter)`` of a direct link
    to the bot's Mini App; None for any other link."""
    parsed = urlparse(link if "://" in link else f"https://{link}")
    if parsed.netloc.lower() not in ("t.me", "telegram.me", "www.t.me"):
        return None
    parts = [p for p in parsed.path.split("/") if p]
    if not parts or parts[0].lower() != bot_username.lower() or len(parts) > 2:
        return None
    query = parse_qs(parsed.query, keep_blank_values=True)
    if len(parts) == 1 and "startapp" not in query:
        return None  # a plain link to the bot (or a deep link with ?start=)
    start = (query.get("startapp") or [""])[0] or None
    return (parts[1] if len(parts) == 2 else None), start


def sign_launch(
    token: str,
    user: FakeUser,
    *,
    start_param: str | None,
    chat: FakeChat | None,
    auth_date: int | None = None,
) -> str:
    """``Telegram.WebApp.initData`` for ``user`` opening the app from ``chat``."""
    fields = {
        "user": json.dumps(
            {**user.to_api(), "allows_write_to_pm": True},
            separators=(",", ":"),
            ensure_ascii=False,
        ),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
    }
    if chat is not None:  # (what clients send here has been wrong at times: not to be relied on)
        fields["chat_type"] = "sender" if chat.is_private else chat.type
        fields["chat_instance"] = str(abs(hash((chat.id, user.id))))
    if start_param is not None:
        fields["start_param"] = start_param
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    key = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields, quote_via=quote)


def launch(
    token: str,
    registered: str,
    user: FakeUser,
    start_param: str | None,
    chat: FakeChat | None,
) -> MiniAppLaunch:
    if start_param is not None and not START_PARAM.fullmatch(start_param):
        raise AssertionError(
            f"startapp {start_param!r} is invalid: Telegram allows 1-64 characters A-Z a-z 0-9 _ -"
        )
    url = registered
    if start_param is not None:
        url += ("&" if "?" in url else "?") + urlencode({"tgWebAppStartParam": start_param})
    init = sign_launch(token, user, start_param=start_param, chat=chat)
    return MiniAppLaunch(url, init, start_param)
