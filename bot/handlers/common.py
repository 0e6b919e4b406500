"""Small helpers shared by the handlers."""

from __future__ import annotations

from aiogram import Bot
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
)
from aiogram.types import CallbackQuery, Chat, InaccessibleMessage, Message, User

from bot.delivery.chatter import Route
from bot.i18n import LANGUAGES, Html, Texts, texts
from bot.service import GameService, UserError, UserInfo
from bot.views.render import Keyboard, deep_link
from storage import OutboxOp


def user_info(user: User) -> UserInfo:
    return UserInfo(user.id, user.full_name, user.username, user.language_code)


def thread_of(message: Message) -> int | None:
    return message.message_thread_id if message.is_topic_message else None


def chat_title(chat: Chat) -> str:
    return chat.title or chat.full_name or str(chat.id)


def personal_texts(user: User | None, fallback: str) -> Texts:
    code = (user.language_code or "")[:2] if user else ""
    return texts(code if code in LANGUAGES else fallback)


async def reply(
    service: GameService,
    message: Message,
    text: str,
    *,
    quote: int | None = None,
    markup: Keyboard | None = None,
) -> None:
    """Answer in the same chat (and topic) through the outbox, like every other message.

    In a group the answers are bounded (bot/delivery/chatter.py): a repeat is not answered, and
    past the group's share the answer goes to the asker's private chat. Buttons work
    there too: every button of a group command's answer names its group."""
    payload: dict[str, object] = {"text": text}
    chat_id = message.chat.id
    if message.ephemeral_message_id and message.from_user is not None:
        # Asked so that only the asker sees it (an is_ephemeral command): answered so too.
        sent = await service.hand_copies.tell(
            chat_id, message.from_user.id, thread_of(message), text, markup
        )
        if sent:
            return
    if message.chat.type != "private" and message.from_user is not None:
        user_id = message.from_user.id
        route = service.chatter.route(chat_id, user_id, f"{command_of(message)} {hash(text)}")
        if route is Route.PRIVATE:
            await _answer_in_private(service, message, text, markup)
            return
        if route is not Route.GROUP:
            return
    if markup is not None:
        payload["reply_markup"] = markup
    thread = thread_of(message)
    if thread is not None:
        payload["message_thread_id"] = thread
    if quote is not None:
        payload["reply_to_message_id"] = quote
    await service.storage.enqueue((OutboxOp(chat_id, "send", payload),))
    service.outbox_ready.set()


async def _answer_in_private(
    service: GameService, message: Message, text: str, markup: Keyboard | None
) -> None:
    """Past a group's share of answers: the answer, headed by the group it is about, goes
    to the asker's private chat, and the group gets a short pointer (or, if the asker has
    no private chat with the bot, a link to open one) now and then."""
    assert message.from_user is not None
    user_id, chat_id = message.from_user.id, message.chat.id
    user = await service.storage.get_user(user_id)
    started = user is not None and user.started
    t = texts(await service.language_of(chat_id))
    ops: list[OutboxOp] = []
    if started:
        title = chat_title(message.chat)
        if markup is not None:  # its buttons look the group's title up
            await service.storage.upsert_chat(chat_id, title)
        heading = private_heading(t, command_of(message), title)
        answer: dict[str, object] = {"text": f"{heading}\n\n{text}"}
        if markup is not None:
            answer["reply_markup"] = markup
        ops.append(OutboxOp(user_id, "send", answer))
    if service.chatter.pointer(chat_id):
        if started:
            pointer = t("answer.in_private")
        else:
            pointer = t("answer.open_private", link=deep_link(service.settings.bot_username, "hi"))
        payload: dict[str, object] = {"text": pointer, "reply_to_message_id": message.message_id}
        thread = thread_of(message)
        if thread is not None:
            payload["message_thread_id"] = thread
        ops.append(OutboxOp(chat_id, "send", payload))
    if ops:
        await service.storage.enqueue(tuple(ops))
        service.outbox_ready.set()


def private_heading(t: Texts, command: str, title: str) -> Html:
    """The first line of an answer sent privately: which group's command it answers."""
    return t("answer.private_heading", command=command, title=title)


def command_of(message: Message) -> str:
    """``/score@bot args`` -> ``/score``: what a repeat is recognised by."""
    word = (message.text or "").split(maxsplit=1)[0] if message.text else ""
    return word.split("@", 1)[0].lower()


async def tap_texts(service: GameService, query: CallbackQuery) -> Texts:
    """One screen, one language: a pop-up speaks the language of what was tapped (the
    group's, or for a hand the language of the game's group), not the tapper's app."""
    message = query.message
    if message is not None and message.chat.type != "private":
        return texts(await service.language_of(message.chat.id))
    prefix, _, rest = (query.data or "").partition(":")
    game_id = rest.split(":", 1)[0]
    if prefix in ("t", "p", "x", "l") and game_id.isdigit():
        language = service.cached_language(int(game_id))
        if language is not None:
            return texts(language)
    return personal_texts(query.from_user, service.settings.default_language)


async def chat_texts(service: GameService, message: Message) -> Texts:
    if message.chat.type == "private":
        return personal_texts(message.from_user, service.settings.default_language)
    return texts(await service.language_of(message.chat.id))


ADMINS = ("creator", "administrator")
MEMBERS = (*ADMINS, "member", "restricted")


async def is_admin(bot: Bot, chat: Chat, user_id: int) -> bool:
    """Chat administrators (in a private chat, the user is its admin)."""
    if chat.type == "private":
        return True
    return await status_in(bot, chat.id, user_id) in ADMINS


async def status_in(bot: Bot, group_id: int, user_id: int) -> str:
    """The user's status in a group ("left" for any chat the bot cannot look into), for a
    button tapped in a private chat that names the group it acts on: forgeable data."""
    if group_id >= 0:
        return "left"  # not a group: a user's id, or nothing
    try:
        member = await bot.get_chat_member(group_id, user_id)
    except (TelegramBadRequest, TelegramForbiddenError, TelegramMigrateToChat):
        return "left"  # no such chat, the bot is not in it (any more), or it moved
    return member.status


async def group_title(service: GameService, group_id: int) -> str:
    """A group's title as stored (a private answer with buttons stores it)."""
    chat = await service.storage.get_chat(group_id)
    return chat.title if chat is not None else str(group_id)


def group_of(message: Message | InaccessibleMessage, named: int) -> int:
    """The group a button of a group command's answer acts on: the one it names (in a
    private chat, once checked by the caller), which in a group must be that group."""
    if message.chat.type != "private" and named != message.chat.id:
        raise UserError("error.forged")
    return named


async def require_admin(bot: Bot, message: Message) -> None:
    assert message.from_user is not None
    if message.sender_chat is not None and message.sender_chat.id == message.chat.id:
        return  # an anonymous admin writing as the group
    if not await is_admin(bot, message.chat, message.from_user.id):
        raise UserError("admin.only")
