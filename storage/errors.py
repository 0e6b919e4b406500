"""Errors raised by the storage layer; all derive from :class:`StorageError`."""

from __future__ import annotations

from storage.models import Game


class StorageError(Exception):
    """Base of every error the storage layer raises on purpose."""


class StaleVersionError(StorageError):
    """The game's version is not the one the caller expected; nothing was changed."""


class GameExistsError(StorageError):
    """An open (lobby or playing) game already exists in this chat and thread."""

    def __init__(self, game: Game) -> None:
        super().__init__(
            f"game {game.id} is already {game.status} in chat {game.chat_id}"
            + (f" thread {game.thread_id}" if game.thread_id is not None else "")
        )
        self.game = game


class GameNotFoundError(StorageError, LookupError):
    """No game has this id."""


class NewerDatabaseError(StorageError):
    """The database was written by a newer schema than this code knows; it is left untouched."""


class CorruptRecordError(StorageError):
    """A stored row cannot be decoded into its typed object."""
