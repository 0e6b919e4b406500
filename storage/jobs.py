"""Transactions written once for both backends, as *jobs*.

A job is a generator that yields the statements of one transaction (:class:`Step`, SQL
with ``?`` placeholders, plain enough for SQLite and PostgreSQL alike) and is sent back
each statement's rows. Deciding what to run next and decoding rows is pure code in the
job; a backend only runs the steps, on its own connection and inside its own transaction
(``run_job`` in storage/sqlite/games.py and storage/postgres/writes.py, ``_run_job`` of
each backend class). storage/records.py writes its operations this way.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias, TypeVar

_T = TypeVar("_T")


@dataclass(frozen=True)
class Step:
    """One parameterised statement; ``many``: ``params`` is a list of parameter rows."""

    sql: str
    params: Sequence[Any] = ()
    many: bool = False


Rows: TypeAlias = list[Sequence[Any]]
# Yields the statements of one transaction, is sent each one's rows ([] for `many`).
Job: TypeAlias = Generator[Step, Rows, _T]


def query(statement: str, params: Sequence[object]) -> Job[Rows]:
    """A job of one statement, for its rows."""
    return (yield Step(statement, params))
