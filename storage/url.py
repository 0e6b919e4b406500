"""``DATABASE_URL``: which backend, and where.

``sqlite:PATH`` (also ``sqlite:///abs/path``) is the embedded default; ``postgresql://``
(or ``postgres://``) URLs go to PostgreSQL through asyncpg.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypeAlias

from storage.contract import Backend
from storage.postgres import PgStorage
from storage.sqlite import Storage

Kind: TypeAlias = Literal["sqlite", "postgresql"]


def parse_database_url(url: str) -> tuple[Kind, str]:
    """``("sqlite", path)`` or ``("postgresql", url)``; ValueError says what is wrong."""
    url = url.strip()
    if url.startswith("sqlite:"):
        path = url.removeprefix("sqlite:")
        if path.startswith("//"):
            path = path[2:]  # sqlite:///abs -> /abs, sqlite://rel -> rel
        if not path:
            raise ValueError("a sqlite: URL needs a file path, e.g. sqlite:burkozel.sqlite3")
        return "sqlite", path
    if url.startswith(("postgresql://", "postgres://")):
        rest = url.split("://", 1)[1]
        if not rest or (rest.startswith("/") and len(rest) == 1):
            raise ValueError("a postgresql:// URL needs a host or a database name")
        return "postgresql", url
    raise ValueError("must be sqlite:PATH or postgresql://user:password@host:port/database")


def sqlite_url(path: str | Path) -> str:
    return f"sqlite:{path}"


async def open_storage(url: str) -> Backend:
    """Open (and migrate) the database ``url`` names. Returned as :class:`Backend`, so
    mypy checks that both backends implement the whole contract."""
    kind, where = parse_database_url(url)
    if kind == "sqlite":
        return await Storage.open(where)
    return await PgStorage.open(where)
