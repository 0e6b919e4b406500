"""Chats and users in PostgreSQL (mixed into :class:`storage.postgres.PgStorage`), as
storage/sqlite/chats.py keeps them for SQLite. The contract is storage/contract.py's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from storage.models import Chat, User
from storage.postgres.instances import PgInstances
from storage.postgres.writes import Conn, sql
from storage.rows import chat_row, dumps, user_row

_T = TypeVar("_T")


class PgChats(PgInstances):
    """The chat and user methods of the PostgreSQL backend."""

    if TYPE_CHECKING:  # provided by storage.postgres.PgStorage

        async def _read(self, body: Callable[[Conn], Awaitable[_T]]) -> _T: ...

        async def _write(self, body: Callable[[Conn], Awaitable[_T]]) -> _T: ...

    # --- chats & users -------------------------------------------------------

    async def upsert_chat(self, chat_id: int, title: str) -> Chat:
        async def body(conn: Conn) -> Chat | None:
            await conn.execute(
                sql(
                    "INSERT INTO chats (id, title) VALUES (?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET title = excluded.title,"
                    " stamp = chats.stamp + (chats.title IS DISTINCT FROM excluded.title)::int"
                ),
                chat_id,
                title,
            )
            return await self._chat(conn, chat_id)

        chat = await self._write(body)
        assert chat is not None
        return chat

    async def get_chat(self, chat_id: int) -> Chat | None:
        async with self._conn() as conn:
            return await self._chat(conn, chat_id)

    async def _chat(self, conn: Conn, chat_id: int) -> Chat | None:
        row = await conn.fetchrow(
            sql("SELECT id, title, language, rules, migrated_to, stamp FROM chats WHERE id = ?"),
            chat_id,
        )
        return None if row is None else chat_row(row)

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        async def body(conn: Conn) -> None:
            await conn.execute(
                sql(
                    "INSERT INTO chats (id, language) VALUES (?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET language = excluded.language,"
                    " stamp = chats.stamp + 1"
                ),
                chat_id,
                language,
            )

        await self._write(body)

    async def set_chat_rules(self, chat_id: int, rules: dict[str, Any]) -> None:
        async def body(conn: Conn) -> None:
            await conn.execute(
                sql(
                    "INSERT INTO chats (id, rules) VALUES (?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET rules = excluded.rules,"
                    " stamp = chats.stamp + 1"
                ),
                chat_id,
                dumps(rules),
            )

        await self._write(body)

    async def upsert_user(
        self, user_id: int, name: str, username: str | None, language: str | None
    ) -> User:
        async def body(conn: Conn) -> User | None:
            await conn.execute(
                sql(
                    "INSERT INTO users (id, name, username, language) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET name = excluded.name,"
                    " username = excluded.username, language = excluded.language"
                ),
                user_id,
                name,
                username,
                language,
            )
            return await self._user(conn, user_id)

        user = await self._write(body)
        assert user is not None
        return user

    async def get_user(self, user_id: int) -> User | None:
        async with self._conn() as conn:
            return await self._user(conn, user_id)

    async def _user(self, conn: Conn, user_id: int) -> User | None:
        row = await conn.fetchrow(
            sql("SELECT id, name, username, language, started FROM users WHERE id = ?"), user_id
        )
        return None if row is None else user_row(row)

    async def set_user_started(self, user_id: int, started: bool) -> None:
        async def body(conn: Conn) -> None:
            await conn.execute(
                sql(
                    "INSERT INTO users (id, name, started) VALUES (?, '', ?)"
                    " ON CONFLICT (id) DO UPDATE SET started = excluded.started"
                ),
                user_id,
                int(started),
            )

        await self._write(body)
