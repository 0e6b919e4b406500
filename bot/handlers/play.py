"""Buttons in a player's hand message: select cards, play them, confirm a cancel."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message

from bot.delivery import lean_api
from bot.handlers.common import tap_texts
from bot.service import GameService, UserError
from bot.views.callbacks import CancelCb, CardCb, MyCardsCb, PlayCb
from storage import OutboxOp


async def my_cards(query: CallbackQuery, callback_data: MyCardsCb, service: GameService) -> None:
    """«🂠 My cards» under the group's table: the tapper's hand, shown in the group to them
    alone. Someone not seated gets a short answer (bot/handlers/errors.py)."""
    game_id, user_id = callback_data.game, query.from_user.id
    chat_id, thread_id, content = await service.hand_here(game_id, user_id)
    shown = await service.hand_copies.show(game_id, user_id, chat_id, thread_id, content, query.id)
    t = await tap_texts(service, query)
    await lean_api.answer(query, None if shown else t.alert("hand_here.not_shown"))


async def _adopt_group_copy(query: CallbackQuery, game_id: int, service: GameService) -> None:
    """A seated player's tap on their hand shown in the group (an ephemeral message):
    later redraws of their hand edit that copy too. One this process did not know of (sent
    before a restart, say) is brought up to date now: the tap's own redraw went before it
    was known. (After the service took the tap: a forged one never gets this far.)"""
    message = query.message
    ephemeral_id = getattr(message, "ephemeral_message_id", None)
    if not (isinstance(message, Message) and ephemeral_id and message.chat.type != "private"):
        return
    user_id = query.from_user.id
    if service.hand_copies.tapped(game_id, user_id, message.chat.id, ephemeral_id):
        try:
            _, _, content = await service.hand_here(game_id, user_id)
        except UserError:
            return  # the game is over, or the chat turned it off: the copy stays as it is
        service.hand_copies.redraw(game_id, user_id, content)


async def toggle_card(query: CallbackQuery, callback_data: CardCb, service: GameService) -> None:
    try:
        played = await service.toggle(
            callback_data.game, query.from_user.id, callback_data.v, callback_data.card
        )
    except UserError as exc:
        await _drop_older_copy(query, callback_data.game, service, exc)
        if exc.key == "error.stale":
            await _adopt_group_copy(query, callback_data.game, service)
        raise _as_seen(query, exc) from None
    await _adopt_group_copy(query, callback_data.game, service)
    if played:
        await lean_api.answer(query, (await tap_texts(service, query)).alert("play.done"))
    else:
        await lean_api.answer(query)


async def play_cards(query: CallbackQuery, callback_data: PlayCb, service: GameService) -> None:
    data = callback_data
    try:
        await service.play(data.game, query.from_user.id, data.v, data.kind, data.cards)
    except UserError as exc:
        await _drop_older_copy(query, data.game, service, exc)
        if exc.key == "error.stale":
            await _adopt_group_copy(query, data.game, service)
        raise _as_seen(query, exc) from None
    await _adopt_group_copy(query, data.game, service)
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


def _as_seen(query: CallbackQuery, error: UserError) -> UserError:
    """The stale refusal promises a redraw, which changes what the player sees only if the
    tapped message carries the old button. Telegram sends the message as it is now: when
    it no longer carries the button (it was redrawn meanwhile, or the data was forged),
    the redraw equals what is shown and nothing is sent, so the answer promises nothing."""
    message = query.message
    if error.key == "error.stale" and not (
        isinstance(message, Message) and _carries(message, query.data)
    ):
        return UserError("error.stale_shown")
    return error


async def _drop_older_copy(
    query: CallbackQuery, game_id: int, service: GameService, error: UserError
) -> None:
    """A stale tap on a hand message that is not the game's hand message for this player
    is on an older copy: a send Telegram accepted but whose answer was lost (a kill, a
    timeout) was sent again, and both copies reached the player. Telegram never told us
    the older copy's id; the tap does, so it is deleted (the current hand is redrawn by
    the stale path). Only a message that carries the tapped button, in the player's own
    chat, so forged data on another message deletes nothing."""
    message = query.message
    if error.key != "error.stale" or not isinstance(message, Message):
        return
    user_id = query.from_user.id
    if message.chat.id != user_id or not _carries(message, query.data):
        return
    ref = await service.storage.get_message(game_id, f"hand:{user_id}")
    if ref is None or ref.chat_id != user_id or ref.message_id == message.message_id:
        return
    await service.storage.enqueue(
        (OutboxOp(user_id, "delete", {"message_id": message.message_id}),)
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
    router.callback_query.register(my_cards, MyCardsCb.filter())
    router.callback_query.register(confirm_cancel, CancelCb.filter())
    router.callback_query.register(unknown_button)
    return router
