"""Chats and users in SQLite (mixed into :class:`storage.sqlite.Storage`): titles,
languages, a chat's house rules and whether a user has started the bot (so it may DM
them). The contract is storage/contract.py's."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from storage.models import Chat, User
from storage.rows import chat_row, dumps, user_row

_T = TypeVar("_T")


class SqliteChats:
    """The chat and user methods of the SQLite backend."""

    if TYPE_CHECKING:  # provided by storage.sqlite.Storage

        async def _read(self, body: Callable[[sqlite3.Connection], _T]) -> _T: ...

        async def _write(self, body: Callable[[sqlite3.Connection], _T]) -> _T: ...

    # --- chats & users -------------------------------------------------------

    async def upsert_chat(self, chat_id: int, title: str) -> Chat:
        def body(conn: sqlite3.Connection) -> Chat | None:
            conn.execute(
                "INSERT INTO chats (id, title) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET title = excluded.title,"
                " stamp = chats.stamp + (chats.title IS NOT excluded.title)",
                (chat_id, title),
            )
            chat = self._chat(conn, chat_id)
            return chat

        chat = await self._write(body)
        assert chat is not None
        return chat

    async def get_chat(self, chat_id: int) -> Chat | None:
        def body(conn: sqlite3.Connection) -> Chat | None:
            return self._chat(conn, chat_id)

        return await self._read(body)

    def _chat(self, conn: sqlite3.Connection, chat_id: int) -> Chat | None:
        rows = list(
            conn.execute(
                "SELECT id, title, language, rules, migrated_to, stamp FROM chats WHERE id = ?",
                (chat_id,),
            ).fetchall()
        )
        return chat_row(rows[0]) if rows else None

    async def set_chat_language(self, chat_id: int, language: str) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO chats (id, language) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET language = excluded.language,"
                " stamp = chats.stamp + 1",
                (chat_id, language),
            )

        await self._write(body)

    async def set_chat_rules(self, chat_id: int, rules: dict[str, Any]) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO chats (id, rules) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET rules = excluded.rules,"
                " stamp = chats.stamp + 1",
                (chat_id, dumps(rules)),
            )

        await self._write(body)

    async def upsert_user(
        self, user_id: int, name: str, username: str | None, language: str | None
    ) -> User:
        def body(conn: sqlite3.Connection) -> User | None:
            conn.execute(
                "INSERT INTO users (id, name, username, language) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (id) DO UPDATE SET name = excluded.name,"
                " username = excluded.username, language = excluded.language",
                (user_id, name, username, language),
            )
            user = self._user(conn, user_id)
            return user

        user = await self._write(body)
        assert user is not None
        return user

    async def get_user(self, user_id: int) -> User | None:
        def body(conn: sqlite3.Connection) -> User | None:
            return self._user(conn, user_id)

        return await self._read(body)

    def _user(self, conn: sqlite3.Connection, user_id: int) -> User | None:
        rows = list(
            conn.execute(
                "SELECT id, name, username, language, started FROM users WHERE id = ?",
                (user_id,),
            ).fetchall()
        )
        return user_row(rows[0]) if rows else None

    async def set_user_started(self, user_id: int, started: bool) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO users (id, name, started) VALUES (?, '', ?)"
                " ON CONFLICT (id) DO UPDATE SET started = excluded.started",
                (user_id, int(started)),
            )

        await self._write(body)
