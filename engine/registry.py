"""The registry of games: by name and by record ``format``. A new game is its own package
(``engine/<game>/``) and one ``register`` call; nothing else in the engine changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bura.game import BURA
from engine.burkozel.game import BURKOZEL
from engine.errors import RecordError
from engine.game import Game

GAMES: dict[str, Game[Any]] = {}
BY_FORMAT: dict[str, Game[Any]] = {}
# The game a stored rule set names when it names none: Burkozel's rule sets were stored
# before there was another game, without a ``"game"`` key (every other game has one).
DEFAULT_GAME = "burkozel"


def register(game: Game[Any]) -> None:
    """Make ``game`` known by its name, its ``/newgame`` aliases and its record format."""
    taken = set(GAMES) | {a for g in GAMES.values() for a in g.aliases}
    if game.name in taken or game.record_format in BY_FORMAT:
        raise ValueError(f"a game named {game.name!r} or writing {game.record_format!r} exists")
    GAMES[game.name] = game
    BY_FORMAT[game.record_format] = game


def unregister(name: str) -> None:
    game = GAMES.pop(name)
    del BY_FORMAT[game.record_format]


def game_of_rules(rules: Mapping[str, Any]) -> str:
    """The game a stored rule set (``{"game": name, switch: value...}``) is for."""
    name = rules.get("game", DEFAULT_GAME)
    return name if isinstance(name, str) else DEFAULT_GAME


def stored_rules(game: str, switches: Mapping[str, object]) -> dict[str, Any]:
    """A game's switches as stored with a game: naming the game, but for the default."""
    return dict(switches) if game == DEFAULT_GAME else {"game": game, **switches}


def game_by_alias(name: str) -> Game[Any] | None:
    """The game ``/newgame NAME`` means: by its name or one of its aliases, any case."""
    wanted = name.casefold()
    for game in GAMES.values():
        if wanted == game.name or wanted in game.aliases:
            return game
    return None


register(BURKOZEL)
register(BURA)


def game_named(name: str) -> Game[Any]:
    game = GAMES.get(name)
    if game is None:
        raise ValueError(f"unknown game {name!r} (choose {', '.join(map(repr, GAMES))})")
    return game


def game_for_record(record: object) -> Game[Any]:
    """The game a record belongs to, told apart by its ``format``."""
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    game = BY_FORMAT.get(record.get("format"))  # type: ignore[arg-type]
    if game is None:
        formats = " or ".join(repr(f) for f in BY_FORMAT)
        raise RecordError(f"format must be {formats}")
    return game


def replay_json(record: object) -> dict[str, Any]:
    """Replay any registered game's record; the CLI prints what this returns."""
    return game_for_record(record).replay_json(record)
