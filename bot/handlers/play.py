"""Buttons in a player's hand message: select cards, play them, confirm a cancel."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message

from bot import lean_api
from bot.callbacks import CancelCb, CardCb, PlayCb
from bot.handlers.common import tap_texts
from bot.service import GameService
from storage import OutboxOp


async def toggle_card(query: CallbackQuery, callback_data: CardCb, service: GameService) -> None:
    played = await service.toggle(
        callback_data.game, query.from_user.id, callback_data.v, callback_data.card
    )
    if played:
        await lean_api.answer(query, (await tap_texts(service, query)).alert("play.done"))
    else:
        await lean_api.answer(query)


async def play_cards(query: CallbackQuery, callback_data: PlayCb, service: GameService) -> None:
    data = callback_data
    await service.play(data.game, query.from_user.id, data.v, data.kind, data.cards)
    await lean_api.answer(query, (await tap_texts(service, query)).alert("play.done"))


async def confirm_cancel(
    query: CallbackQuery, callback_data: CancelCb, service: GameService
) -> None:
    t = await tap_texts(service, query)
    if callback_data.confirm:
        await service.cancel(callback_data.game, query.from_user.id)
        await lean_api.answer(query, t.alert("cancel.done"))
    else:
        await lean_api.answer(query, t.alert("cancel.kept"))
    message = query.message
    if isinstance(message, Message) and _carries(message, query.data):
        # The confirmation question has served its purpose. (Only if the tap came from
        # it: forged data on another message, say the table, must not delete that.)
        await service.storage.enqueue(
            (OutboxOp(message.chat.id, "delete", {"message_id": message.message_id}),)
        )
        service.outbox_ready.set()


def _carries(message: Message, data: str | None) -> bool:
    markup = message.reply_markup
    return markup is not None and any(
        button.callback_data == data for row in markup.inline_keyboard for button in row
    )


async def unknown_button(query: CallbackQuery, service: GameService) -> None:
    """Forged, junk or long-retired buttons: say so; nothing changes."""
    await lean_api.answer(query, (await tap_texts(service, query)).alert("error.forged"))


def make_router() -> Router:
    router = Router(name=__name__)
    router.callback_query.register(toggle_card, CardCb.filter())
    router.callback_query.register(play_cards, PlayCb.filter())
    router.callback_query.register(confirm_cancel, CancelCb.filter())
    router.callback_query.register(unknown_button)
    return router
