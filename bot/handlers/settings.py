"""/settings: one menu, edited in place, for a chat's defaults (administrators) or, from a
lobby's ⚙ Rules button, for that game's own rules before Start (its creator)."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot.chat_settings import (
    ChatSettings,
    Rules,
    SettingsError,
    apply_preset,
    load,
    rules_of_game,
)
from bot.handlers.common import (
    ADMINS,
    chat_title,
    group_of,
    group_title,
    reply,
    status_in,
    user_info,
)
from bot.handlers.stats import pictures_command
from bot.i18n import LANGUAGES, Texts, texts
from bot.service import GameService, NeedsStart, UserError
from bot.views.callbacks import SettingsCb
from bot.views.settings import Customs, menu_keyboard, menu_text
from engine import EngineError
from storage import OutboxOp


def changed(settings: ChatSettings, data: SettingsCb, *, lobby: bool) -> ChatSettings:
    """The settings after one tap, or UserError (nothing changed) for a forged one."""
    try:
        if data.action == "game":
            return settings.with_game(data.value)
        if data.action == "set":
            return settings.with_switch(settings.game, data.name, data.value)
        if data.action == "preset":
            return apply_preset(settings, data.name)
        if not lobby and data.action == "timer":
            return settings.with_custom("turn_timer", data.value)
        if not lobby and data.action == "standin":
            return settings.with_custom("stand_in", data.value)
        if not lobby and data.action == "hands":
            return settings.with_custom("hands_in_group", data.value)
    except SettingsError as exc:
        raise UserError(exc.key) from None
    raise UserError("error.forged")


async def _customs(service: GameService, chat_id: int) -> Customs:
    return Customs(
        language=await service.language_of(chat_id),
        pictures=await service.storage.chat_pictures(chat_id),
        default_timer=service.settings.turn_timeout,
        default_stand_in=service.settings.away_stand_in or "off",
        away_after=service.settings.away_after,
    )


async def _chat_menu(
    service: GameService, chat_id: int, title: str
) -> tuple[str, dict[str, object]]:
    chat = await service.storage.get_chat(chat_id)
    settings, broken = load(chat.rules if chat else {})
    customs = await _customs(service, chat_id)
    t = texts(customs.language)
    text = menu_text(
        t,
        settings,
        title=title,
        lobby=False,
        customs=customs,
        broken=broken.detail if broken else None,
    )
    # The buttons name the group: the menu may be answered in the asker's private chat.
    return text, menu_keyboard(t, settings, game_id=chat_id, customs=customs)


async def settings_command(
    message: Message, command: CommandObject, service: GameService, bot: Bot
) -> None:
    """``/settings`` opens the menu; ``/settings pictures on|off`` still works as typed
    (admins), so nobody's habit or script breaks. (In a private chat: private.py.)"""
    if (command.args or "").strip():
        await pictures_command(message, command, service, bot)
        return
    text, markup = await _chat_menu(service, message.chat.id, chat_title(message.chat))
    await reply(service, message, text, markup=markup)


def _edit(message: Message, text: str, markup: dict[str, object] | None) -> OutboxOp:
    payload = {"text": text, "reply_markup": markup, "message_id": message.message_id}
    return OutboxOp(message.chat.id, "edit", payload)


async def settings_button(
    query: CallbackQuery, callback_data: SettingsCb, service: GameService, bot: Bot
) -> None:
    message = query.message
    if not isinstance(message, Message):
        raise UserError("error.forged")
    if callback_data.game > 0:
        await _lobby_button(query, message, callback_data, service)
        return
    if callback_data.game == 0 and message.chat.type == "private":
        raise UserError("error.group_only")  # a menu drawn before menus named their group
    chat_id = group_of(message, callback_data.game or message.chat.id)
    if await status_in(bot, chat_id, query.from_user.id) not in ADMINS:
        raise UserError("admin.only")
    if message.chat.type == "private":
        title = await group_title(service, chat_id)
    else:
        title = chat_title(message.chat)
    action = callback_data.action
    t = texts(await service.language_of(chat_id))
    if action == "close":
        await service.storage.enqueue((_edit(message, t("settings.closed"), None),))
    else:
        if action == "lang":
            if callback_data.value not in LANGUAGES:
                raise UserError("error.forged")
            await service.set_language(chat_id, title, callback_data.value)
        elif action == "pics":
            if callback_data.value not in ("on", "off"):
                raise UserError("error.forged")
            await service.storage.upsert_chat(chat_id, title)
            await service.storage.set_chat_pictures(chat_id, callback_data.value == "on")
        else:
            chat = await service.storage.get_chat(chat_id)
            settings = load(chat.rules if chat else {})[0]
            await service.save_chat_settings(
                chat_id, title, changed(settings, callback_data, lobby=False)
            )
        text, markup = await _chat_menu(service, chat_id, title)
        await service.storage.enqueue((_edit(message, text, markup),))
        t = texts(await service.language_of(chat_id))
    service.outbox_ready.set()
    await query.answer(t.alert("settings.saved"))


def _lobby_settings(rules: Rules, game: str) -> ChatSettings:
    return ChatSettings(game=game).with_rules(game, rules)


def _lobby_menu(
    t: Texts, settings: ChatSettings, game_id: int, title: str
) -> tuple[str, dict[str, object]]:
    text = menu_text(t, settings, title=title, lobby=True)
    return text, menu_keyboard(t, settings, game_id=game_id)


async def _lobby_button(
    query: CallbackQuery, message: Message, data: SettingsCb, service: GameService
) -> None:
    """⚙ Rules of one lobby: its creator gets the menu in their private chat (the group
    sees the lobby's rules line change), and each tap there changes this game only."""
    live = await service.live(data.game)
    t = live.t
    if live.game.status != "lobby":
        raise UserError("lobby.not_open")
    if live.game.created_by != query.from_user.id:
        raise UserError("settings.creator_only")
    try:
        game, rules = rules_of_game(live.game.rules)
    except EngineError:
        # A broken lobby row: start from the chat's game at its base.
        game = ChatSettings().game
        rules = ChatSettings().rules(game)
    settings = _lobby_settings(rules, game)
    if data.action == "open":
        if not await service.remember_user(user_info(query.from_user)):
            raise NeedsStart(service.join_link(live.game.id))
        text, markup = _lobby_menu(t, settings, live.game.id, live.chat_title)
        op = OutboxOp(query.from_user.id, "send", {"text": text, "reply_markup": markup})
        await service.storage.enqueue((op,))
        service.outbox_ready.set()
        await query.answer(t.alert("settings.menu_in_dm"))
        return
    if data.action == "close":
        await service.storage.enqueue((_edit(message, t("settings.closed"), None),))
        service.outbox_ready.set()
        await query.answer(t.alert("settings.saved"))
        return
    if message.chat.id != query.from_user.id:
        raise UserError("error.forged")  # a lobby's menu lives in its creator's DM only
    new = changed(settings, data, lobby=True)
    text, markup = _lobby_menu(t, new, live.game.id, live.chat_title)
    await service.set_lobby_rules(
        live.game.id, query.from_user.id, new.game_rules(), _edit(message, text, markup)
    )
    await query.answer(t.alert("settings.saved"))


def make_router() -> Router:
    router = Router(name=__name__)
    router.message.register(settings_command, Command("settings"))
    router.callback_query.register(settings_button, SettingsCb.filter())
    return router
