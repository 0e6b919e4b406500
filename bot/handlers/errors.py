"""The one place where domain errors become polite answers, and nothing else escapes."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.exceptions import ClientDecodeError, TelegramAPIError
from aiogram.filters import ExceptionTypeFilter
from aiogram.methods import AnswerCallbackQuery
from aiogram.types import ErrorEvent

from bot.delivery import lean_api
from bot.handlers.common import chat_texts, reply, tap_texts
from bot.service import GameService, NeedsStart, UserError

log = logging.getLogger(__name__)


async def polite_refusal(event: ErrorEvent, service: GameService) -> None:
    error = event.exception
    assert isinstance(error, UserError)
    update = event.update
    if update.callback_query is not None:
        query = update.callback_query
        t = await tap_texts(service, query)
        try:
            if isinstance(error, NeedsStart):
                # Telegram opens t.me/<bot>?start=... links given as the answer's url.
                await query.answer(t.alert("join.needs_dm_alert"), url=error.link)
            else:
                await lean_api.answer(query, t.alert(error.key, **error.values), show_alert=True)
        except (TelegramAPIError, ClientDecodeError) as exc:
            # Too late (a tap that waited out a restart), or Telegram failing: nothing else
            # to do, and an error raised here would escape every handler.
            log.warning(
                "could not answer a callback query: %s", lean_api.failure(exc) or exc.message
            )
    elif update.message is not None:
        message = update.message
        t = await chat_texts(service, message)
        await reply(service, message, t(error.key, **error.values), quote=message.message_id)


async def unexpected(event: ErrorEvent, service: GameService) -> None:
    error = event.exception
    if isinstance(error, TelegramAPIError) and isinstance(error.method, AnswerCallbackQuery):
        # Only the answer to the tap failed: whatever the tap did is already committed,
        # so telling the player "nothing was changed" would be wrong.
        log.warning("could not answer a callback query: %s", error.message)
        return
    failed = lean_api.failure(error)
    if failed is not None:
        # Telegram failed a call the handler made (an outage: out of reach, a 5xx, a
        # proxy's HTML page). Whatever the update did before it is committed (a move is
        # committed before its tap is answered), so «internal error» would be wrong, and
        # the next call would likely fail too: one line, no traceback.
        log.warning("update %s: Telegram failed (%s)", event.update.update_id, failed)
        return
    log.error("update %s failed", event.update.update_id, exc_info=error)
    query = event.update.callback_query
    if query is not None:
        t = await tap_texts(service, query)
        try:
            await lean_api.answer(query, t.alert("error.internal"), show_alert=True)
        except Exception:  # the query may be answered already or too old
            log.debug("could not answer callback after an error", exc_info=True)


def make_router() -> Router:
    router = Router(name=__name__)
    router.errors.register(polite_refusal, ExceptionTypeFilter(UserError))
    router.errors.register(unexpected)
    return router
