"""Delivery state in PostgreSQL (mixed into :class:`storage.postgres.PgStorage`): the durable
outbox of Bot API calls and the ids of the messages each game owns, as
storage/sqlite/outbox.py keeps them for SQLite. The contract is storage/contract.py's."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from storage.models import MessageRef, OutboxOp, SentOp
from storage.postgres.instances import PgInstances
from storage.postgres.writes import Conn, Params, outbox_insert, rows_touched
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


class PgOutbox(PgInstances):
    """The outbox and game-message methods of the PostgreSQL backend."""

    if TYPE_CHECKING:  # provided by storage.postgres.PgStorage

        async def _write(self, body: Callable[[Conn], Awaitable[_T]]) -> _T: ...

        async def _read(self, body: Callable[[Conn], Awaitable[_T]]) -> _T: ...

    # --- messages the games own ----------------------------------------------

    async def set_message(self, game_id: int, role: str, chat_id: int, message_id: int) -> None:
        p = Params()
        await self._write_one(
            p,
            "INSERT INTO messages (game_id, role, chat_id, message_id)"
            f" VALUES ({p(game_id)}, {p(role)}, {p(chat_id)}, {p(message_id)})"
            " ON CONFLICT (game_id, role) DO UPDATE SET chat_id = excluded.chat_id,"
            " message_id = excluded.message_id",
        )

    async def get_message(self, game_id: int, role: str) -> MessageRef | None:
        async with self._conn() as conn:
            row = await conn.fetchrow(
                "SELECT game_id, role, chat_id, message_id FROM messages"
                " WHERE game_id = $1 AND role = $2",
                game_id,
                role,
            )
        return None if row is None else message_row(row)

    async def game_messages(self, game_id: int) -> list[MessageRef]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT game_id, role, chat_id, message_id FROM messages WHERE game_id = $1"
                " ORDER BY role",
                game_id,
            )
        return [message_row(row) for row in rows]

    async def forget_message(self, game_id: int, role: str) -> None:
        p = Params()
        await self._write_one(
            p, f"DELETE FROM messages WHERE game_id = {p(game_id)} AND role = {p(role)}"
        )

    # --- outbox --------------------------------------------------------------

    async def enqueue(self, ops: tuple[OutboxOp, ...]) -> None:
        p = Params()
        query = outbox_insert(p, ops, time.time(), None)
        if query is not None:
            await self._write_one(p, query)

    async def pending(self, now: float, limit: int = 100) -> list[OutboxItem]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                f"SELECT {OUTBOX_COLUMNS} FROM outbox WHERE not_before <= $1 ORDER BY id LIMIT $2",
                now,
                limit,
            )
        return [outbox_row(row) for row in rows]

    async def outbox_heads(self, limit: int = 10_000) -> list[OutboxItem]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                f"SELECT {OUTBOX_COLUMNS} FROM outbox WHERE id IN"
                " (SELECT MIN(id) FROM outbox GROUP BY chat_id) ORDER BY id LIMIT $1",
                limit,
            )
        return [outbox_row(row) for row in rows]

    async def outbox_turns(
        self, now: float, limit: int, after: tuple[int, int] = FIRST_TURN
    ) -> OutboxTurns:
        turns_query = OUTBOX_TURNS.format(
            now="$1::double precision", rank="$2::int", head_id="$3::bigint", limit="$4::int"
        )
        rank, head_id = after

        async def body(conn: Conn) -> tuple[list[Any], Any]:
            rows = await conn.fetch(turns_query, now, rank, head_id, limit)
            next_due = await conn.fetchval(OUTBOX_NEXT_DUE.format(now="$1"), now)
            return rows, next_due

        return turns_page(*await self._read(body))

    async def outbox_pings(self, chat_ids: Iterable[int], now: float) -> list[OutboxItem]:
        chats = list(chat_ids)
        if not chats:
            return []
        async with self._conn() as conn:
            rows = await conn.fetch(
                f"SELECT {OUTBOX_COLUMNS} FROM outbox WHERE chat_id = ANY($1::bigint[])"
                " AND role LIKE 'ping:%' AND not_before <= $2 ORDER BY id",
                chats,
                now,
            )
        return [outbox_row(row) for row in rows]

    async def outbox_done(
        self, item_id: int, message_id: int | None = None, *, sent: SentOp | None = None
    ) -> None:
        p = Params()
        query = f"DELETE FROM outbox WHERE id = {p(item_id)}"
        if message_id is not None:
            # The message an op sent becomes its game's, in the same statement.
            query = (
                f"WITH done AS ({query} RETURNING chat_id, game_id, role)"
                " INSERT INTO messages (game_id, role, chat_id, message_id)"
                f" SELECT game_id, role, chat_id, {p(message_id)}::bigint FROM done"
                " WHERE game_id IS NOT NULL AND role IS NOT NULL"
                " ON CONFLICT (game_id, role) DO UPDATE SET chat_id = excluded.chat_id,"
                " message_id = excluded.message_id"
            )
        if sent is not None:
            # Logged in the same statement too (a data-modifying WITH always runs).
            logged = (
                "logged AS (INSERT INTO sent_ops (chat_id, at)"
                f" VALUES ({p(sent.chat_id)}::bigint, {p(sent.at)}::double precision))"
            )
            if query.startswith("WITH "):
                query = f"WITH {logged}, {query.removeprefix('WITH ')}"
            else:
                query = f"WITH {logged} {query}"
        await self._write_one(p, query)

    async def outbox_retry(
        self, item_id: int, not_before: float, error: str, *, count_attempt: bool = True
    ) -> None:
        p = Params()
        await self._write_one(
            p,
            f"UPDATE outbox SET attempts = attempts + {p(1 if count_attempt else 0)},"
            f" not_before = {p(not_before)}, last_error = {p(error)} WHERE id = {p(item_id)}",
        )

    async def outbox_reopen(self, chat_id: int, now: float) -> None:
        async def body(conn: Conn) -> None:
            await conn.execute(OUTBOX_SUPERSEDED)
            await conn.execute(OUTBOX_TABLES_RESENT.format(chat="$1"), chat_id)
            await conn.execute(
                "UPDATE outbox SET not_before = $1 WHERE chat_id = $2 AND not_before > $1",
                now,
                chat_id,
            )

        await self._write(body)

    async def outbox_drop_superseded(self) -> int:
        async def body(conn: Conn) -> int:
            return rows_touched(await conn.execute(OUTBOX_SUPERSEDED))

        return await self._write(body)

    async def sent_ops(self, since: float) -> list[SentOp]:
        async with self._conn() as conn:
            rows = await conn.fetch(
                "SELECT chat_id, at FROM sent_ops WHERE at > $1 ORDER BY at", since
            )
        return [SentOp(int(row[0]), float(row[1])) for row in rows]

    async def log_sent_ops(self, ops: Iterable[SentOp]) -> None:
        rows = [(op.chat_id, op.at) for op in ops]
        if rows:
            chats, times = (list(column) for column in zip(*rows, strict=True))
            p = Params()
            await self._write_one(
                p,
                "INSERT INTO sent_ops (chat_id, at)"
                f" SELECT * FROM unnest({p(chats)}::bigint[], {p(times)}::double precision[])",
            )

    async def prune_sent_ops(self, before: float) -> int:
        async def body(conn: Conn) -> int:
            return rows_touched(await conn.execute("DELETE FROM sent_ops WHERE at < $1", before))

        return await self._write(body)

    async def outbox_size(self) -> int:
        async with self._conn() as conn:
            return int(await conn.fetchval("SELECT COUNT(*) FROM outbox"))

    async def outbox_oldest(self) -> float | None:
        """When the oldest pending outbox row was queued (for /metrics)."""
        async with self._conn() as conn:
            value = await conn.fetchval("SELECT MIN(created_at) FROM outbox")
        return None if value is None else float(value)
