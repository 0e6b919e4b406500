"""Who a Mini App request is from: Telegram's signed launch data, then our own session token.

A launch proves its user with ``initData``, which Telegram signs with the bot token
(checked by aiogram's ``safe_parse_webapp_init_data``); we refuse it once its
``auth_date`` is older than ``WEBAPP_MAX_AGE``. The user id is only ever taken from it.
It is exchanged for a short-lived token: ``user.game.expiry`` signed with HMAC-SHA256
under a key derived from the bot token, so it is bound to one user and one game, and
any change of a byte (another user, game or expiry) makes it invalid.

The group's table links to the Mini App with a start parameter naming the game
(``table_start``): anyone can type a link with any parameter, so it carries an HMAC under
a key of its own derived from the bot token, and one that does not check out is refused
(``game_of_start``). Only a parameter that checks out lets someone without a seat watch.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from dataclasses import dataclass

from aiogram.utils.web_app import safe_parse_webapp_init_data

TOKEN_SECONDS = 900  # a session token's life; the page asks for a new one before that
FUTURE_SLACK = 60.0  # an auth_date this far ahead of our clock still passes (clock skew)


class AuthError(Exception):
    """A refused credential; ``code`` is the API's error code (docs/webapp-api.md)."""

    def __init__(self, code: str, language: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.language = language


@dataclass(frozen=True, slots=True)
class Launch:
    user_id: int
    language: str | None
    auth_date: float
    start_param: str | None = None  # set when opened by a direct link (the group's table)


def check_init_data(
    bot_token: str, init_data: str, *, max_age: float, now: float | None = None
) -> Launch:
    """The user a launch's ``initData`` proves; :class:`AuthError` when it is forged,
    names no user, or is older than ``max_age`` seconds."""
    if not isinstance(init_data, str) or not init_data or len(init_data) > 8192:
        raise AuthError("bad_init_data")
    try:
        data = safe_parse_webapp_init_data(bot_token, init_data)
    except ValueError:
        raise AuthError("bad_init_data") from None
    if data.user is None:
        raise AuthError("bad_init_data")
    language = data.user.language_code
    now = time.time() if now is None else now
    issued = data.auth_date.timestamp()
    if now - issued > max_age or issued - now > FUTURE_SLACK:
        raise AuthError("expired_init_data", language)
    return Launch(data.user.id, language, issued, data.start_param or None)


def session_key(bot_token: str) -> bytes:
    """The key session tokens are signed with: derived from the bot token, never it."""
    return hmac.new(b"burkozel-webapp-session", bot_token.encode(), hashlib.sha256).digest()


# Telegram's limit for a start parameter: 1-64 characters of A-Z a-z 0-9 _ -.
_START = re.compile(r"^g([1-9][0-9]{0,18})_([A-Za-z0-9_-]{24})$")
START_MAC_BYTES = 18  # 24 base64url characters; the whole parameter stays under 46


def start_key(bot_token: str) -> bytes:
    """The key start parameters are signed with (not the session tokens' key)."""
    return hmac.new(b"burkozel-webapp-start", bot_token.encode(), hashlib.sha256).digest()


def _start_mac(key: bytes, game_id: int) -> str:
    return _b64(hmac.new(key, f"g{game_id}".encode(), hashlib.sha256).digest()[:START_MAC_BYTES])


def table_start(key: bytes, game_id: int) -> str:
    """The start parameter of a direct link to game ``game_id``'s table: ``g<id>_<mac>``."""
    return f"g{game_id}_{_start_mac(key, game_id)}"


def game_of_start(key: bytes, start_param: str) -> int:
    """The game a start parameter names; :class:`AuthError` ``bad_start`` for a parameter
    we did not make (altered, forged, truncated)."""
    match = _START.match(start_param) if len(start_param) <= 64 else None
    if match is None:
        raise AuthError("bad_start")
    game_id = int(match[1])
    if game_id >= 2**63 or not hmac.compare_digest(match[2], _start_mac(key, game_id)):
        raise AuthError("bad_start")
    return game_id


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def issue_token(
    key: bytes, user_id: int, game_id: int, expires_at: float, *, watching: bool = False
) -> str:
    """``watching``: the token of an onlooker who opened the table by its signed link
    (``user.game.expiry.w``): it lets its user see the table as the group sees it."""
    body = f"{user_id}.{game_id}.{int(expires_at)}" + (".w" if watching else "")
    mac = hmac.new(key, body.encode(), hashlib.sha256).digest()
    return f"{_b64(body.encode())}.{_b64(mac)}"


@dataclass(frozen=True, slots=True)
class Session:
    user_id: int
    game_id: int
    expires_at: int
    watching: bool = False


def check_token(key: bytes, token: str | None, *, now: float | None = None) -> Session:
    """The session a token carries; :class:`AuthError` ``bad_token`` (forged, malformed)
    or ``expired_token``."""
    if not token or len(token) > 512:
        raise AuthError("bad_token")
    body_text, _, mac_text = token.partition(".")
    try:
        body = base64.urlsafe_b64decode(body_text + "=" * (-len(body_text) % 4))
        mac = base64.urlsafe_b64decode(mac_text + "=" * (-len(mac_text) % 4))
    except (ValueError, TypeError):
        raise AuthError("bad_token") from None
    expected = hmac.new(key, body, hashlib.sha256).digest()
    if not hmac.compare_digest(mac, expected):
        raise AuthError("bad_token")
    parts = body.decode(errors="replace").split(".")
    watching = parts[3:] == ["w"]
    try:
        if len(parts) != 3 + watching:
            raise ValueError(body)
        user, game, expires = (int(part) for part in parts[:3])
    except ValueError:
        raise AuthError("bad_token") from None
    if (time.time() if now is None else now) >= expires:
        raise AuthError("expired_token")
    return Session(user, game, expires, watching)
