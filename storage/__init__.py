"""SQLite storage (aiosqlite): games, move logs, tallies, messages and the outbox.

The contract with the bot is docs/storage-api.md.
"""

from storage.db import SYNCHRONOUS, Storage
from storage.errors import (
    CorruptRecordError,
    GameExistsError,
    GameNotFoundError,
    NewerDatabaseError,
    StaleVersionError,
    StorageError,
)
from storage.migrations import MIGRATIONS, SCHEMA_VERSION
from storage.models import (
    _UNSET,
    GAME_STATUSES,
    OPEN_STATUSES,
    UNSET,
    Chat,
    Deadline,
    DealStart,
    DealTally,
    Game,
    GameChange,
    LoggedMove,
    MessageRef,
    OutboxItem,
    OutboxOp,
    PlayerRecord,
    Rating,
    Seat,
    SeatResult,
    SeriesEnd,
    SeriesSummary,
    User,
    UserStats,
)

__all__ = [
    "GAME_STATUSES",
    "MIGRATIONS",
    "OPEN_STATUSES",
    "SCHEMA_VERSION",
    "SYNCHRONOUS",
    "UNSET",
    "_UNSET",
    "Chat",
    "CorruptRecordError",
    "Deadline",
    "DealStart",
    "DealTally",
    "Game",
    "GameChange",
    "GameExistsError",
    "GameNotFoundError",
    "LoggedMove",
    "MessageRef",
    "NewerDatabaseError",
    "OutboxItem",
    "OutboxOp",
    "PlayerRecord",
    "Rating",
    "Seat",
    "SeatResult",
    "SeriesEnd",
    "SeriesSummary",
    "StaleVersionError",
    "Storage",
    "StorageError",
    "User",
    "UserStats",
]
