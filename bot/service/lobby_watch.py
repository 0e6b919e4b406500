"""/notify: a DM to each user who asked to hear about the next lobby in a chat."""

from __future__ import annotations

from bot.i18n import html, texts
from bot.service.outbox import Outbox
from bot.service.settings import ServiceSettings
from storage import Backend, Game, OutboxOp


async def tell_lobby_watchers(
    storage: Backend, outbox: Outbox, settings: ServiceSettings, game: Game
) -> None:
    """Called when a lobby opens. Each watcher is told once (the request is used up), in
    the group's language, through the outbox like every other message."""
    watchers = await storage.take_lobby_watchers(game.chat_id)
    watchers = [user_id for user_id in watchers if user_id != game.created_by]
    if not watchers:
        return
    chat = await storage.get_chat(game.chat_id)
    t = texts((chat.language if chat else None) or settings.default_language)
    text = t("notify.lobby_open", chat=html(chat.title if chat else ""))
    await storage.enqueue(tuple(OutboxOp(u, "send", {"text": text}) for u in watchers))
    outbox.ready.set()
