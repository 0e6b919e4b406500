"""Delivery state in SQLite (mixed into :class:`storage.sqlite.Storage`): the durable outbox
of Bot API calls and the ids of the messages each game owns (its table per deal, each
hand), which later outbox rows edit. The contract is storage/contract.py's."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from storage.games import write_outbox
from storage.jobs import Job
from storage.models import MessageRef, OutboxOp, SentOp
from storage.rows import (
    FIRST_TURN,
    OUTBOX_COLUMNS,
    OUTBOX_NEXT_DUE,
    OUTBOX_SUPERSEDED,
    OUTBOX_TABLES_RESENT,
    OUTBOX_TURNS,
    OutboxItem,
    OutboxTurns,
    message_row,
    outbox_row,
    turns_page,
)

_T = TypeVar("_T")


class SqliteOutbox:
    """The outbox and game-message methods of the SQLite backend."""

    if TYPE_CHECKING:  # provided by storage.sqlite.Storage

        async def _read(self, body: Callable[[sqlite3.Connection], _T]) -> _T: ...

        async def _write(self, body: Callable[[sqlite3.Connection], _T]) -> _T: ...

        async def _run_job(self, job: Job[_T], *, write: bool) -> _T: ...

    # --- messages the games own ----------------------------------------------

    async def set_message(self, game_id: int, role: str, chat_id: int, message_id: int) -> None:
        def body(conn: sqlite3.Connection) -> None:
            self._set_message(conn, game_id, role, chat_id, message_id)

        await self._write(body)

    def _set_message(
        self, conn: sqlite3.Connection, game_id: int, role: str, chat_id: int, message_id: int
    ) -> None:
        conn.execute(
            "INSERT INTO messages (game_id, role, chat_id, message_id) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (game_id, role) DO UPDATE SET chat_id = excluded.chat_id,"
            " message_id = excluded.message_id",
            (game_id, role, chat_id, message_id),
        )

    async def get_message(self, game_id: int, role: str) -> MessageRef | None:
        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = list(
                conn.execute(
                    "SELECT game_id, role, chat_id, message_id FROM messages"
                    " WHERE game_id = ? AND role = ?",
                    (game_id, role),
                ).fetchall()
            )
            return rows

        rows = await self._read(body)
        return message_row(rows[0]) if rows else None

    async def game_messages(self, game_id: int) -> list[MessageRef]:
        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = conn.execute(
                "SELECT game_id, role, chat_id, message_id FROM messages WHERE game_id = ?"
                " ORDER BY role",
                (game_id,),
            ).fetchall()
            return rows

        rows = await self._read(body)
        return [message_row(row) for row in rows]

    async def forget_message(self, game_id: int, role: str) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM messages WHERE game_id = ? AND role = ?", (game_id, role))

        await self._write(body)

    # --- outbox --------------------------------------------------------------

    async def enqueue(self, ops: tuple[OutboxOp, ...]) -> None:
        await self._run_job(write_outbox(ops, time.time()), write=True)

    async def pending(self, now: float, limit: int = 100) -> list[OutboxItem]:
        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = conn.execute(
                f"SELECT {OUTBOX_COLUMNS} FROM outbox WHERE not_before <= ? ORDER BY id LIMIT ?",
                (now, limit),
            ).fetchall()
            return rows

        rows = await self._read(body)
        return [outbox_row(row) for row in rows]

    async def outbox_heads(self, limit: int = 10_000) -> list[OutboxItem]:
        """The oldest row of each chat, due or not, oldest first (a restarted sender
        counts each due one as possibly in flight when its predecessor stopped)."""

        def body(conn: sqlite3.Connection) -> list[Any]:
            rows = conn.execute(
                f"SELECT {OUTBOX_COLUMNS} FROM outbox WHERE id IN"
                " (SELECT MIN(id) FROM outbox GROUP BY chat_id) ORDER BY id LIMIT ?",
                (limit,),
            ).fetchall()
            return rows

        rows = await self._read(body)
        return [outbox_row(row) for row in rows]

    async def outbox_turns(
        self, now: float, limit: int, after: tuple[int, int] = FIRST_TURN
    ) -> OutboxTurns:
        turns_query = OUTBOX_TURNS.format(
            now=":now", rank=":rank", head_id=":head_id", limit=":limit"
        )
        rank, head_id = after
        params = {"now": now, "rank": rank, "head_id": head_id, "limit": limit}

        def body(conn: sqlite3.Connection) -> tuple[list[Any], Any]:
            rows = conn.execute(turns_query, params).fetchall()
            ((next_due,),) = conn.execute(OUTBOX_NEXT_DUE.format(now="?"), (now,)).fetchall()
            return rows, next_due

        return turns_page(*await self._read(body))

    async def outbox_pings(self, chat_ids: Iterable[int], now: float) -> list[OutboxItem]:
        chats = list(chat_ids)
        marks = ", ".join("?" * len(chats))

        def body(conn: sqlite3.Connection) -> list[Any]:
            return conn.execute(
                f"SELECT {OUTBOX_COLUMNS} FROM outbox WHERE chat_id IN ({marks})"
                " AND role LIKE 'ping:%' AND not_before <= ? ORDER BY id",
                (*chats, now),
            ).fetchall()

        rows = await self._read(body) if chats else []
        return [outbox_row(row) for row in rows]

    async def outbox_done(
        self, item_id: int, message_id: int | None = None, *, sent: SentOp | None = None
    ) -> None:
        """Delete a delivered row; a game message's new id is recorded in the same transaction.

        Recording happens only for rows with a game and a role and when ``message_id``
        is given, so a crash between the two can never leave a sent message unrecorded.
        ``sent``: the operation Telegram took, logged for :meth:`sent_ops` (even when a
        newer edit superseded the row while it was in flight).
        """

        def body(conn: sqlite3.Connection) -> None:
            if sent is not None:
                conn.execute(
                    "INSERT INTO sent_ops (chat_id, at) VALUES (?, ?)", (sent.chat_id, sent.at)
                )
            rows = list(
                conn.execute(
                    "DELETE FROM outbox WHERE id = ? RETURNING chat_id, game_id, role",
                    (item_id,),
                ).fetchall()
            )
            if not rows:
                return  # already done (e.g. a retried worker): nothing to record twice
            chat_id, game_id, role = rows[0]
            if message_id is not None and game_id is not None and role is not None:
                self._set_message(conn, game_id, role, chat_id, message_id)

        await self._write(body)

    async def outbox_retry(
        self, item_id: int, not_before: float, error: str, *, count_attempt: bool = True
    ) -> None:
        """Put an item back until ``not_before``. A flood wait is Telegram pacing us, not a
        failure, so the caller passes ``count_attempt=False`` for it."""

        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE outbox SET attempts = attempts + ?, not_before = ?, last_error = ?"
                " WHERE id = ?",
                (1 if count_attempt else 0, not_before, error, item_id),
            )

        await self._write(body)

    async def outbox_drop_superseded(self) -> int:
        """Drop pending edits of a game message that a newer pending edit replaces (any
        newer one; for an edit with a milestone, one showing the same milestone)."""

        def body(conn: sqlite3.Connection) -> int:
            cursor = conn.execute(OUTBOX_SUPERSEDED)
            return cursor.rowcount

        return await self._write(body)

    async def outbox_reopen(self, chat_id: int, now: float) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(OUTBOX_SUPERSEDED)
            conn.execute(OUTBOX_TABLES_RESENT.format(chat="?"), (chat_id,))
            conn.execute(
                "UPDATE outbox SET not_before = ? WHERE chat_id = ? AND not_before > ?",
                (now, chat_id, now),
            )

        await self._write(body)

    async def sent_ops(self, since: float) -> list[SentOp]:
        """The operations logged by :meth:`outbox_done` after ``since``, oldest first."""
        rows = await self._read(
            lambda conn: conn.execute(
                "SELECT chat_id, at FROM sent_ops WHERE at > ? ORDER BY at", (since,)
            ).fetchall()
        )
        return [SentOp(int(chat_id), float(at)) for chat_id, at in rows]

    async def log_sent_ops(self, ops: Iterable[SentOp]) -> None:
        """Log operations Telegram may have taken without :meth:`outbox_done` (in flight
        when the previous sender died)."""
        rows = [(op.chat_id, op.at) for op in ops]

        def body(conn: sqlite3.Connection) -> None:
            conn.executemany("INSERT INTO sent_ops (chat_id, at) VALUES (?, ?)", rows)

        if rows:
            await self._write(body)

    async def prune_sent_ops(self, before: float) -> int:
        """Forget the operations logged before ``before``; returns how many."""

        def body(conn: sqlite3.Connection) -> int:
            return conn.execute("DELETE FROM sent_ops WHERE at < ?", (before,)).rowcount

        return await self._write(body)

    async def outbox_size(self) -> int:
        def body(conn: sqlite3.Connection) -> Any:
            (row,) = conn.execute("SELECT COUNT(*) FROM outbox").fetchall()
            return row

        row = await self._read(body)
        return int(row[0])

    async def outbox_oldest(self) -> float | None:
        """When the oldest pending outbox row was queued (for /metrics)."""
        rows = await self._read(
            lambda conn: conn.execute("SELECT MIN(created_at) FROM outbox").fetchall()
        )
        return None if rows[0][0] is None else float(rows[0][0])
