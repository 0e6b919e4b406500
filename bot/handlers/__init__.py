"""Routers, one per feature; each handler parses, calls the game service and answers."""

from aiogram import Router

from bot.handlers import errors, group, lobby, play, private


def build_router() -> Router:
    root = Router(name=__name__)
    root.include_routers(private.router, group.router, lobby.router, play.router, errors.router)
    return root
