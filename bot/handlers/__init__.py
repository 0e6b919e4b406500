"""Routers, one per feature; each handler parses, calls the game service and answers."""

from aiogram import Router

from bot.handlers import errors, group, lobby, play, private, settings, solo, stats


def build_router() -> Router:
    root = Router(name=__name__)
    root.include_routers(
        solo.make_router(),
        private.make_router(),
        group.make_router(),
        lobby.make_router(),
        stats.make_router(),
        settings.make_router(),
        play.make_router(),
        private.make_fallback_router(),
        errors.make_router(),
    )
    return root
