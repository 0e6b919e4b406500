"""Group commands: /newgame, /join, /leave, /score, /cancel, /language, and chat migration."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.enums import ChatMemberStatus, ChatType
from aiogram.filters import Command, CommandObject
from aiogram.types import ChatMemberUpdated, Message

from bot.delivery.chatter import Route
from bot.handlers.common import chat_texts, chat_title, reply, thread_of, user_info
from bot.service import AlreadyOpen, GameService, UserError
from bot.views import render


async def migrated(message: Message, service: GameService) -> None:
    assert message.migrate_to_chat_id is not None
    await service.chat_migrated(message.chat.id, message.migrate_to_chat_id)


async def membership(event: ChatMemberUpdated, service: GameService) -> None:
    """The bot removed from a group, or added back (Telegram's my_chat_member)."""
    if event.chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return  # a private chat blocked or unblocked: its 403s tell (user_unreachable)
    service.hand_copies.status_changed(event.chat.id)  # made administrator, or not
    out = (ChatMemberStatus.LEFT, ChatMemberStatus.KICKED)
    if event.new_chat_member.status in out:
        await service.bot_removed(event.chat.id)
    elif event.old_chat_member.status in out:
        await service.bot_back(event.chat.id)


async def new_game(message: Message, command: CommandObject, service: GameService) -> None:
    assert message.from_user is not None
    game_name = (command.args or "").strip().lower() or None
    try:
        await service.new_game(
            message.chat.id,
            chat_title(message.chat),
            thread_of(message),
            user_info(message.from_user),
            game_name,
        )
    except AlreadyOpen as exc:
        t = await chat_texts(service, message)
        await reply(service, message, t("newgame.already_open"), quote=exc.message_id)


async def join(message: Message, service: GameService) -> None:
    assert message.from_user is not None
    live = await service.open_live(message.chat.id, thread_of(message))
    if live is None:
        raise UserError("lobby.none")
    await service.join(live.game.id, user_info(message.from_user))


async def add_computer(message: Message, command: CommandObject, service: GameService) -> None:
    assert message.from_user is not None
    live = await service.open_live(message.chat.id, thread_of(message))
    if live is None:
        raise UserError("lobby.none")
    level = (command.args or "normal").strip().lower()
    await service.add_computer(live.game.id, message.from_user.id, level)


async def leave(message: Message, service: GameService) -> None:
    assert message.from_user is not None
    live = await service.open_live(message.chat.id, thread_of(message))
    if live is None:
        raise UserError("lobby.none")
    await service.leave(live.game.id, message.from_user.id)


async def score(message: Message, service: GameService) -> None:
    t = await chat_texts(service, message)
    live = await service.open_live(message.chat.id, thread_of(message))
    if live is not None and live.played is not None and live.played.series.results:
        played = live.played
        totals = played.series.totals
        lines: list[str] = [t("score.series", deals=len(played.series.results))]
        lines += [f"{render.seat_name(s)}: {totals[s.seat]}" for s in live.game.seats]
        lines += played.score_lines(t, live.game)
    else:
        stats = await service.storage.chat_stats(message.chat.id)
        if not stats:
            await reply(service, message, t("score.none"))
            return
        lines = [t("score.chat")]
        for row in sorted(stats, key=lambda r: (-r.series_won, r.penalties)):
            lines.append(
                t(
                    "score.row",
                    name=row.name,
                    won=row.series_won,
                    played=row.series_played,
                    deals=row.deals_played,
                    penalties=row.penalties,
                )
            )
    await reply(service, message, "\n".join(lines))


async def cancel(message: Message, service: GameService) -> None:
    assert message.from_user is not None
    live = await service.cancel_request(message.chat.id, thread_of(message), message.from_user.id)
    if service.chatter.route(message.chat.id, message.from_user.id, "/cancel") is Route.NONE:
        return  # asked a moment ago: the question is in the group already
    t = live.t
    markup = render.cancel_keyboard(t, live.game)
    op = service.group_send(live, t("cancel.confirm"), markup)
    await service.storage.enqueue((op,))
    service.outbox_ready.set()


async def language(message: Message, service: GameService) -> None:
    t = await chat_texts(service, message)
    markup = render.language_keyboard(message.chat.id)
    await reply(service, message, t("language.choose"), markup=markup)


def make_router() -> Router:
    router = Router(name=__name__)
    router.message.filter(F.chat.type.in_({"group", "supergroup"}))
    router.message.register(migrated, F.migrate_to_chat_id)
    router.message.register(new_game, Command("newgame"))
    router.message.register(join, Command("join"))
    router.message.register(leave, Command("leave"))
    router.message.register(add_computer, Command("addbot"))
    router.message.register(score, Command("score"))
    router.message.register(cancel, Command("cancel"))
    router.message.register(language, Command("language"))
    router.my_chat_member.register(membership)
    return router
