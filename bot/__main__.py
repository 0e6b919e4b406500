"""``python -m bot``: start the bot by long polling."""

from __future__ import annotations

import asyncio
import logging
import sys

from aiogram.exceptions import TelegramNetworkError, TelegramUnauthorizedError

from bot.app import App
from bot.config import ConfigError, load_settings
from storage import StorageError


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 1
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        asyncio.run(App(settings).run())
    except TelegramUnauthorizedError:
        print("config error: BOT_TOKEN was refused by Telegram (check the token)", file=sys.stderr)
        return 1
    except TelegramNetworkError as exc:
        print(f"cannot reach TELEGRAM_API_URL: {exc.message}", file=sys.stderr)
        return 1
    except StorageError as exc:
        print(f"database error ({settings.database_path}): {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
