"""Each game's bot side, found by the stored rules: ``bot_game(game.rules)``.

A game's module (its buttons, its texts, its table and hand drawing) implements
:class:`bot.games.base.BotGame`; adding a game is adding its module and one line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.games.base import BotGame
from bot.games.bura import BURA
from bot.games.burkozel import BURKOZEL
from engine.games import game_of

GAMES: dict[str, BotGame] = {game.name: game for game in (BURKOZEL, BURA)}


def bot_game(rules: Mapping[str, Any]) -> BotGame:
    """The game a stored rule set is for (told apart as ``engine.games.game_of`` does)."""
    return GAMES[game_of(rules)]


__all__ = ["GAMES", "BotGame", "bot_game"]
