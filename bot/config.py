"""Settings from the environment and `.env` (pydantic-settings)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from storage import parse_database_url

_TOKEN = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{5,}$")


class ConfigError(Exception):
    """A setting is missing or malformed; the message names the key and says what is wrong."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: SecretStr
    database_path: Path = Path("burkozel.sqlite3")
    telegram_api_url: str = "https://api.telegram.org"
    default_language: Literal["ru", "en"] = "ru"
    turn_timeout_seconds: float = Field(default=90, ge=2, le=86400)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    # Auto-played turns in a row after which a player is marked away (and then stood in
    # for at once, so the others do not wait out their timer every turn).
    away_after_autoplays: int = Field(default=2, ge=1, le=20)
    # A lobby nobody starts is closed after this many seconds.
    lobby_timeout_seconds: float = Field(default=3600, ge=10)
    # Who plays for a player marked away until they tap again: a computer player of this
    # level, or "off" for the cautious safe move only.
    away_stand_in: Literal["off", "easy", "normal", "hard"] = "normal"
    # Pause before a computer player moves, so the table reads naturally.
    computer_pause_seconds: float = Field(default=1.2, ge=0, le=30)
    # Running at scale (README): sqlite:PATH or postgresql://…; unset means DATABASE_PATH.
    database_url: str | None = None
    # Webhook mode when set: the public https URL Telegram posts updates to.
    webhook_url: str | None = None
    webhook_listen: str = "0.0.0.0:8080"
    webhook_secret: SecretStr | None = None
    # host:port for /healthz and /metrics in polling mode (webhook mode serves them itself).
    metrics_listen: str | None = None
    # The Mini App (docs/webapp-api.md): the public https base where this
    # process's web server is reachable (unset: no «Open table» button); where it listens
    # in polling mode (webhook mode serves it on WEBHOOK_LISTEN); how old a launch's
    # signed initData may be.
    webapp_url: str | None = None
    webapp_listen: str = "0.0.0.0:8081"
    webapp_max_age: int = Field(default=86400, ge=60, le=7 * 86400)
    # The group's table links to the Mini App by the bot's direct link: "main" for the
    # bot's Main Mini App, else the short name of a named app (both set up in @BotFather
    # with the URL {WEBAPP_URL}/webapp/). Unset (or no WEBAPP_URL): no «🃏 Table» button.
    webapp_link: str | None = None

    @property
    def storage_url(self) -> str:
        return self.database_url or f"sqlite:{self.database_path}"

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        parse_database_url(value)  # its ValueError names what is wrong
        return value.strip()

    @field_validator("webhook_url")
    @classmethod
    def _webhook_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        if not re.match(r"^https?://[^\s/]+", value.strip()):
            raise ValueError("must be the public https URL Telegram posts updates to")
        return value.strip()

    @field_validator("webapp_url")
    @classmethod
    def _webapp_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        # (http only to this machine: Telegram opens web_app buttons over https only)
        if not re.match(
            r"^(https://[^\s/]+|http://(127\.0\.0\.1|localhost)(:\d+)?)(/\S*)?$", value.strip()
        ):
            raise ValueError("must be the public https base of the bot's web server")
        return value.strip().rstrip("/")

    @field_validator("webapp_link")
    @classmethod
    def _webapp_link(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        # (BotFather's short names: 3-30 letters, digits and underscores)
        if value != "main" and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", value):
            raise ValueError(
                "must be main (the bot's Main Mini App) or the short name of the bot's "
                "named Mini App (3-30 letters, digits, _), as set up in @BotFather"
            )
        return value

    @field_validator("webhook_listen", "metrics_listen", "webapp_listen")
    @classmethod
    def _listen(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        split_listen(value)
        return value.strip()

    @field_validator("webhook_secret")
    @classmethod
    def _secret(cls, value: SecretStr | None) -> SecretStr | None:
        if value is None or not value.get_secret_value():
            return None
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", value.get_secret_value()):
            raise ValueError("must be 1-256 characters: letters, digits, _ and -")
        return value

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> Settings:
        if self.webhook_url and self.webhook_secret is None:
            raise ValueError(
                "WEBHOOK_SECRET is not set: webhook mode needs it (WEBHOOK_URL is set)"
            )
        return self

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr) -> SecretStr:
        if not _TOKEN.match(value.get_secret_value()):
            raise ValueError("must look like 123456789:ABC-def (the token from @BotFather)")
        return value

    @field_validator("telegram_api_url")
    @classmethod
    def _url_shape(cls, value: str) -> str:
        if not re.match(r"^https?://[^\s/]+", value):
            raise ValueError("must be an http(s) URL such as https://api.telegram.org")
        return value.rstrip("/")

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value


def split_listen(value: str) -> tuple[str, int]:
    """``host:port`` to its parts; ValueError says what is wrong."""
    host, sep, port = value.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError("must be host:port, e.g. 0.0.0.0:8080")
    return host.strip("[]"), int(port)


def load_settings(env_file: str | Path | None = ".env") -> Settings:
    """Read settings; raise :class:`ConfigError` with one line naming the bad key."""
    try:
        return Settings(_env_file=env_file)  # type: ignore[call-arg]
    except ValidationError as exc:
        error = exc.errors()[0]
        if not error["loc"]:  # a rule across keys: its message starts with the key
            raise ConfigError(error["msg"].removeprefix("Value error, ")) from None
        key = str(error["loc"][0]).upper()
        if error["type"] == "missing":
            raise ConfigError(f"{key} is not set (put it in .env; see .env.example)") from None
        # Never echo the value: it may be the secret token.
        reason = error["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{key} is invalid: {reason}") from None
