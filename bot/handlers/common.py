"""Small helpers shared by the handlers."""

from __future__ import annotations

from aiogram.types import Chat, InlineKeyboardMarkup, Message, User

from bot.i18n import LANGUAGES, Texts, texts
from bot.service import GameService, UserInfo
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
    markup: InlineKeyboardMarkup | None = None,
) -> None:
    """Answer in the same chat (and topic) through the outbox, like every other message."""
    payload: dict[str, object] = {"text": text}
    if markup is not None:
        payload["reply_markup"] = markup.model_dump(mode="json", exclude_none=True)
    thread = thread_of(message)
    if thread is not None:
        payload["message_thread_id"] = thread
    if quote is not None:
        payload["reply_to_message_id"] = quote
    await service.storage.enqueue((OutboxOp(message.chat.id, "send", payload),))
    service.outbox_ready.set()


async def chat_texts(service: GameService, message: Message) -> Texts:
    if message.chat.type == "private":
        return personal_texts(message.from_user, service.default_language)
    return texts(await service.language_of(message.chat.id))
