"""The registry of games: by name and by record ``format``. A new game registers here;
nothing else outside its own package needs to change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from engine.bura.game import BURA
from engine.burkozel_game import BURKOZEL
from engine.errors import RecordError
from engine.game import Game

GAMES: dict[str, Game[Any]] = {game.name: game for game in (BURKOZEL, BURA)}
BY_FORMAT: dict[str, Game[Any]] = {game.record_format: game for game in GAMES.values()}
# A stored rule set names its game under "game"; Burkozel's rule sets predate the key.
UNNAMED: Final = BURKOZEL.name


def game_named(name: str) -> Game[Any]:
    game = GAMES.get(name)
    if game is None:
        raise ValueError(f"unknown game {name!r} (choose {', '.join(map(repr, GAMES))})")
    return game


def game_of(rules: Mapping[str, Any], record_format: str | None = None) -> str:
    """The name of the game a stored rule set (``{"game": name, ...}``), or else a record's
    ``format``, is for; :data:`UNNAMED` when neither names a registered game."""
    name = rules.get("game")
    if isinstance(name, str) and name in GAMES:
        return name
    game = BY_FORMAT.get(record_format) if record_format is not None else None
    return game.name if game is not None else UNNAMED


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
