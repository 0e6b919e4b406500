"""Stats, ratings, history, export, /resetstats, /notify and the pictures switch."""

from __future__ import annotations

import json
import time

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, Message

from bot.delivery.attachments import document_payload
from bot.handlers.common import (
    ADMINS,
    MEMBERS,
    chat_texts,
    chat_title,
    group_of,
    group_title,
    personal_texts,
    private_heading,
    reply,
    require_admin,
    status_in,
    thread_of,
    user_info,
)
from bot.i18n import html, texts
from bot.service import GameService, NeedsStart, UserError
from bot.views import render
from bot.views.callbacks import GroupId
from bot.views.stats import HISTORY_LIMIT, export_filename, history_text, stats_text, top_text
from storage import OutboxOp

STATS_GROUP_COMMANDS = ("stats", "top", "history", "export", "notify", "resetstats", "settings")
STATS_PRIVATE_COMMANDS = ("stats", "history", "export")
ANONYMOUS_ADMIN = 1087968824  # "GroupAnonymousBot": a message sent as the group itself


class HistoryCb(CallbackData, prefix="h"):
    """Send this game's record (a button of /history)."""

    game: int


class ResetCb(CallbackData, prefix="rs"):
    """Reset group ``chat``'s stats, or keep them (the question may be in a private chat)."""

    chat: GroupId
    confirm: bool


# --- /stats, /top, /history --------------------------------------------------


async def stats_in_group(message: Message, service: GameService) -> None:
    assert message.from_user is not None
    target = message.from_user
    replied = message.reply_to_message
    if replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
        target = replied.from_user
    records = await service.storage.player_records(target.id, message.chat.id)
    t = await chat_texts(service, message)
    await reply(service, message, stats_text(t, target.full_name, records, everywhere=False))


async def stats_in_private(message: Message, service: GameService) -> None:
    assert message.from_user is not None
    records = await service.storage.player_records(message.from_user.id, None)
    t = personal_texts(message.from_user, service.settings.default_language)
    await reply(
        service, message, stats_text(t, message.from_user.full_name, records, everywhere=True)
    )


async def top(message: Message, service: GameService) -> None:
    t = await chat_texts(service, message)
    await reply(service, message, top_text(t, await service.storage.ratings(message.chat.id)))


async def history(message: Message, service: GameService) -> None:
    t = await chat_texts(service, message)
    series = await service.storage.recent_series(message.chat.id, HISTORY_LIMIT)
    markup = None
    if series:
        buttons = [
            render.button(t("history.button", n=n), HistoryCb(game=s.game_id).pack())
            for n, s in enumerate(series, start=1)
        ]
        markup = render.keyboard([buttons[i : i + 5] for i in range(0, len(buttons), 5)])
    await reply(service, message, history_text(t, series), markup=markup)


# --- /export and the history buttons -------------------------------------------


async def export_op(
    service: GameService,
    chat_id: int,
    title: str,
    thread_id: int | None,
    game_id: int,
    to: int | None = None,
) -> OutboxOp:
    """The game's record as a JSON document, to group ``chat_id`` (or to chat ``to``, in
    the group's language): finished deals only, so a deal still being played never shows
    its deck (that would reveal every hand)."""
    record = await service.storage.export_record(game_id)
    finished = {tally.deal_index for tally in await service.storage.tallies(game_id)}
    record["deals"] = [d for i, d in enumerate(record["deals"]) if i in finished]
    t = texts(await service.language_of(chat_id))
    now = time.time()
    text = json.dumps(record, ensure_ascii=False, indent=1)
    caption = t("export.caption", deals=len(record["deals"]))
    payload = document_payload(export_filename(title, game_id, now), text, caption)
    if thread_id is not None:
        payload["message_thread_id"] = thread_id
    return OutboxOp(chat_id if to is None else to, "send", payload, game_id, None)


async def export(message: Message, service: GameService) -> None:
    game_id = await service.storage.last_played_game(message.chat.id, thread_of(message))
    if game_id is None:
        raise UserError("export.none")
    op = await export_op(
        service, message.chat.id, chat_title(message.chat), thread_of(message), game_id
    )
    await service.storage.enqueue((op,))
    service.outbox_ready.set()


async def history_button(
    query: CallbackQuery, callback_data: HistoryCb, service: GameService, bot: Bot
) -> None:
    """A record, sent where the button is: in the game's group, or in the private chat of
    one of its members (where /history was answered privately)."""
    message = query.message
    if not 0 < callback_data.game < 2**63 or message is None:
        raise UserError("error.forged")
    game = await service.storage.get_game(callback_data.game)
    # Only a game of this chat, or of the tapper's group (a forged id must not fetch
    # another chat's record).
    if game is None:
        raise UserError("error.forged")
    if message.chat.type == "private" and game.chat_id != message.chat.id:
        if await status_in(bot, game.chat_id, query.from_user.id) not in MEMBERS:
            raise UserError("error.forged")
        thread, title = None, await group_title(service, game.chat_id)
    elif game.chat_id == message.chat.id:
        thread = thread_of(message) if isinstance(message, Message) else None
        title = chat_title(message.chat)
    else:
        raise UserError("error.forged")
    op = await export_op(service, game.chat_id, title, thread, game.id, to=message.chat.id)
    await service.storage.enqueue((op,))
    service.outbox_ready.set()
    await query.answer(
        personal_texts(query.from_user, service.settings.default_language)("export.sent")
    )


# --- /resetstats ---------------------------------------------------------------


def _in_thread(message: object, payload: dict[str, object]) -> dict[str, object]:
    thread = thread_of(message) if isinstance(message, Message) else None
    if thread is not None:
        payload["message_thread_id"] = thread
    return payload


async def reset_stats(message: Message, service: GameService, bot: Bot) -> None:
    await require_admin(bot, message)
    t = await chat_texts(service, message)
    chat = message.chat.id
    markup = render.keyboard(
        [
            [
                render.button(t("reset.yes"), ResetCb(chat=chat, confirm=True).pack()),
                render.button(t("reset.no"), ResetCb(chat=chat, confirm=False).pack()),
            ]
        ]
    )
    await reply(service, message, t("reset.confirm"), markup=markup)


async def reset_button(
    query: CallbackQuery, callback_data: ResetCb, service: GameService, bot: Bot
) -> None:
    """Checked against the group the question names, also where it was asked privately:
    only that group's administrators reset its stats."""
    message = query.message
    if message is None:
        raise UserError("error.forged")
    group = group_of(message, callback_data.chat)
    if await status_in(bot, group, query.from_user.id) not in ADMINS:
        raise UserError("admin.only")
    t = texts(await service.language_of(group))
    if callback_data.confirm:
        await service.storage.reset_chat_stats(group)
    text = t("reset.done") if callback_data.confirm else t("reset.kept")
    shown: str = text
    if message.chat.type == "private":
        shown = f"{private_heading(t, '/resetstats', await group_title(service, group))}\n\n{text}"
    # The question is answered: it becomes the answer (and loses its buttons).
    await service.storage.enqueue(
        (
            OutboxOp(message.chat.id, "delete", {"message_id": message.message_id}),
            OutboxOp(message.chat.id, "send", _in_thread(message, {"text": shown})),
        )
    )
    service.outbox_ready.set()
    await query.answer(text)


# --- /notify and /settings -----------------------------------------------------


async def notify(message: Message, service: GameService) -> None:
    assert message.from_user is not None
    user = user_info(message.from_user)
    if not await service.remember_user(user):
        raise NeedsStart(render.deep_link(service.settings.bot_username, "hi"))
    on = await service.storage.toggle_lobby_watch(message.chat.id, user.id)
    t = await chat_texts(service, message)
    key = "notify.on" if on else "notify.off"
    await reply(service, message, t(key, name=html(user.name)), quote=message.message_id)


async def pictures_command(
    message: Message, command: CommandObject, service: GameService, bot: Bot
) -> None:
    """``/settings pictures on|off`` (admins), typed; bare ``/settings`` opens the menu
    (bot/handlers/settings.py), which has the same switch."""
    t = await chat_texts(service, message)
    args = (command.args or "").split()
    if not args:
        on = await service.storage.chat_pictures(message.chat.id)
        state = t("settings.on") if on else t("settings.off")
        await reply(service, message, t("settings.show", pictures=state))
        return
    if len(args) != 2 or args[0].lower() != "pictures" or args[1].lower() not in ("on", "off"):
        raise UserError("settings.usage")
    await require_admin(bot, message)
    on = args[1].lower() == "on"
    await service.storage.upsert_chat(message.chat.id, chat_title(message.chat))
    await service.storage.set_chat_pictures(message.chat.id, on)
    await reply(service, message, t("settings.pictures_on" if on else "settings.pictures_off"))


async def group_only(message: Message, service: GameService) -> None:
    raise UserError("error.group_only")


def make_router() -> Router:
    router = Router(name=__name__)
    group = F.chat.type.in_({"group", "supergroup"})
    private = F.chat.type == "private"
    router.message.register(stats_in_group, Command("stats"), group)
    router.message.register(stats_in_private, Command("stats"), private)
    router.message.register(top, Command("top"), group)
    # A private chat has its games against computers: their history and records.
    router.message.register(history, Command("history"))
    router.message.register(export, Command("export"))
    router.message.register(reset_stats, Command("resetstats"), group)
    router.message.register(notify, Command("notify"), group)
    router.message.register(
        group_only,
        Command("top", "resetstats", "notify"),
        private,
    )
    router.callback_query.register(history_button, HistoryCb.filter())
    router.callback_query.register(reset_button, ResetCb.filter())
    return router
