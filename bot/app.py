"""Wiring: storage, bot session, dispatcher, delivery worker and timers."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import secrets
import signal
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from aiogram import Bot, Dispatcher
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.enums import ParseMode
from aiogram.exceptions import ClientDecodeError, TelegramAPIError, TelegramRetryAfter
from aiogram.methods.base import Response, TelegramMethod
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeDefault,
    Message,
    Update,
    User,
)
from aiogram.utils.backoff import Backoff, BackoffConfig
from aiohttp import web
from aiohttp.typedefs import Handler

from bot import intake, metrics
from bot.config import Settings, split_listen
from bot.delivery.attachments import Attachments
from bot.delivery.ephemeral import GroupHands
from bot.delivery.worker import DeliveryWorker, Limits
from bot.handlers import build_router
from bot.handlers.solo import SOLO_COMMANDS
from bot.handlers.stats import STATS_GROUP_COMMANDS, STATS_PRIVATE_COMMANDS
from bot.i18n import LANGUAGES, texts
from bot.middlewares.chat_order import ChatQueues
from bot.middlewares.message_screen import MessageScreen
from bot.middlewares.tap_screen import TapScreen
from bot.middlewares.updates import OnceMiddleware
from bot.redact import describe
from bot.roles import SenderRole
from bot.service import GameService
from bot.views import render
from bot.webapp.api import WebApp
from storage import Backend, open_storage

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
# Group commands whose answer concerns the asker alone: Telegram's apps send them as an
# ephemeral message (only the asker and the bot see it), and the answer goes back to the
# asker alone in the group (bot/handlers/common.py reply): a busy group's share of messages
# stays the table's, and nobody else's screen fills with someone's /stats.
ALONE_COMMANDS = ("score", "rules", "stats", "help")
PRIVATE_COMMANDS = ("start", *SOLO_COMMANDS, "rules", "help", *STATS_PRIVATE_COMMANDS)
TICK_SECONDS = 0.5
# my_chat_member: the bot removed from a group or added back (bot/service/presence.py).
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member"]
# Telegram re-delivers an unanswered update for up to a day; ids are kept a bit longer.
UPDATE_MEMORY_SECONDS = 2 * 86400
WEBHOOK_CONNECTIONS = 40  # Telegram's default; updates of one chat still come in order
POLL_SECONDS = 10  # long polling: how long one getUpdates waits for something new
POLL_GRACE_SECONDS = 3  # a long poll not answered this long after its timeout is hung
POLL_LIMIT = 100  # updates a getUpdates hands out at most (Telegram's most)
PROBE_SECONDS = 3  # after a failure: a short getUpdates, given up after this long
# Low cap: the bot reads again within seconds of Telegram answering (jitter: instances
# that failed together do not all come back at once).
POLL_BACKOFF = BackoffConfig(min_delay=0.5, max_delay=2.0, factor=1.5, jitter=0.2)
DRAIN_SECONDS = 5  # stopping: how long the updates held may take to finish


# aiogram parses every API answer as ``Response[T]``. pydantic caches such generic classes
# only weakly, so after a garbage collection each is built again, ~5-15 ms of CPU on the
# event loop (bench/bot.py saw hundreds of rebuilds a minute under load). Holding the
# ones the bot's calls return keeps them built once.
_RESPONSE_TYPES = tuple(
    Response[t]  # type: ignore[valid-type]
    for t in (bool, Message, Message | bool, User, list[Any])
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
        group = [
            BotCommand(
                command=c,
                description=t(f"command.{c}"),
                is_ephemeral=True if c in ALONE_COMMANDS else None,
            )
            for c in GROUP_COMMANDS
        ]
        await bot.set_my_commands(private, BotCommandScopeDefault(), language_code=language)
        await bot.set_my_commands(group, BotCommandScopeAllGroupChats(), language_code=language)


async def _timers(service: GameService, storage: Backend) -> None:
    pruned_at = 0.0
    while True:
        try:
            await service.tick()
            if time.time() - pruned_at > UPDATE_MEMORY_SECONDS / 10:
                pruned_at = time.time()
                await storage.prune_updates(pruned_at - UPDATE_MEMORY_SECONDS)
        except Exception:
            log.exception("timer tick failed; trying again")
        await asyncio.sleep(TICK_SECONDS)


async def _feed(dispatcher: Dispatcher, bot: Bot, update: Update) -> None:
    result = await dispatcher.feed_update(bot, update)
    if isinstance(result, TelegramMethod):  # a handler's answer given as a method
        await dispatcher.silent_call_request(bot, result)


def _screens(*screens: Callable[[Update], Awaitable[bool]]) -> Callable[[Update], Awaitable[bool]]:
    """One screen for ChatQueues: the first that takes the update (True) ends it."""

    async def screen(update: Update) -> bool:
        for one in screens:
            if await one(update):
                return True
        return False

    return screen


async def _poll(
    bot: Bot,
    queues: ChatQueues,
    look_ahead: Callable[[Sequence[Update]], Awaitable[None]] | None = None,
) -> None:
    """Long polling. ChatQueues.put waits while the process holds its most: a flood
    waits at Telegram.

    Each update is read on its own (bot/intake.py): one that does not parse is skipped
    and the offset moves past it. After a failure the bot probes with short polls that
    give up soon, so it reads again within seconds of Telegram answering: a call that
    hangs (a dead connection) would otherwise be held for the whole long-poll timeout.

    Telegram hands updates out in the order they came, so a tap behind a flood is read
    only once everything before it is: how fast the bot reads is how long such a tap
    waits. A full batch means more are waiting, so the next one is asked for at once,
    while this one is screened and queued: Telegram's round trip and the bot's own turn
    of its event loop overlap the batch's screening instead of adding to it (bench/junk.py
    --trace: a player's slow taps had waited at Telegram, behind polling's cycles, each
    the round trip and the screening one after the other).
    The request confirms this batch before it is queued; a batch held then is no more at
    risk than the updates already held, which a stop or a crash loses as well.

    ``look_ahead`` sees each batch before its updates are screened one by one (the tap
    screen reads the games its taps name all at once)."""
    offset: int | None = None
    failures = 0
    backoff = Backoff(POLL_BACKOFF)
    ahead: asyncio.Task[list[Any]] | None = None  # the next batch, asked for early
    try:
        while True:
            probing = failures > 0
            fetch, ahead = ahead or asyncio.create_task(_read_batch(bot, offset, probing)), None
            try:
                batch = await fetch
            except Exception as exc:  # Telegram out of reach, or not itself: keep asking
                failures += 1
                delay = max(0.0, next(backoff))
                if isinstance(exc, TelegramRetryAfter):
                    delay = max(delay, exc.retry_after)
                log.warning(
                    "getUpdates failed (%s); again in %.1f s",
                    describe(exc),
                    delay,
                    # (a traceback only for what is not Telegram's: a bug of ours)
                    exc_info=not isinstance(exc, TelegramAPIError | ClientDecodeError),
                )
                await asyncio.sleep(delay)
                continue
            if failures:
                log.info("getUpdates answers again after %s failed calls", failures)
                failures = 0
                backoff.reset()
            for raw in batch:
                read = intake.update_id(raw)
                if read is not None:
                    offset = read + 1  # confirmed by the next getUpdates
            if len(batch) >= POLL_LIMIT:
                ahead = asyncio.create_task(_read_batch(bot, offset, probing=False))
            updates = [u for u in (intake.parse(raw, bot) for raw in batch) if u is not None]
            if look_ahead is not None and updates:
                try:
                    await look_ahead(updates)
                except Exception:  # (the screen then reads what it needs itself)
                    log.warning("looking ahead at a batch failed", exc_info=True)
            for update in updates:
                await queues.put(update)
    finally:
        if ahead is not None:
            ahead.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await ahead


async def _read_batch(bot: Bot, offset: int | None, probing: bool) -> list[Any]:
    """One getUpdates: a long poll, or (``probing``, after a failure) a short one that
    is given up soon."""
    request = intake.ReadUpdates(
        offset=offset,
        limit=POLL_LIMIT,
        timeout=0 if probing else POLL_SECONDS,
        allowed_updates=ALLOWED_UPDATES,
    )
    return await bot(
        request,
        request_timeout=PROBE_SECONDS if probing else POLL_SECONDS + POLL_GRACE_SECONDS,
    )


def _webhook(bot: Bot, queues: ChatQueues, secret: str) -> Handler:
    async def receive(request: web.Request) -> web.Response:
        given = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
        if not secrets.compare_digest(given, secret):
            return web.Response(status=401, text="Unauthorized")
        try:
            raw = await request.json()
        except ValueError:
            raw = None
        update = intake.parse(raw, bot)
        if update is not None:
            # Answered once handled (an instance that dies first gets it re-delivered); a
            # request that finds the process full waits, and Telegram sends less meanwhile.
            await queues.handle(update)
        # (One that does not parse is answered too: Telegram would send it again for ever.)
        return web.json_response({})

    return receive


class App:
    """The running bot; :meth:`run` serves updates (long polling or webhook) until stopped."""

    def __init__(
        self, settings: Settings, limits: Limits | None = None, *, handle_signals: bool = True
    ) -> None:
        self.settings = settings
        self.limits = limits
        self.handle_signals = handle_signals
        self.dispatcher: Dispatcher | None = None
        self.service: GameService | None = None
        self.delivery: DeliveryWorker | None = None
        self.role: SenderRole | None = None
        self.queues: ChatQueues | None = None
        self.webapp: WebApp | None = None
        self.ready = asyncio.Event()
        self._stopped = asyncio.Event()

    async def stop(self) -> None:
        """Stop serving; :meth:`run` then finishes its shutdown."""
        self._stopped.set()

    async def run(self) -> None:
        settings = self.settings
        storage = await open_storage(settings.storage_url)
        bot = make_bot(settings)
        tasks: list[asyncio.Task[None]] = []
        poller: asyncio.Task[None] | None = None
        queues: ChatQueues | None = None
        screen: TapScreen | None = None
        group_hands: GroupHands | None = None
        stop_http: Callable[[], Awaitable[None]] | None = None
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
                on_removed=service.bot_removed,
                on_back=service.bot_back,
                limits=self.limits,
                attachments=Attachments(storage, settings.default_language),
            )
            # Hands shown inside the group (ephemeral messages), paced with the sender's
            # buckets: a user's share is the same whichever chat the hand is in.
            group_hands = GroupHands(bot, delivery)
            service.hand_copies = group_hands
            await register_commands(bot, settings.default_language)
            dispatcher = Dispatcher(service=service)
            # Webhook mode re-delivers what an instance died on: each update applied once.
            # (Polling keeps its behaviour: a restart re-reads unconfirmed updates, whose
            # taps carry versions and are refused as stale.)
            dispatcher.update.outer_middleware(
                OnceMiddleware(storage, dedupe=bool(settings.webhook_url))
            )
            dispatcher.include_router(build_router())
            # Taps that need no game state are answered before their chat's queue, and
            # one person's flood of taps or messages is shed before it takes room there.
            screen = TapScreen(service, bot)
            messages = MessageScreen(
                held=lambda: queues.held if queues is not None else 0, seated=screen.seats
            )
            queues = ChatQueues(
                functools.partial(_feed, dispatcher, bot),
                screen=_screens(messages, screen),
            )
            metrics.UPDATES_HELD.set_function(lambda: queues.held)
            role = SenderRole(
                storage,
                {
                    # Starts from the operations any sender logged lately (rebuild_pacing).
                    "delivery": delivery.run,
                    "timers": lambda: _timers(service, storage),
                },
                service.outbox_ready.set,
            )
            self.dispatcher, self.service, self.delivery, self.role, self.queues = (
                dispatcher,
                service,
                delivery,
                role,
                queues,
            )
            await role.step()  # a lone instance is the sender before it serves anything
            # What is loaded by now (aiogram's and pydantic's models and schemas, the
            # routers) lives as long as the process: kept out of the cyclic collector's
            # full passes, which otherwise walk it all again and again (CPU per update).
            gc.collect()
            gc.freeze()
            tasks = [asyncio.create_task(role.run(), name="sender-role")]
            # The Mini App: its page and API on the same server; moves any
            # instance makes reach its live connections (PostgreSQL: LISTEN/NOTIFY).
            service.webapp_url = settings.webapp_url
            webapp = WebApp(
                service,
                bot_token=settings.bot_token.get_secret_value(),
                max_age=settings.webapp_max_age,
            )
            self.webapp = webapp
            if settings.webapp_url and settings.webapp_link and me.username:
                link, username = settings.webapp_link, me.username
                service.table_link = lambda game_id: render.app_link(
                    username, link, webapp.table_start(game_id)
                )
            await storage.listen_games(webapp.hub.changed, webapp.hub.heard)
            tasks.append(asyncio.create_task(webapp.hub.announcer(), name="webapp-presence"))
            http = metrics.add_routes(
                web.Application(),
                storage,
                lambda: role.active,
                webapp.health if settings.webapp_url else None,
            )
            if settings.webapp_url:  # (without it nothing changes)
                webapp.add_routes(http)
            if settings.webhook_url:
                assert settings.webhook_secret is not None  # config refuses it otherwise
                secret = settings.webhook_secret.get_secret_value()
                path = urlsplit(settings.webhook_url).path or "/"
                http.router.add_post(path, _webhook(bot, queues, secret))
                stop_http = await metrics.serve(http, *split_listen(settings.webhook_listen))
                await bot.set_webhook(
                    settings.webhook_url,
                    secret_token=secret,
                    allowed_updates=ALLOWED_UPDATES,
                    max_connections=WEBHOOK_CONNECTIONS,
                )
                log.info("webhook mode: serving %s", settings.webhook_listen)
            else:
                # The Mini App on WEBAPP_LISTEN (when WEBAPP_URL is set), and /metrics on
                # METRICS_LISTEN: one server, on one or both addresses.
                listens = [settings.webapp_listen] if settings.webapp_url else []
                if settings.metrics_listen and settings.metrics_listen not in listens:
                    listens.append(settings.metrics_listen)
                if listens:
                    first, *more = (split_listen(where) for where in listens)
                    stop_http = await metrics.serve(http, *first, *more)
                await bot.delete_webhook()
                poller = asyncio.create_task(_poll(bot, queues, screen.look_ahead), name="polling")
                poller.add_done_callback(lambda _: self._stopped.set())
            if self.handle_signals:
                loop = asyncio.get_running_loop()
                for signum in (signal.SIGTERM, signal.SIGINT):
                    loop.add_signal_handler(signum, self._stopped.set)
            self.ready.set()
            await self._stopped.wait()
            log.info("stopping")
            if poller is not None and poller.done():
                poller.result()  # polling broke: say why, loudly
        finally:
            if poller is not None:
                poller.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await poller
            if stop_http is not None:
                await stop_http()  # (webhook mode: waits for the requests being answered)
            if queues is not None:
                await queues.drain(DRAIN_SECONDS)
            if screen is not None:
                await screen.close()
            if group_hands is not None:
                await group_hands.close()
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            await bot.session.close()
            await storage.close()
            gc.unfreeze()  # an App run inside a longer process (tests, bench) leaves no trace
