"""Lobby buttons: join, leave, add a computer player, start."""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery

from bot.delivery import lean_api
from bot.handlers.common import tap_texts, user_info
from bot.service import GameService, UserError
from bot.views.callbacks import LobbyCb


async def lobby_button(query: CallbackQuery, callback_data: LobbyCb, service: GameService) -> None:
    user = user_info(query.from_user)
    game_id, action = callback_data.game, callback_data.action
    if action == "join":
        await service.join(game_id, user)
        key = "lobby.joined"
    elif action == "leave":
        await service.leave(game_id, user.id)
        key = "lobby.left"
    elif action == "start":
        await service.start(game_id, user.id)
        key = "lobby.starting"
    elif action == "again":
        await service.rematch(game_id, user)
        key = "lobby.rematch"
    elif action.startswith("bot-"):
        await service.add_computer(game_id, user.id, action[4:])
        key = "lobby.computer_added"
    else:
        raise UserError("error.forged")
    await lean_api.answer(query, (await tap_texts(service, query)).alert(key))


def make_router() -> Router:
    router = Router(name=__name__)
    router.callback_query.register(lobby_button, LobbyCb.filter())
    return router
