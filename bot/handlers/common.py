"""Small helpers shared by the handlers."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import CallbackQuery, Chat, Message, User

from bot.chatter import Route
from bot.i18n import LANGUAGES, Texts, texts
from bot.render import Keyboard
from bot.service import GameService, UserError, UserInfo
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

    In a group the answers are bounded (bot/chatter.py): a repeat is not answered, and
    past the group's share the answer goes to the asker's private chat, or nowhere if
    ``markup`` only works in the group."""
    payload: dict[str, object] = {"text": text}
    chat_id = message.chat.id
    if message.chat.type != "private" and message.from_user is not None:
        user_id = message.from_user.id
        route = service.chatter.route(chat_id, user_id, f"{command_of(message)} {hash(text)}")
        if route is Route.PRIVATE and markup is None:
            user = await service.storage.get_user(user_id)
            if user is not None and user.started:
                await service.storage.enqueue((OutboxOp(user_id, "send", payload),))
                service.outbox_ready.set()
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
    return personal_texts(query.from_user, service.default_language)


async def chat_texts(service: GameService, message: Message) -> Texts:
    if message.chat.type == "private":
        return personal_texts(message.from_user, service.default_language)
    return texts(await service.language_of(message.chat.id))


async def is_admin(bot: Bot, chat: Chat, user_id: int) -> bool:
    """Chat administrators (in a private chat, the user is its admin)."""
    if chat.type == "private":
        return True
    member = await bot.get_chat_member(chat.id, user_id)
    return member.status in ("creator", "administrator")


async def require_admin(bot: Bot, message: Message) -> None:
    assert message.from_user is not None
    if message.sender_chat is not None and message.sender_chat.id == message.chat.id:
        return  # an anonymous admin writing as the group
    if not await is_admin(bot, message.chat, message.from_user.id):
        raise UserError("admin.only")
