"""Shared fixtures: a throw-away PostgreSQL server for the tests that need one.

Started once per session (tests/support/pg_cluster.py). Where none can be started, those tests
are skipped and the reason is printed in the summary: never silently passed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import asyncpg
import pytest

from storage import Backend, open_storage
from tests.support.pg_cluster import Cluster, Unavailable, start_cluster

_unavailable: list[str] = []


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if _unavailable:
        pytest.skip(f"PostgreSQL tests skipped: {_unavailable[0]}")
    try:
        cluster = start_cluster()
    except (Unavailable, OSError) as exc:
        _unavailable.append(str(exc))
        pytest.skip(f"PostgreSQL tests skipped: {exc}")
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def pg_shared_url(pg_cluster: Cluster) -> Iterator[str]:
    """One database for the storage contract tests, emptied before each test."""
    # Its own thread and loop: a session fixture may be first asked for inside a test's loop.
    with ThreadPoolExecutor(1) as pool:
        url = pool.submit(asyncio.run, pg_cluster.new_database()).result()
    yield url


@pytest.fixture
async def pg_url(pg_cluster: Cluster) -> AsyncIterator[str]:
    """A fresh database of its own (for tests that run bots or copy databases)."""
    url = await pg_cluster.new_database()
    yield url
    await pg_cluster.drop_database(url)


@pytest.fixture(params=["sqlite", "postgresql"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    """The storage contract: every backend behind the same methods (a fresh SQLite file,
    or the shared PostgreSQL database emptied)."""
    if request.param == "sqlite":
        url = f"sqlite:{tmp_path / 'bot.sqlite3'}"
    else:
        url = request.getfixturevalue("pg_shared_url")
        await empty_pg(url)
    storage = await open_storage(url)
    yield storage
    await storage.close()


async def empty_pg(url: str) -> None:
    """Delete every row (ids restart at 1) but keep the schema."""
    conn = await asyncpg.connect(url)
    try:
        tables = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
            " AND tablename <> 'schema_migrations'"
        )
        if tables:
            names = ", ".join(f'"{t[0]}"' for t in tables)
            await conn.execute(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
    finally:
        await conn.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _unavailable:
        terminalreporter.write_sep("!", "PostgreSQL tests SKIPPED", red=True, bold=True)
        terminalreporter.write_line(_unavailable[0], red=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """In CI (``CI`` set) a skipped browser test fails the run: the Mini App's tests must run
    there for real, not hide behind a missing Chromium or Playwright."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("CI") and item.get_closest_marker("browser"):
        report.outcome = "failed"
        report.longrepr = f"browser test skipped in CI: {call.excinfo and call.excinfo.value}"
