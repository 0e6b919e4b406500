"""``python -m bot``: start the bot (long polling, or webhook mode when WEBHOOK_URL is set)."""

from __future__ import annotations

import asyncio
import sys

from bot.config import ConfigError, load_settings


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 1
    # The bot itself is imported only with good settings: aiogram's types take seconds to
    # import, and a broken setting is reported at once.
    from aiogram.exceptions import TelegramNetworkError, TelegramUnauthorizedError

    from bot.app import App
    from bot.redact import configure_logging
    from storage import StorageError

    configure_logging(settings.log_level)
    try:
        asyncio.run(App(settings).run())
    except TelegramUnauthorizedError:
        print("config error: BOT_TOKEN was refused by Telegram (check the token)", file=sys.stderr)
        return 1
    except TelegramNetworkError as exc:
        print(f"cannot reach TELEGRAM_API_URL: {exc.message}", file=sys.stderr)
        return 1
    except StorageError as exc:
        key = "DATABASE_URL" if settings.database_url else "DATABASE_PATH"
        print(f"database error ({key}): {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. WEBHOOK_LISTEN / METRICS_LISTEN address in use
        key = "WEBHOOK_LISTEN" if settings.webhook_url else "METRICS_LISTEN"
        print(f"config error: {key} cannot be served: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
