"""A game against computers in the private chat: /newgame there, the greeting's «Play
the computer», the choice menu (edited in place) and /score and /cancel of that game."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.delivery import lean_api
from bot.handlers import group
from bot.handlers.common import personal_texts, reply, user_info
from bot.service import GameService, UserError
from bot.views.callbacks import SoloCb
from bot.views.solo import SoloChoice, choice_for_game, menu_keyboard, menu_text
from engine.registry import game_by_alias
from storage import OutboxOp

SOLO_COMMANDS = ("newgame", "score", "cancel")  # the private chat's menu has them


async def new_game(message: Message, command: CommandObject, service: GameService) -> None:
    """/newgame in the private chat (``/newgame bura`` chooses Bura first): the menu."""
    named = game_by_alias((command.args or "").strip().lower())
    choice = choice_for_game(named.name if named else None)
    t = personal_texts(message.from_user, service.settings.default_language)
    await reply(service, message, menu_text(t, choice), markup=menu_keyboard(t, choice))


async def menu_button(query: CallbackQuery, callback_data: SoloCb, service: GameService) -> None:
    message = query.message
    choice = SoloChoice(callback_data.preset, callback_data.computers, callback_data.level)
    # Forgeable data: only in the tapper's own private chat, only choices the menu offers.
    if message is None or message.chat.id != query.from_user.id or not choice.valid:
        raise UserError("error.forged")
    t = personal_texts(query.from_user, service.settings.default_language)
    action = callback_data.action
    if action == "go":
        await service.play_computers(
            user_info(query.from_user),
            t.language,
            choice.preset,
            choice.computers,
            choice.level,
            message.message_id,
        )
        await lean_api.answer(query, t.alert("solo.started"))
        return
    text, markup = menu_text(t, choice), menu_keyboard(t, choice)
    if action == "menu":  # from the greeting, which stays as it is
        op = OutboxOp(message.chat.id, "send", {"text": text, "reply_markup": markup})
    elif action == "set":
        payload = {"message_id": message.message_id, "text": text, "reply_markup": markup}
        op = OutboxOp(message.chat.id, "edit", payload)
    else:
        raise UserError("error.forged")
    await service.storage.enqueue((op,))
    service.outbox_ready.set()
    await lean_api.answer(query)


def make_router() -> Router:
    router = Router(name=__name__)
    private = F.chat.type == "private"
    router.message.register(new_game, Command("newgame"), private)
    router.message.register(group.score, Command("score"), private)
    router.message.register(group.cancel, Command("cancel"), private)
    router.callback_query.register(menu_button, SoloCb.filter())
    return router
