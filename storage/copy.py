"""Copy a whole database between backends (SQLite <-> PostgreSQL), refusing a non-empty target.

Both ends are opened (and so migrated) with the bot's own code, then every table the two
schemas share is copied column for column, ids included, in one read snapshot and one
write transaction: running games, their move logs, tallies, stats and the pending
outbox survive the switch. Stop the bot before copying (or it writes to the source
after the snapshot).
"""

from __future__ import annotations

import sqlite3
from typing import Any, TypeAlias

from storage.errors import StorageError
from storage.postgres import PgStorage
from storage.sqlite import Storage
from storage.url import parse_database_url

# The copy reads and writes each backend's own tables, so it needs to know which it has.
Backend: TypeAlias = Storage | PgStorage

# Parents before children (foreign keys); tables added later go after these, by name.
ORDER = (
    "chats",
    "users",
    "games",
    "seats",
    "deals",
    "moves",
    "tallies",
    "messages",
    "stats",
    "outbox",
    "updates",
    "series",
    "series_seats",
    "ratings",
    "lobby_watchers",
)
# Bookkeeping of each backend, and PostgreSQL's card selections and players' last taps (a
# moment's taps; SQLite keeps them in the bot's memory).
SKIP = frozenset({"schema_migrations", "sqlite_sequence", "selections", "taps"})

Tables = dict[str, list[str]]  # table -> columns


async def _sqlite_tables(db: Storage) -> Tables:
    def body(conn: sqlite3.Connection) -> Tables:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        # Table names come from the schema itself, not from input.
        return {n: [c[1] for c in conn.execute(f'PRAGMA table_info("{n}")')] for n in names}

    return await db._read(body)


async def _pg_tables(db: PgStorage) -> Tables:
    async with db._pool.acquire() as conn:
        rows = await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        )
    tables: Tables = {}
    for row in rows:
        tables.setdefault(row[0], []).append(row[1])
    return tables


async def _tables(db: Backend) -> Tables:
    tables = await (_sqlite_tables(db) if isinstance(db, Storage) else _pg_tables(db))
    return {name: cols for name, cols in tables.items() if name not in SKIP}


def _ordered(names: set[str]) -> list[str]:
    return [n for n in ORDER if n in names] + sorted(names - set(ORDER))


async def _counts(db: Backend, tables: Tables) -> dict[str, int]:
    if isinstance(db, Storage):

        def body(conn: sqlite3.Connection) -> dict[str, int]:
            return {t: conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}

        return await db._read(body)
    async with db._pool.acquire() as conn:
        return {t: int(await conn.fetchval(f'SELECT COUNT(*) FROM "{t}"')) for t in tables}


async def _read_all(db: Backend, plan: list[tuple[str, list[str]]]) -> dict[str, list[Any]]:
    def select(table: str, cols: list[str]) -> str:
        names = ", ".join(f'"{c}"' for c in cols)
        return f'SELECT {names} FROM "{table}" ORDER BY 1'

    if isinstance(db, Storage):

        def body(conn: sqlite3.Connection) -> dict[str, list[Any]]:
            return {t: conn.execute(select(t, cols)).fetchall() for t, cols in plan}

        return await db._read(body)

    async def pg_body(conn: Any) -> dict[str, list[Any]]:
        return {t: [tuple(r) for r in await conn.fetch(select(t, cols))] for t, cols in plan}

    return await db._read(pg_body)


async def _write_all(
    db: Backend, plan: list[tuple[str, list[str]]], rows: dict[str, list[Any]]
) -> None:
    if isinstance(db, Storage):

        def body(conn: sqlite3.Connection) -> None:
            for table, cols in plan:
                names = ", ".join(f'"{c}"' for c in cols)
                marks = ", ".join("?" for _ in cols)
                conn.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', rows[table])

        await db._write(body)
        return
    async with db._pool.acquire() as conn, conn.transaction():
        types = {
            (r[0], r[1]): r[2]
            for r in await conn.fetch(
                "SELECT table_name, column_name, data_type FROM information_schema.columns"
                " WHERE table_schema = current_schema()"
            )
        }
        for table, cols in plan:
            floats = [types.get((table, c)) in ("double precision", "real") for c in cols]
            records = [
                tuple(
                    float(v) if f and isinstance(v, int) else v
                    for v, f in zip(row, floats, strict=True)
                )
                for row in rows[table]
            ]
            if records:
                await conn.copy_records_to_table(table, records=records, columns=cols)
        # Identity columns carry on after the copied ids.
        for table, column in await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND is_identity = 'YES'"
        ):
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence('\"{table}\"', '{column}'),"
                f' COALESCE((SELECT MAX("{column}") FROM "{table}"), 0) + 1, false)'
            )


async def _open(url: str) -> Backend:
    kind, where = parse_database_url(url)
    return await Storage.open(where) if kind == "sqlite" else await PgStorage.open(where)


async def copy_database(source_url: str, target_url: str) -> dict[str, int]:
    """Copy everything from ``source_url`` into the empty ``target_url``; rows per table."""
    if source_url == target_url:
        raise StorageError("source and target are the same database")
    source = await _open(source_url)
    try:
        target = await _open(target_url)
        try:
            src_tables, dst_tables = await _tables(source), await _tables(target)
            busy = {t: n for t, n in (await _counts(target, dst_tables)).items() if n}
            if busy:
                listed = ", ".join(f"{t} ({n} rows)" for t, n in sorted(busy.items()))
                raise StorageError(f"the target database is not empty: {listed}; nothing copied")
            missing = set(src_tables) - set(dst_tables)
            if missing:
                raise StorageError(
                    f"the target has no table {', '.join(sorted(missing))}: is it an older"
                    " version of the bot? nothing copied"
                )
            plan = [
                (t, [c for c in src_tables[t] if c in dst_tables[t]])
                for t in _ordered(set(src_tables))
            ]
            rows = await _read_all(source, plan)
            await _write_all(target, plan, rows)
            return {t: len(rows[t]) for t, _ in plan}
        finally:
            await target.close()
    finally:
        await source.close()
