"""PostgreSQL statements: ``?`` placeholders made ``$n`` (:func:`sql`), command tags
read (:func:`rows_touched`), a job (storage/jobs.py) run on a connection
(:func:`run_job`), and writes as single statements: one round trip each, no BEGIN/COMMIT.

A statement is atomic on its own, so a write that fits in one (CTEs chaining its parts)
needs no transaction block: that saves the BEGIN and COMMIT round trips, and the update
being handled is recorded by a CTE of the same statement (storage/updates.py), so the
change and its claim commit together or not at all. bench/bot_scale.py counts the
statements per update.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any, TypeVar

import asyncpg

from storage.errors import StorageError
from storage.games import games_from_rows
from storage.jobs import Job, Step
from storage.models import _UNSET, OUTBOX_METHODS, Deadline, Game, GameChange, OutboxOp, Seat
from storage.rows import GAME_COLUMNS, SEAT_COLUMNS, deadline_params, dumps
from storage.updates import DuplicateUpdateError, UpdateClaim

Conn = Any  # asyncpg.Connection / pool proxy; asyncpg ships no usable generic types

_T = TypeVar("_T")


@functools.lru_cache(maxsize=512)
def sql(text: str) -> str:
    """SQLite-style ``?`` placeholders to PostgreSQL's ``$1, $2, …`` (no ``?`` in literals)."""
    counter = iter(range(1, 10_000))
    return re.sub(r"\?", lambda _: f"${next(counter)}", text)


def rows_touched(status: str) -> int:
    """Rows touched, from asyncpg's command tag ("UPDATE 1", "DELETE 3", "INSERT 0 2")."""
    return int(status.rsplit(" ", 1)[-1])


_CLAIM_KEY = "updates_pkey"


class Params:
    """Positional parameters for one statement: ``p(value)`` returns its ``$n``."""

    def __init__(self) -> None:
        self.values: list[object] = []

    def __call__(self, value: object) -> str:
        self.values.append(value)
        return f"${len(self.values)}"


def outbox_insert(
    p: Params, ops: Iterable[OutboxOp], now: float, game_id: int | None, source: str = ""
) -> str | None:
    """One INSERT of every op (None if there are none), in their order (outbox ids keep a
    chat's operations in order). ``source`` (e.g. ``"g, "``) joins a CTE that must yield
    a row for anything to be written."""
    rows = []
    for op in ops:
        if op.method not in OUTBOX_METHODS:
            raise StorageError(f"unknown outbox method {op.method!r}")
        game = op.game_id if op.game_id is not None else game_id
        rows.append((op.chat_id, op.method, dumps(op.payload), game, op.role, op.milestone))
    if not rows:
        return None
    chats, methods, payloads, games, roles, milestones = (
        list(column) for column in zip(*rows, strict=True)
    )
    return (
        "INSERT INTO outbox (chat_id, method, payload, game_id, role, milestone, not_before,"
        f" created_at) SELECT x.c, x.m, x.p, x.g, x.r, x.s, {p(now)}::float8, {p(now)}::float8"
        f" FROM {source}unnest({p(chats)}::bigint[], {p(methods)}::text[], {p(payloads)}::text[],"
        f" {p(games)}::bigint[], {p(roles)}::text[], {p(milestones)}::text[])"
        " WITH ORDINALITY AS x(c, m, p, g, r, s, n) ORDER BY x.n"
    )


def with_claim(query: str, p: Params, claim: UpdateClaim | None) -> str:
    """``query`` that also records the update being handled (a CTE first)."""
    if claim is None:
        return query
    cte = (
        f"_claim AS (INSERT INTO updates (update_id, handled_at)"
        f" VALUES ({p(claim.update_id)}, {p(time.time())}))"
    )
    if query.startswith("WITH "):
        return f"WITH {cte}, {query[5:]}"
    return f"WITH {cte} {query}"


async def fetch_claimed(
    conn: Conn, query: str, p: Params, claim: UpdateClaim | None
) -> list[asyncpg.Record]:
    """Run ``query`` (built with ``p``) with the claim folded in; marks the claim made."""
    try:
        rows: list[asyncpg.Record] = await conn.fetch(with_claim(query, p, claim), *p.values)
    except asyncpg.UniqueViolationError as exc:
        if claim is not None and exc.constraint_name == _CLAIM_KEY:
            raise DuplicateUpdateError(f"update {claim.update_id} was already handled") from None
        raise
    if claim is not None:
        claim.claimed = True
    return rows


def simple_change(change: GameChange) -> bool:
    """Whether :func:`commit_one` can make ``change``: no status, winners, rules, tally or
    series result (those read the game as it was, or write stats and ratings)."""
    return (
        change.status is None
        and change.winners is None
        and change.rules is None
        and change.tally is None
        and change.series_end is None
    )


async def commit_one(
    conn: Conn, game_id: int, expected: int, change: GameChange, claim: UpdateClaim | None
) -> Game | None:
    """A :func:`simple_change` as one statement; the game after it, or None when the
    version was not ``expected`` (nothing written, the claim included)."""
    p = Params()
    now = time.time()
    sets = ["version = version + 1", f"updated_at = {p(now)}"]
    if not change.only_deadline():
        sets.append(f"state_version = {p(expected + 1)}")
    if change.first_dealer is not None:
        sets.append(f"first_dealer = {p(change.first_dealer)}")
    if change.deadline is not _UNSET:
        if change.deadline is not None and not isinstance(change.deadline, Deadline):
            raise TypeError(f"deadline must be a Deadline or None, not {change.deadline!r}")
        seat, due, remind, reminded = deadline_params(change.deadline)
        sets.append(
            f"deadline_seat = {p(seat)}, deadline_due_at = {p(due)},"
            f" deadline_remind_at = {p(remind)}, deadline_reminded = {p(reminded)}"
        )
    if change.lobby_expires_at is not _UNSET:
        sets.append(f"lobby_expires_at = {p(change.lobby_expires_at)}")
    # The compare-and-set: a second writer waits for the first's row lock, then finds the
    # version moved and updates nothing, so every CTE below (each joins g) writes nothing.
    ctes = [
        f"g AS (UPDATE games SET {', '.join(sets)} WHERE id = {p(game_id)}"
        f" AND version = {p(expected)} RETURNING {GAME_COLUMNS})"
    ]
    if claim is not None:
        ctes.append(
            f"_claim AS (INSERT INTO updates (update_id, handled_at)"
            f" SELECT {p(claim.update_id)}, {p(now)}::float8 FROM g)"
        )
    seats_from = None
    if change.seats is not None:
        s = _seat_arrays(change.seats)
        seats_from = (
            f"unnest({p(s[0])}::int[], {p(s[1])}::bigint[], {p(s[2])}::text[],"
            f" {p(s[3])}::text[], {p(s[4])}::int[], {p(s[5])}::int[]) AS x(s, u, b, n, a, ap)"
        )
        ctes.append(
            "seats_gone AS (DELETE FROM seats USING g WHERE seats.game_id = g.id"
            f" AND NOT seats.seat = ANY({p(s[0])}::int[]))"
        )
        ctes.append(
            f"seats_set AS (INSERT INTO seats ({SEAT_COLUMNS})"
            f" SELECT g.id, x.s, x.u, x.b, x.n, x.a, x.ap FROM g, {seats_from}"
            " ON CONFLICT (game_id, seat) DO UPDATE SET user_id = excluded.user_id,"
            " bot_level = excluded.bot_level, name = excluded.name, away = excluded.away,"
            " autoplayed = excluded.autoplayed)"
        )
    if change.new_deal is not None:
        deal = change.new_deal
        ctes.append(
            "deal AS (INSERT INTO deals (game_id, deal_index, dealer, deck)"
            f" SELECT g.id, {p(deal.deal_index)}::int, {p(deal.dealer)}::int,"
            f" {p(dumps(list(deal.deck)))}::text FROM g)"
        )
    if change.move is not None:
        ctes.append(
            "move AS (INSERT INTO moves (game_id, version, deal_index, move)"
            f" SELECT g.id, g.version, {p(change.move.deal_index)}::int,"
            f" {p(dumps(change.move.move))}::text FROM g)"
        )
    outbox = outbox_insert(p, change.outbox, now, game_id, source="g, ")
    if outbox is not None:
        ctes.append(f"outbox_add AS ({outbox})")
    # The seats as this statement leaves them: the new ones as written, or the stored
    # ones (this statement's own writes are not visible to its outer SELECT).
    if seats_from is None:
        tail = (
            f"SELECT g.*, {SEAT_COLUMNS} FROM g LEFT JOIN seats ON seats.game_id = g.id"
            " ORDER BY seats.seat"
        )
    else:
        tail = (
            "SELECT g.*, CASE WHEN x.s IS NOT NULL THEN g.id END, x.s, x.u, x.b, x.n, x.a, x.ap"
            f" FROM g LEFT JOIN {seats_from} ON true ORDER BY x.s"
        )
    query = f"WITH {', '.join(ctes)} {tail}"
    try:
        rows = await conn.fetch(query, *p.values)
    except asyncpg.UniqueViolationError as exc:
        if claim is not None and exc.constraint_name == _CLAIM_KEY:
            raise DuplicateUpdateError(f"update {claim.update_id} was already handled") from None
        raise
    if not rows:
        return None
    if claim is not None:
        claim.claimed = True
    return games_from_rows(rows)[0]


def _seat_arrays(seats: Sequence[Seat]) -> list[list[Any]]:
    return [
        [s.seat for s in seats],
        [s.user_id for s in seats],
        [s.bot_level for s in seats],
        [s.name for s in seats],
        [int(s.away) for s in seats],
        [s.autoplayed for s in seats],
    ]


async def run_job(conn: Conn, job: Job[_T]) -> _T:
    """Run the statements of a job (storage/jobs.py) on ``conn`` (inside the caller's
    transaction), sending each one's rows back."""
    try:
        step: Step = next(job)
        while True:
            if step.many:
                await conn.executemany(sql(step.sql), step.params)
                rows: list[Any] = []
            else:
                rows = [tuple(r) for r in await conn.fetch(sql(step.sql), *step.params)]
            step = job.send(rows)
    except StopIteration as done:
        result: _T = done.value
        return result
