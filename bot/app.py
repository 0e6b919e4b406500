"""Wiring: storage, bot session, dispatcher, delivery worker and timers."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.methods.base import Response
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeDefault,
    Message,
    Update,
    User,
)

from bot.attachments import Attachments
from bot.config import Settings
from bot.delivery import DeliveryWorker, Limits
from bot.handlers import build_router
from bot.handlers.stats import STATS_GROUP_COMMANDS, STATS_PRIVATE_COMMANDS
from bot.i18n import LANGUAGES, texts
from bot.service import GameService
from storage import Storage

log = logging.getLogger(__name__)

GROUP_COMMANDS = (
    "newgame",
    "join",
    "addbot",
    "leave",
    "score",
    "cancel",
    "rules",
    "language",
    "help",
    *STATS_GROUP_COMMANDS,
)
PRIVATE_COMMANDS = ("start", "rules", "help", *STATS_PRIVATE_COMMANDS)
TICK_SECONDS = 0.5


# aiogram parses every API answer as ``Response[T]``. pydantic caches such generic classes
# only weakly, so after a garbage collection each is built again, ~5-15 ms of CPU on the
# event loop (bench/bot.py saw hundreds of rebuilds a minute under load). Holding the
# ones the bot's calls return keeps them built once.
_RESPONSE_TYPES = tuple(
    Response[t]  # type: ignore[valid-type]
    for t in (bool, Message, Message | bool, User, list[Update])
)


def make_bot(settings: Settings) -> Bot:
    session = AiohttpSession(api=TelegramAPIServer.from_base(settings.telegram_api_url))
    return Bot(
        settings.bot_token.get_secret_value(),
        session=session,
        default=DefaultBotProperties(parse_mode=ParseMode.HTML),
    )


async def register_commands(bot: Bot, default_language: str) -> None:
    for language in (None, *LANGUAGES):
        t = texts(language or default_language)
        private = [BotCommand(command=c, description=t(f"command.{c}")) for c in PRIVATE_COMMANDS]
        group = [BotCommand(command=c, description=t(f"command.{c}")) for c in GROUP_COMMANDS]
        await bot.set_my_commands(private, BotCommandScopeDefault(), language_code=language)
        await bot.set_my_commands(group, BotCommandScopeAllGroupChats(), language_code=language)


async def _timers(service: GameService) -> None:
    while True:
        try:
            await service.tick()
        except Exception:
            log.exception("timer tick failed; trying again")
        await asyncio.sleep(TICK_SECONDS)


class App:
    """The running bot; :meth:`run` polls until stopped."""

    def __init__(
        self, settings: Settings, limits: Limits | None = None, *, handle_signals: bool = True
    ) -> None:
        self.settings = settings
        self.limits = limits
        self.handle_signals = handle_signals
        self.dispatcher: Dispatcher | None = None
        self.service: GameService | None = None
        self.delivery: DeliveryWorker | None = None
        self.ready = asyncio.Event()

    async def _started(self) -> None:
        self.ready.set()

    async def stop(self) -> None:
        """Stop polling; :meth:`run` then finishes its shutdown."""
        if self.dispatcher is not None:
            await self.dispatcher.stop_polling()

    async def run(self) -> None:
        settings = self.settings
        storage = await Storage.open(settings.database_path)
        bot = make_bot(settings)
        tasks: list[asyncio.Task[None]] = []
        try:
            me = await bot.get_me()
            log.info("running as @%s", me.username)
            service = GameService(
                storage,
                bot_username=me.username or "",
                default_language=settings.default_language,
                turn_timeout=settings.turn_timeout_seconds,
                away_after=settings.away_after_autoplays,
                lobby_timeout=settings.lobby_timeout_seconds,
                computer_pause=settings.computer_pause_seconds,
                away_stand_in=None if settings.away_stand_in == "off" else settings.away_stand_in,
            )
            delivery = DeliveryWorker(
                bot,
                storage,
                service.outbox_ready,
                on_forbidden=service.user_unreachable,
                on_migrated=service.chat_migrated,
                limits=self.limits,
                attachments=Attachments(storage, settings.default_language),
            )
            await register_commands(bot, settings.default_language)
            dispatcher = Dispatcher(service=service)
            dispatcher.include_router(build_router())
            self.dispatcher, self.service, self.delivery = dispatcher, service, delivery
            tasks = [
                asyncio.create_task(delivery.run(), name="delivery"),
                asyncio.create_task(_timers(service), name="timers"),
            ]
            dispatcher.startup.register(self._started)
            await dispatcher.start_polling(
                bot,
                allowed_updates=["message", "callback_query"],
                handle_signals=self.handle_signals,
                close_bot_session=False,
                polling_timeout=10,
            )
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            await bot.session.close()
            await storage.close()
