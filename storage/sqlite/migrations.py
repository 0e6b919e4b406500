"""The schema as a numbered, append-only list of migrations.

Never edit or reorder a migration that has shipped: add a new one at the end. Each
migration is a tuple of single SQL statements (not a script) because
``sqlite3.executescript`` would COMMIT behind our back and break the rule that a
migration and its bookkeeping row land in one transaction.
"""

from __future__ import annotations

import time
from typing import Final

import aiosqlite

from storage.errors import NewerDatabaseError

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    # 1: the initial schema.
    (
        """
        CREATE TABLE chats (
            id          INTEGER PRIMARY KEY,
            title       TEXT    NOT NULL DEFAULT '',
            language    TEXT,
            rules       TEXT    NOT NULL DEFAULT '{}',
            migrated_to INTEGER
        )
        """,
        """
        CREATE TABLE users (
            id       INTEGER PRIMARY KEY,
            name     TEXT    NOT NULL,
            username TEXT,
            language TEXT,
            started  INTEGER NOT NULL DEFAULT 0 CHECK (started IN (0, 1))
        )
        """,
        # No foreign key from games.chat_id to chats: the bot may open a lobby before it
        # has ever recorded the chat's title, and a migrated chat keeps its old row.
        """
        CREATE TABLE games (
            id                 INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id            INTEGER NOT NULL,
            thread_id          INTEGER,
            status             TEXT    NOT NULL CHECK (
                status IN ('lobby', 'playing', 'finished', 'cancelled', 'abandoned')),
            rules              TEXT    NOT NULL,
            version            INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
            created_by         INTEGER NOT NULL,
            created_at         REAL    NOT NULL,
            updated_at         REAL    NOT NULL,
            first_dealer       INTEGER,
            deadline_seat      INTEGER,
            deadline_due_at    REAL,
            deadline_remind_at REAL,
            deadline_reminded  INTEGER NOT NULL DEFAULT 0,
            lobby_expires_at   REAL,
            winners            TEXT
        )
        """,
        # One open game per (chat, forum topic). NULL thread ids would never collide in a
        # plain UNIQUE index, so the index folds them to 0 (Telegram topic ids are > 0).
        """
        CREATE UNIQUE INDEX games_one_open_per_thread
            ON games (chat_id, COALESCE(thread_id, 0))
            WHERE status IN ('lobby', 'playing')
        """,
        # Finished games pile up forever; the pollers must only ever touch open ones.
        "CREATE INDEX games_open ON games (status) WHERE status IN ('lobby', 'playing')",
        "CREATE INDEX games_open_deadline ON games (deadline_due_at) WHERE status = 'playing'",
        """
        CREATE INDEX games_open_reminder ON games (deadline_remind_at)
            WHERE status = 'playing' AND deadline_reminded = 0
        """,
        "CREATE INDEX games_lobby_expiry ON games (lobby_expires_at) WHERE status = 'lobby'",
        "CREATE INDEX games_by_chat ON games (chat_id)",
        """
        CREATE TABLE seats (
            game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seat       INTEGER NOT NULL CHECK (seat >= 0),
            user_id    INTEGER,
            bot_level  TEXT,
            name       TEXT    NOT NULL,
            away       INTEGER NOT NULL DEFAULT 0,
            autoplayed INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (game_id, seat)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX seats_by_user ON seats (user_id) WHERE user_id IS NOT NULL",
        """
        CREATE TABLE deals (
            game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            deal_index INTEGER NOT NULL CHECK (deal_index >= 0),
            dealer     INTEGER NOT NULL,
            deck       TEXT    NOT NULL,
            PRIMARY KEY (game_id, deal_index)
        ) WITHOUT ROWID
        """,
        # The move log: one row per commit that carried a move, keyed by the version the
        # commit produced, so a replayed or duplicated commit cannot log a move twice.
        """
        CREATE TABLE moves (
            game_id    INTEGER NOT NULL,
            version    INTEGER NOT NULL,
            deal_index INTEGER NOT NULL,
            move       TEXT    NOT NULL,
            PRIMARY KEY (game_id, version),
            FOREIGN KEY (game_id, deal_index) REFERENCES deals (game_id, deal_index)
                ON DELETE CASCADE
        ) WITHOUT ROWID
        """,
        "CREATE INDEX moves_by_deal ON moves (game_id, deal_index)",
        """
        CREATE TABLE tallies (
            game_id    INTEGER NOT NULL,
            deal_index INTEGER NOT NULL,
            points     TEXT    NOT NULL,
            penalties  TEXT    NOT NULL,
            PRIMARY KEY (game_id, deal_index),
            FOREIGN KEY (game_id, deal_index) REFERENCES deals (game_id, deal_index)
                ON DELETE CASCADE
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE messages (
            game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            role       TEXT    NOT NULL,
            chat_id    INTEGER NOT NULL,
            message_id INTEGER NOT NULL,
            PRIMARY KEY (game_id, role)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX messages_by_chat ON messages (chat_id)",
        """
        CREATE TABLE stats (
            chat_id       INTEGER NOT NULL,
            user_id       INTEGER NOT NULL,
            name          TEXT    NOT NULL DEFAULT '',
            series_played INTEGER NOT NULL DEFAULT 0,
            series_won    INTEGER NOT NULL DEFAULT 0,
            deals_played  INTEGER NOT NULL DEFAULT 0,
            penalties     INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (chat_id, user_id)
        ) WITHOUT ROWID
        """,
        # game_id has no foreign key: the outbox is a delivery queue and must accept (and
        # keep) a row even for a game it has no business validating.
        """
        CREATE TABLE outbox (
            id         INTEGER PRIMARY KEY AUTOINCREMENT,
            chat_id    INTEGER NOT NULL,
            method     TEXT    NOT NULL CHECK (method IN ('send', 'edit', 'delete')),
            payload    TEXT    NOT NULL,
            game_id    INTEGER,
            role       TEXT,
            attempts   INTEGER NOT NULL DEFAULT 0,
            not_before REAL    NOT NULL,
            created_at REAL    NOT NULL,
            last_error TEXT
        )
        """,
        "CREATE INDEX outbox_due ON outbox (not_before)",
        "CREATE INDEX outbox_by_game_role ON outbox (game_id, role) WHERE game_id IS NOT NULL",
    ),
    # 2: series results, ratings, per-chat picture switch and stats reset, lobby watchers.
    # Plain SQL that PostgreSQL also accepts.
    (
        "ALTER TABLE chats ADD COLUMN pictures INTEGER NOT NULL DEFAULT 1",
        # /resetstats: series finished before this moment no longer count in the chat's
        # stats (the records themselves are kept).
        "ALTER TABLE chats ADD COLUMN stats_reset_at REAL NOT NULL DEFAULT 0",
        """
        CREATE TABLE series (
            game_id     INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
            chat_id     INTEGER NOT NULL,
            game        TEXT    NOT NULL,
            finished_at REAL    NOT NULL,
            deals       INTEGER NOT NULL CHECK (deals >= 0),
            teams       TEXT    NOT NULL DEFAULT 'none'
        )
        """,
        "CREATE INDEX series_by_chat ON series (chat_id, finished_at)",
        # One row per seat of a finished series: everything /stats adds up.
        """
        CREATE TABLE series_seats (
            game_id            INTEGER NOT NULL REFERENCES series (game_id) ON DELETE CASCADE,
            seat               INTEGER NOT NULL CHECK (seat >= 0),
            user_id            INTEGER,
            bot_level          TEXT,
            name               TEXT    NOT NULL,
            team               INTEGER NOT NULL,
            place              INTEGER NOT NULL CHECK (place >= 0),
            won                INTEGER NOT NULL CHECK (won IN (0, 1)),
            deals              INTEGER NOT NULL,
            points             INTEGER NOT NULL,
            penalties          INTEGER NOT NULL,
            best_deal          INTEGER NOT NULL,
            declarations_true  INTEGER NOT NULL DEFAULT 0,
            declarations_false INTEGER NOT NULL DEFAULT 0,
            combinations       INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (game_id, seat)
        )
        """,
        "CREATE INDEX series_seats_by_user ON series_seats (user_id) WHERE user_id IS NOT NULL",
        # Openskill (Plackett-Luce) ratings per chat and game; player is 'u<user id>' or
        # 'ai:<level>' (computer players are rated too).
        """
        CREATE TABLE ratings (
            chat_id INTEGER NOT NULL,
            game    TEXT    NOT NULL,
            player  TEXT    NOT NULL,
            name    TEXT    NOT NULL,
            mu      REAL    NOT NULL,
            sigma   REAL    NOT NULL,
            series  INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (chat_id, game, player)
        )
        """,
        # /notify: users to tell in DM when the next lobby opens in a chat.
        """
        CREATE TABLE lobby_watchers (
            chat_id    INTEGER NOT NULL,
            user_id    INTEGER NOT NULL,
            created_at REAL    NOT NULL,
            PRIMARY KEY (chat_id, user_id)
        )
        """,
    ),
    # 3: Telegram updates already handled (webhook re-deliveries are dropped; storage/updates.py).
    (
        """
        CREATE TABLE updates (
            update_id  INTEGER PRIMARY KEY,
            handled_at REAL    NOT NULL
        )
        """,
        "CREATE INDEX updates_by_time ON updates (handled_at)",
    ),
    # 4: a chat's stamp, bumped by every change of its title, language or settings (as
    # PostgreSQL's migration 4, where instances check their cached games against it).
    ("ALTER TABLE chats ADD COLUMN stamp INTEGER NOT NULL DEFAULT 0",),
    # 5: the version of a game's last change of more than its deadline (Game.state_version):
    # a keyboard drawn since is current, so a reminder does not make it out of date. Games
    # already stored count from their version (their older keyboards stay out of date).
    (
        "ALTER TABLE games ADD COLUMN state_version INTEGER NOT NULL DEFAULT 0",
        "UPDATE games SET state_version = version",
    ),
    # 6: what an outbox edit shows that its reader must see (OutboxOp.milestone: a finished
    # trick, R8): only a newer edit showing the same replaces it. Rows queued before: none.
    ("ALTER TABLE outbox ADD COLUMN milestone TEXT",),
    # 7: the operations Telegram took in the last minute or so (sends, edits, deletes), by
    # chat: a restarted sender rebuilds its per-chat and bot-wide pacing from them, since
    # Telegram's windows outlive the process. Rows older than a minute are
    # pruned by the sender; an existing database starts with none.
    (
        """
        CREATE TABLE sent_ops (
            chat_id INTEGER NOT NULL,
            at      REAL    NOT NULL
        )
        """,
        "CREATE INDEX sent_ops_by_time ON sent_ops (at)",
    ),
    # 8: the outbox by chat, for the sender's turns (storage/rows.py OUTBOX_TURNS: each
    # chat's head and oldest due answer without sorting the whole outbox nor reading its
    # rows: the index holds all that query reads, the row id included).
    ("CREATE INDEX outbox_by_chat ON outbox (chat_id, not_before, game_id)",),
)

SCHEMA_VERSION: Final = len(MIGRATIONS)
"""The schema version this code writes: migration N is the N-th entry (1-based)."""

BOOKKEEPING: Final = """
    CREATE TABLE IF NOT EXISTS schema_migrations (
        version    INTEGER PRIMARY KEY,
        applied_at REAL    NOT NULL
    )
"""


async def schema_version(conn: aiosqlite.Connection) -> int:
    """The highest migration recorded in the file, 0 for a new or foreign file."""
    rows = list(
        await conn.execute_fetchall(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        )
    )
    recorded = 0
    if rows:
        (row,) = await conn.execute_fetchall(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations"
        )
        recorded = int(row[0])
    # user_version is kept in step too, so a newer schema is noticed even if a future
    # migration ever rebuilt the bookkeeping table.
    (uv,) = await conn.execute_fetchall("PRAGMA user_version")
    return max(recorded, int(uv[0]))


def refuse_newer(found: int, path: object) -> None:
    if found > SCHEMA_VERSION:
        raise NewerDatabaseError(
            f"database {path} has schema version {found} but this bot only knows up to "
            f"{SCHEMA_VERSION}; it was written by a newer version of the bot. Upgrade the bot "
            "(or restore a backup) — the file was left untouched."
        )


async def migrate(conn: aiosqlite.Connection, path: object) -> list[int]:
    """Apply every migration the file lacks; returns the numbers applied (empty on re-run).

    Each migration runs with its bookkeeping row inside one ``BEGIN IMMEDIATE``
    transaction, and the version is re-read inside it, so two processes opening the
    same new file at once cannot both apply a migration.
    """
    applied: list[int] = []
    await conn.execute(BOOKKEEPING)
    for number, statements in enumerate(MIGRATIONS, start=1):
        await conn.execute("BEGIN IMMEDIATE")
        try:
            current = await schema_version(conn)
            refuse_newer(current, path)
            if current >= number:
                await conn.execute("ROLLBACK")
                continue
            for statement in statements:
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                (number, time.time()),
            )
            # PRAGMA takes no parameters; `number` is an int from this module, not input.
            await conn.execute(f"PRAGMA user_version = {int(number)}")
            await conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                await conn.execute("ROLLBACK")
            raise
        applied.append(number)
    return applied
