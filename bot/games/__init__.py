"""Each game's bot side, found by the stored rules: ``bot_game(game.rules)``.

A game's package (``bot/games/<game>/``: its screens, keyboard, codec, texts and
adapter) implements :class:`bot.games.base.GameSide` and is registered here, beside its
engine side in ``engine.registry``; nothing else in the bot names a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from bot.games.base import BotGame
from bot.games.bura.game import BURA_BOT
from bot.games.burkozel.game import BURKOZEL_BOT
from bot.i18n import add_catalogues, remove_catalogues
from engine.registry import game_of_rules

GAMES: dict[str, BotGame] = {}


def register(game: BotGame, catalogues: Path) -> None:
    """Make ``game``'s bot side known, its texts read from ``catalogues`` (a folder of
    ``<language>.po`` files)."""
    if game.name in GAMES:
        raise ValueError(f"a game named {game.name!r} exists")
    GAMES[game.name] = game
    add_catalogues(catalogues)


def unregister(name: str, catalogues: Path) -> None:
    del GAMES[name]
    remove_catalogues(catalogues)


def bot_game(rules: Mapping[str, object]) -> BotGame:
    """The game a stored rule set is for (``engine.registry.game_of_rules``)."""
    return GAMES[game_of_rules(rules)]


HERE = Path(__file__).parent
register(BURKOZEL_BOT, HERE / "burkozel" / "locales")
register(BURA_BOT, HERE / "bura" / "locales")

__all__ = ["GAMES", "BotGame", "bot_game", "register", "unregister"]
