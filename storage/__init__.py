"""Storage: games, move logs, tallies, messages and the outbox.

SQLite (aiosqlite, the embedded default) or PostgreSQL (asyncpg, several instances),
chosen by URL (storage/url.py). The contract with the bot is docs/storage-api.md.
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
    GameState,
    LoggedMove,
    MessageRef,
    OutboxItem,
    OutboxOp,
    PlayerRecord,
    Rating,
    Seat,
    SeatResult,
    SentOp,
    SeriesEnd,
    SeriesSummary,
    User,
    UserStats,
)
from storage.pg import PgStorage
from storage.updates import CURRENT_UPDATE, DuplicateUpdateError, UpdateClaim
from storage.url import Backend, open_storage, parse_database_url

__all__ = [
    "CURRENT_UPDATE",
    "GAME_STATUSES",
    "MIGRATIONS",
    "OPEN_STATUSES",
    "SCHEMA_VERSION",
    "SYNCHRONOUS",
    "UNSET",
    "_UNSET",
    "Backend",
    "Chat",
    "CorruptRecordError",
    "Deadline",
    "DealStart",
    "DealTally",
    "DuplicateUpdateError",
    "Game",
    "GameChange",
    "GameExistsError",
    "GameNotFoundError",
    "GameState",
    "LoggedMove",
    "MessageRef",
    "NewerDatabaseError",
    "OutboxItem",
    "OutboxOp",
    "PgStorage",
    "PlayerRecord",
    "Rating",
    "Seat",
    "SeatResult",
    "SentOp",
    "SeriesEnd",
    "SeriesSummary",
    "StaleVersionError",
    "Storage",
    "StorageError",
    "UpdateClaim",
    "User",
    "UserStats",
    "open_storage",
    "parse_database_url",
]
