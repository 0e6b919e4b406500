"""The registry of games: by name and by record ``format``. A new game registers here;
nothing else outside its own package needs to change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bura.game import BURA
from engine.burkozel.game import BURKOZEL
from engine.errors import RecordError
from engine.game import Game

GAMES: dict[str, Game[Any]] = {game.name: game for game in (BURKOZEL, BURA)}
BY_FORMAT: dict[str, Game[Any]] = {game.record_format: game for game in GAMES.values()}


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
