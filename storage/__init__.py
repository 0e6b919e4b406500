"""Storage: games, move logs, tallies, messages and the outbox.

The contract with the bot is :class:`storage.contract.Backend`; two packages implement
it, SQLite (:mod:`storage.sqlite`, aiosqlite, the embedded default) and PostgreSQL
(:mod:`storage.postgres`, asyncpg, several instances), chosen by URL (storage/url.py).
"""

from storage.contract import Backend
from storage.errors import (
    CorruptRecordError,
    GameExistsError,
    GameNotFoundError,
    NewerDatabaseError,
    StaleVersionError,
    StorageError,
)
from storage.models import (
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
    OutboxOp,
    PlayerRecord,
    Rating,
    Seat,
    SeatOutcome,
    SeatResult,
    SentOp,
    SeriesEnd,
    SeriesSummary,
    Skill,
    User,
    UserStats,
)
from storage.postgres import PgStorage
from storage.rows import OutboxItem
from storage.sqlite import SYNCHRONOUS, Storage
from storage.sqlite.migrations import MIGRATIONS, SCHEMA_VERSION
from storage.updates import CURRENT_UPDATE, DuplicateUpdateError, UpdateClaim
from storage.url import open_storage, parse_database_url

__all__ = [
    "CURRENT_UPDATE",
    "GAME_STATUSES",
    "MIGRATIONS",
    "OPEN_STATUSES",
    "SCHEMA_VERSION",
    "SYNCHRONOUS",
    "UNSET",
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
    "SeatOutcome",
    "SeatResult",
    "SentOp",
    "SeriesEnd",
    "SeriesSummary",
    "Skill",
    "StaleVersionError",
    "Storage",
    "StorageError",
    "UpdateClaim",
    "User",
    "UserStats",
    "open_storage",
    "parse_database_url",
]
