"""Duel: a third game that exists only in the test tree, registered through the same two
registries as Burkozel and Bura (``engine.registry``, ``bot.games``) with its texts in its
own catalogues: a new game is its own files and two register calls, nothing more."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot import games as bot_games
from engine import registry
from tests.support.duel.bot import DUEL_BOT
from tests.support.duel.game import DUEL

LOCALES = Path(__file__).with_name("locales")


@contextmanager
def duel_registered() -> Iterator[None]:
    registry.register(DUEL)
    bot_games.register(DUEL_BOT, LOCALES)
    try:
        yield
    finally:
        bot_games.unregister(DUEL.name, LOCALES)
        registry.unregister(DUEL.name)
