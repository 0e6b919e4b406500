"""The DM side and the commands that work anywhere: /start, /help, /rules. (A game in
the private chat: bot/handlers/solo.py.)"""

from __future__ import annotations

import contextlib

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import CallbackQuery, Message

from bot.chat_settings import load as load_settings
from bot.chat_settings import rules_of_game
from bot.handlers.common import (
    MEMBERS,
    chat_texts,
    chat_title,
    group_of,
    group_title,
    personal_texts,
    reply,
    status_in,
    thread_of,
    user_info,
)
from bot.i18n import LANGUAGES, texts
from bot.service import GameService, UserError
from bot.views.callbacks import LangCb
from bot.views.settings import rules_lines
from bot.views.solo import greeting_keyboard
from engine import EngineError


async def start(message: Message, command: CommandObject, service: GameService) -> None:
    assert message.from_user is not None
    answers = await service.user_started(user_info(message.from_user), command.args)
    t = personal_texts(message.from_user, service.settings.default_language)
    # A new user's first minute: what the bot is, a game right here, and how to play
    # with friends.
    markup = greeting_keyboard(t) if "start.welcome" in answers else None
    await reply(service, message, "\n".join(t(key) for key in answers), markup=markup)


async def help_(message: Message, service: GameService) -> None:
    """/help anywhere, and /start in a group (Start there means "what can you do")."""
    t = await chat_texts(service, message)
    await reply(service, message, t("help.text"))


async def rules(message: Message, service: GameService) -> None:
    """The rules actually in force: the open game's own, else the chat's defaults."""
    t = await chat_texts(service, message)
    # In a private chat: its game against computers, if one is open.
    live = await service.open_live(message.chat.id, thread_of(message))
    in_force = None
    if live is not None:
        with contextlib.suppress(EngineError):
            in_force = rules_of_game(live.game.rules)
    if in_force is None:
        chat = await service.storage.get_chat(message.chat.id)
        settings = load_settings(chat.rules if chat else {})[0]
        in_force = settings.game, settings.rules()
    game, rules_in_force = in_force
    heading = "rules.in_force_game" if live is not None else "rules.in_force_chat"
    lines = [t(f"rules.{game}"), "", t(heading), *rules_lines(t, game, rules_in_force)]
    await reply(service, message, "\n".join(lines))


async def group_only(message: Message, service: GameService) -> None:
    raise UserError("error.group_only")


async def settings_here(message: Message, service: GameService) -> None:
    """A private chat speaks its user's Telegram language and its games against
    computers are chosen in their own menu (/newgame), so its /settings and /language
    say where a group's settings are instead."""
    t = await chat_texts(service, message)
    await reply(service, message, t("settings.private"))


async def choose_language(
    query: CallbackQuery, callback_data: LangCb, service: GameService, bot: Bot
) -> None:
    """A language for the group the keyboard names: anyone in it may choose one, in the
    group or, where /language was answered privately, in their private chat."""
    message = query.message
    if callback_data.code not in LANGUAGES or message is None:
        raise UserError("error.forged")
    group = group_of(message, callback_data.chat)
    if message.chat.type != "private":
        title = chat_title(message.chat)
    elif await status_in(bot, group, query.from_user.id) in MEMBERS:
        title = await group_title(service, group)
    else:
        raise UserError("error.forged")
    await service.set_language(group, title, callback_data.code)
    await query.answer(texts(callback_data.code).alert("language.set"))


async def not_understood(message: Message, service: GameService) -> None:
    """A private message no command or button takes (text, a sticker, an unknown
    command): say what the bot does answer instead of keeping silent."""
    t = await chat_texts(service, message)
    await reply(service, message, t("private.not_understood"))


def make_fallback_router() -> Router:
    """Included after every other router: only what none of them took reaches it."""
    router = Router(name=f"{__name__}.fallback")
    router.message.register(not_understood, F.chat.type == "private")
    return router


def make_router() -> Router:
    router = Router(name=__name__)
    router.message.register(start, CommandStart(), F.chat.type == "private")
    router.message.register(help_, CommandStart())
    router.message.register(help_, Command("help"))
    router.message.register(rules, Command("rules"))
    router.message.register(
        settings_here, Command("settings", "language"), F.chat.type == "private"
    )
    router.message.register(
        group_only,
        Command("join", "addbot", "leave"),
        F.chat.type == "private",
    )
    router.callback_query.register(choose_language, LangCb.filter())
    return router
