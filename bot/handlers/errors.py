"""The one place where domain errors become polite answers, and nothing else escapes."""

from __future__ import annotations

import logging

from aiogram import Router
from aiogram.exceptions import TelegramAPIError
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
        except TelegramAPIError as exc:
            # Too late (a tap that waited out a restart): nothing else to do, and an error
            # raised here would escape every handler.
            log.warning("could not answer a callback query: %s", exc.message)
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
