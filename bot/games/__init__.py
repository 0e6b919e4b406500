"""Each game's bot side, found by the stored rules: ``bot_game(game.rules)``.

A game's package (``bot/games/<game>/``: its buttons, its texts, its table and hand
drawing) implements :class:`bot.games.base.BotGame` and is registered here, beside its
engine side in ``engine.registry``; nothing else in the bot names a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.games.base import BotGame
from bot.games.bura.game import BURA
from bot.games.burkozel.game import BURKOZEL
from engine.registry import game_of_rules

GAMES: dict[str, BotGame] = {}


def register(game: BotGame) -> None:
    if game.name in GAMES:
        raise ValueError(f"a game named {game.name!r} exists")
    GAMES[game.name] = game


def unregister(name: str) -> None:
    del GAMES[name]


def bot_game(rules: Mapping[str, Any]) -> BotGame:
    """The game a stored rule set is for (``engine.registry.game_of_rules``)."""
    return GAMES[game_of_rules(rules)]


register(BURKOZEL)
register(BURA)

__all__ = ["GAMES", "BotGame", "bot_game", "register", "unregister"]
