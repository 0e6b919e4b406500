"""Who a Mini App request is from: Telegram's signed launch data, then our own session token.

A launch proves its user with ``initData``, which Telegram signs with the bot token
(checked by aiogram's ``safe_parse_webapp_init_data``); we refuse it once its
``auth_date`` is older than ``WEBAPP_MAX_AGE``. The user id is only ever taken from it.
It is exchanged for a short-lived token: ``user.game.expiry`` signed with HMAC-SHA256
under a key derived from the bot token, so it is bound to one user and one game, and
any change of a byte (another user, game or expiry) makes it invalid.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
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
    return Launch(data.user.id, language, issued)


def session_key(bot_token: str) -> bytes:
    """The key session tokens are signed with: derived from the bot token, never it."""
    return hmac.new(b"burkozel-webapp-session", bot_token.encode(), hashlib.sha256).digest()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def issue_token(key: bytes, user_id: int, game_id: int, expires_at: float) -> str:
    body = f"{user_id}.{game_id}.{int(expires_at)}"
    mac = hmac.new(key, body.encode(), hashlib.sha256).digest()
    return f"{_b64(body.encode())}.{_b64(mac)}"


@dataclass(frozen=True, slots=True)
class Session:
    user_id: int
    game_id: int
    expires_at: int


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
    try:
        user, game, expires = (int(part) for part in body.decode().split("."))
    except ValueError:
        raise AuthError("bad_token") from None
    if (time.time() if now is None else now) >= expires:
        raise AuthError("expired_token")
    return Session(user, game, expires)
