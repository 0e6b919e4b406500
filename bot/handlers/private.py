"""The DM side and the commands that work anywhere: /start, /help, /rules."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import CallbackQuery, Message

from bot.callbacks import LangCb
from bot.handlers.common import chat_texts, chat_title, personal_texts, reply, user_info
from bot.i18n import LANGUAGES, texts
from bot.service import GameService, UserError


async def start(message: Message, command: CommandObject, service: GameService) -> None:
    assert message.from_user is not None
    answers = await service.user_started(user_info(message.from_user), command.args)
    t = personal_texts(message.from_user, service.default_language)
    await reply(service, message, "\n".join(t(key) for key in answers))


async def start_in_group(message: Message, service: GameService) -> None:
    t = await chat_texts(service, message)
    await reply(service, message, t("help.text"))


async def help_(message: Message, service: GameService) -> None:
    t = await chat_texts(service, message)
    await reply(service, message, t("help.text"))


async def rules(message: Message, service: GameService) -> None:
    t = await chat_texts(service, message)
    await reply(service, message, t("rules.text"))


async def group_only(message: Message, service: GameService) -> None:
    raise UserError("error.group_only")


async def choose_language(
    query: CallbackQuery, callback_data: LangCb, service: GameService
) -> None:
    if callback_data.code not in LANGUAGES or query.message is None:
        raise UserError("error.forged")
    chat = query.message.chat
    if chat.type == "private":
        raise UserError("error.group_only")
    await service.set_language(chat.id, chat_title(chat), callback_data.code)
    await query.answer(texts(callback_data.code).alert("language.set"))


def make_router() -> Router:
    router = Router(name=__name__)
    router.message.register(start, CommandStart(), F.chat.type == "private")
    router.message.register(start_in_group, CommandStart())
    router.message.register(help_, Command("help"))
    router.message.register(rules, Command("rules"))
    router.message.register(
        group_only,
        Command("newgame", "join", "addbot", "leave", "cancel", "score"),
        F.chat.type == "private",
    )
    router.callback_query.register(choose_language, LangCb.filter())
    return router
