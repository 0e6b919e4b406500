"""Row encoding and decoding shared by both storage backends (SQLite and PostgreSQL),
the games columns a change sets (:func:`game_updates`), and :class:`OutboxItem`, the
outbox row whose payload is decoded only when read.

Every decoder checks each column's type and raises :class:`CorruptRecordError` naming
the row and column, so a damaged record is reported clearly instead of surfacing as a
stray ``TypeError`` in the bot.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final

from storage.errors import CorruptRecordError, StorageError
from storage.models import (
    _UNSET,
    GAME_STATUSES,
    Chat,
    Deadline,
    DealStart,
    DealTally,
    Game,
    GameChange,
    LoggedMove,
    MessageRef,
    Seat,
    User,
    UserStats,
)

GAME_COLUMNS: Final = (
    "id, chat_id, thread_id, status, rules, version, created_by, created_at, first_dealer,"
    " deadline_seat, deadline_due_at, deadline_remind_at, deadline_reminded,"
    " lobby_expires_at, winners, state_version"
)
SEAT_COLUMNS: Final = "game_id, seat, user_id, bot_level, name, away, autoplayed"
OUTBOX_COLUMNS: Final = (
    "id, chat_id, method, payload, game_id, role, attempts, not_before, created_at, last_error"
)
OPEN_GAMES: Final = "status IN ('lobby', 'playing')"
# Pending edits of a game message that a newer pending edit replaces: any newer one, or
# for an edit with a milestone (OutboxOp.milestone) only one showing the same milestone,
# unless MILESTONES_KEPT newer milestones of that message wait too: play faster than a
# chat's one edit a second (two fast players, many tables) must not grow a backlog that
# leaves the hand minutes behind the game; then the oldest finished trick goes unshown.
MILESTONES_KEPT: Final = 2
OUTBOX_SUPERSEDED: Final = (
    "DELETE FROM outbox WHERE method = 'edit' AND game_id IS NOT NULL AND role IS NOT NULL"
    " AND (EXISTS (SELECT 1 FROM outbox AS newer WHERE newer.method = 'edit'"
    " AND newer.game_id = outbox.game_id AND newer.role = outbox.role AND newer.id > outbox.id"
    " AND (outbox.milestone IS NULL OR newer.milestone = outbox.milestone))"
    " OR (outbox.milestone IS NOT NULL AND (SELECT COUNT(DISTINCT later.milestone)"
    " FROM outbox AS later WHERE later.method = 'edit' AND later.game_id = outbox.game_id"
    " AND later.role = outbox.role AND later.id > outbox.id"
    f" AND later.milestone <> outbox.milestone) >= {MILESTONES_KEPT}))"
)

# A group the bot is back in (storage ``outbox_reopen``): a pending edit of a game's table
# becomes a new message (the group never saw the change, and the message it would edit is
# far up the chat by now), unless a pending send of that table comes first.
OUTBOX_TABLES_RESENT: Final = (
    "UPDATE outbox SET method = 'send' WHERE chat_id = {chat} AND method = 'edit'"
    " AND game_id IS NOT NULL AND (role = 'table' OR role LIKE 'table:%')"
    " AND NOT EXISTS (SELECT 1 FROM outbox AS earlier WHERE earlier.method = 'send'"
    " AND earlier.game_id = outbox.game_id AND earlier.role = outbox.role"
    " AND earlier.id < outbox.id)"
)

# Each chat's turn at the sender (storage ``outbox_turns``): the row it sends next, for
# the chats whose oldest row is due (a chat whose head waits for a retry, a 429 or the
# bot's return to the group waits as a whole: nothing overtakes it). That row is the
# chat's oldest due answer (a row of no game), else its head: a game's pending edit is
# replaced by its next one anyway, while an answer behind a busy table waited as long as
# play went on (answers' share of a group is bounded where they are queued,
# bot/delivery/chatter.py, so they cannot hold up a table either). Across chats, games
# first: when the bot-wide limit holds sends back (a flood of strangers' commands
# answered in their private chats), the answers wait for the tables, not the other way
# round; then groups' answers (one may be the head a table waits behind), then private
# chats' answers (``rank`` 0 to 3), each class oldest head first. A page starts after the
# turn (``rank``, ``head_id``) given: the rows a step converts are bounded by what it may
# send, not by the backlog. ``newer_edit``: a newer due edit of the same game message
# waits too (the sender holds the row back once, for the next drop of the superseded).
OUTBOX_TURNS: Final = (
    "WITH chats AS (SELECT chat_id, MIN(id) AS head_id,"
    " MIN(CASE WHEN game_id IS NULL AND not_before <= {now} THEN id END) AS answer_id"
    " FROM outbox GROUP BY chat_id),"
    " turns AS (SELECT chats.head_id, COALESCE(chats.answer_id, chats.head_id) AS next_id,"
    " CASE WHEN chats.answer_id IS NULL THEN 0 ELSE 2 END"
    " + CASE WHEN chats.chat_id > 0 THEN 1 ELSE 0 END AS rank"
    " FROM chats JOIN outbox AS head ON head.id = chats.head_id"
    " WHERE head.not_before <= {now}),"
    " page AS (SELECT rank, head_id, next_id FROM turns"
    " WHERE rank > {rank} OR (rank = {rank} AND head_id > {head_id})"
    " ORDER BY rank, head_id LIMIT {limit})"
    " SELECT page.rank, page.head_id, "
    + ", ".join(f"turn.{column.strip()}" for column in OUTBOX_COLUMNS.split(","))
    + ", EXISTS (SELECT 1 FROM outbox AS newer WHERE turn.method = 'edit'"
    " AND newer.method = 'edit' AND newer.game_id = turn.game_id AND newer.role = turn.role"
    " AND newer.id > turn.id AND newer.not_before <= {now}) AS newer_edit"
    " FROM page JOIN outbox AS turn ON turn.id = page.next_id ORDER BY page.rank, page.head_id"
)
# When the first row that waits becomes due (a chat's head or not: waking early is harmless).
OUTBOX_NEXT_DUE: Final = "SELECT MIN(not_before) FROM outbox WHERE not_before > {now}"


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def loads(where: str, column: str, text: object) -> Any:
    if not isinstance(text, str | bytes):
        raise CorruptRecordError(f"{where}: column {column} holds {type(text).__name__}, not JSON")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CorruptRecordError(f"{where}: column {column} is not valid JSON ({exc})") from None


def loads_dict(where: str, column: str, text: object) -> dict[str, Any]:
    value = loads(where, column, text)
    if not isinstance(value, dict):
        raise CorruptRecordError(f"{where}: column {column} must hold a JSON object")
    return value


def loads_ints(where: str, column: str, text: object) -> tuple[int, ...]:
    value = loads(where, column, text)
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise CorruptRecordError(f"{where}: column {column} must hold a list of whole numbers")
    return tuple(value)


def int_column(where: str, column: str, value: object) -> int:
    if type(value) is not int:
        raise CorruptRecordError(f"{where}: column {column} must be a whole number, not {value!r}")
    return value


def opt_int_column(where: str, column: str, value: object) -> int | None:
    return None if value is None else int_column(where, column, value)


def float_column(where: str, column: str, value: object) -> float:
    if type(value) not in (int, float):
        raise CorruptRecordError(f"{where}: column {column} must be a number, not {value!r}")
    return float(value)  # type: ignore[arg-type]


def opt_float_column(where: str, column: str, value: object) -> float | None:
    return None if value is None else float_column(where, column, value)


def opt_str_column(where: str, column: str, value: object) -> str | None:
    if value is not None and not isinstance(value, str):
        raise CorruptRecordError(f"{where}: column {column} must be text, not {value!r}")
    return value


def str_column(where: str, column: str, value: object) -> str:
    text = opt_str_column(where, column, value)
    if text is None:
        raise CorruptRecordError(f"{where}: column {column} is missing")
    return text


def seat_row(row: Sequence[Any]) -> Seat:
    where = f"seats row (game {row[0]}, seat {row[1]})"
    return Seat(
        seat=int_column(where, "seat", row[1]),
        user_id=opt_int_column(where, "user_id", row[2]),
        bot_level=opt_str_column(where, "bot_level", row[3]),
        name=str_column(where, "name", row[4]),
        away=bool(row[5]),
        autoplayed=int_column(where, "autoplayed", row[6]),
    )


def game_row(row: Sequence[Any], seats: tuple[Seat, ...]) -> Game:
    where = f"games row {row[0]}"
    status = str_column(where, "status", row[3])
    if status not in GAME_STATUSES:
        raise CorruptRecordError(f"{where}: unknown status {status!r}")
    deadline = None
    if row[10] is not None:
        deadline = Deadline(
            seat=int_column(where, "deadline_seat", row[9]),
            due_at=float_column(where, "deadline_due_at", row[10]),
            remind_at=opt_float_column(where, "deadline_remind_at", row[11]),
            reminded=bool(row[12]),
        )
    return Game(
        id=int_column(where, "id", row[0]),
        chat_id=int_column(where, "chat_id", row[1]),
        thread_id=opt_int_column(where, "thread_id", row[2]),
        status=status,
        rules=loads_dict(where, "rules", row[4]),
        version=int_column(where, "version", row[5]),
        seats=seats,
        created_by=int_column(where, "created_by", row[6]),
        created_at=float_column(where, "created_at", row[7]),
        first_dealer=opt_int_column(where, "first_dealer", row[8]),
        deadline=deadline,
        lobby_expires_at=opt_float_column(where, "lobby_expires_at", row[13]),
        winners=None if row[14] is None else loads_ints(where, "winners", row[14]),
        state_version=int_column(where, "state_version", row[15]),
    )


@dataclass(frozen=True)
class OutboxItem:
    """A pending outbox row. Its payload is decoded on first use: a row read is not
    always sent (its chat waits for its pace, an edit is held back for a newer one), and
    decoding every row's text and keyboard up front once cost the sender more than all
    the updates."""

    id: int
    chat_id: int
    method: str
    stored_payload: dict[str, Any] | str  # the JSON text as stored, or the decoded object
    game_id: int | None
    role: str | None
    attempts: int
    not_before: float
    created_at: float
    last_error: str | None = None

    @cached_property
    def payload(self) -> dict[str, Any]:
        """Bot API params; CorruptRecordError when the stored text is not a JSON object."""
        if isinstance(self.stored_payload, dict):
            return self.stored_payload
        try:
            value = json.loads(self.stored_payload)
        except ValueError as exc:
            raise CorruptRecordError(
                f"outbox row {self.id}: column payload is not valid JSON ({exc})"
            ) from None
        if not isinstance(value, dict):
            raise CorruptRecordError(
                f"outbox row {self.id}: column payload must hold a JSON object"
            )
        return value


def outbox_row(row: Sequence[Any]) -> OutboxItem:
    where = f"outbox row {row[0]}"
    return OutboxItem(
        id=int_column(where, "id", row[0]),
        chat_id=int_column(where, "chat_id", row[1]),
        method=str_column(where, "method", row[2]),
        stored_payload=str_column(where, "payload", row[3]),
        game_id=opt_int_column(where, "game_id", row[4]),
        role=opt_str_column(where, "role", row[5]),
        attempts=int_column(where, "attempts", row[6]),
        not_before=float_column(where, "not_before", row[7]),
        created_at=float_column(where, "created_at", row[8]),
        last_error=opt_str_column(where, "last_error", row[9]),
    )


@dataclass(frozen=True)
class OutboxTurn:
    """A chat's next row to send (see ``OUTBOX_TURNS``); (``rank``, ``head_id``) is its
    place among the chats."""

    rank: int
    head_id: int
    item: OutboxItem
    newer_edit: bool


@dataclass(frozen=True)
class OutboxTurns:
    """A page of the chats' turns, and when the first row that waits becomes due."""

    turns: list[OutboxTurn]
    next_due: float | None

    @property
    def last(self) -> tuple[int, int]:
        """Where the next page starts."""
        turn = self.turns[-1]
        return turn.rank, turn.head_id


FIRST_TURN: Final = (-1, 0)  # before every chat's turn


def outbox_turn(row: Sequence[Any]) -> OutboxTurn:
    values = tuple(row)
    where = f"outbox row {values[2]}"
    return OutboxTurn(
        rank=int_column(where, "rank", values[0]),
        head_id=int_column(where, "head_id", values[1]),
        item=outbox_row(values[2:12]),
        newer_edit=bool(values[12]),
    )


def turns_page(rows: Sequence[Sequence[Any]], next_due: Any) -> OutboxTurns:
    """``OUTBOX_TURNS``'s rows and ``OUTBOX_NEXT_DUE``'s value, as either backend reads them."""
    return OutboxTurns(
        [outbox_turn(row) for row in rows], None if next_due is None else float(next_due)
    )


def chat_row(row: Sequence[Any]) -> Chat:
    where = f"chats row {row[0]}"
    return Chat(
        id=int_column(where, "id", row[0]),
        title=str_column(where, "title", row[1]),
        language=opt_str_column(where, "language", row[2]),
        rules=loads_dict(where, "rules", row[3]),
        migrated_to=opt_int_column(where, "migrated_to", row[4]),
        stamp=int_column(where, "stamp", row[5]),
    )


def user_row(row: Sequence[Any]) -> User:
    where = f"users row {row[0]}"
    return User(
        id=int_column(where, "id", row[0]),
        name=str_column(where, "name", row[1]),
        username=opt_str_column(where, "username", row[2]),
        language=opt_str_column(where, "language", row[3]),
        started=bool(row[4]),
    )


def move_row(game_id: int, row: Sequence[Any]) -> LoggedMove:
    """A moves row (version, deal_index, move)."""
    where = f"moves row (game {game_id}, version {row[0]})"
    return LoggedMove(int_column(where, "deal_index", row[1]), loads_dict(where, "move", row[2]))


def deal_row(game_id: int, row: Sequence[Any]) -> DealStart:
    """A deals row (deal_index, dealer, deck)."""
    where = f"deals row (game {game_id}, deal {row[0]})"
    deck = loads(where, "deck", row[2])
    if not isinstance(deck, list) or not all(isinstance(c, str) for c in deck):
        raise CorruptRecordError(f"{where}: column deck must hold a list of card codes")
    return DealStart(
        int_column(where, "deal_index", row[0]), int_column(where, "dealer", row[1]), tuple(deck)
    )


def tally_row(game_id: int, row: Sequence[Any]) -> DealTally:
    """A tallies row (deal_index, points, penalties)."""
    where = f"tallies row (game {game_id}, deal {row[0]})"
    return DealTally(
        int_column(where, "deal_index", row[0]),
        loads_ints(where, "points", row[1]),
        loads_ints(where, "penalties", row[2]),
    )


def stats_row(chat_id: int, row: Sequence[Any]) -> UserStats:
    """A stats row (user_id, name, series_played, series_won, deals_played, penalties)."""
    where = f"stats row (chat {chat_id}, user {row[0]})"
    counts = (
        int_column(where, col, v)
        for col, v in zip(
            ("series_played", "series_won", "deals_played", "penalties"), list(row)[2:], strict=True
        )
    )
    return UserStats(
        int_column(where, "user_id", row[0]), str_column(where, "name", row[1]), *counts
    )


def deadline_params(deadline: Deadline | None) -> tuple[object, ...]:
    if deadline is None:
        return (None, None, None, 0)
    return (deadline.seat, deadline.due_at, deadline.remind_at, int(deadline.reminded))


def game_updates(
    game_id: int, change: GameChange, old_status: str, new_version: int
) -> tuple[list[str], list[object]]:
    """The games columns ``change`` sets, as ``column = ?`` texts (literals: only the
    values are parameters) and their values; checks what the row cannot (a known status,
    a Deadline, rules only while the game is in the lobby)."""
    sets: list[str] = []
    params: list[object] = []
    if not change.only_deadline():
        sets.append("state_version = ?")
        params.append(new_version)
    if change.status is not None:
        if change.status not in GAME_STATUSES:
            raise StorageError(f"unknown game status {change.status!r}")
        sets.append("status = ?")
        params.append(change.status)
    if change.first_dealer is not None:
        sets.append("first_dealer = ?")
        params.append(change.first_dealer)
    if change.deadline is not _UNSET:
        if change.deadline is not None and not isinstance(change.deadline, Deadline):
            raise TypeError(f"deadline must be a Deadline or None, not {change.deadline!r}")
        sets.append(
            "deadline_seat = ?, deadline_due_at = ?, deadline_remind_at = ?, deadline_reminded = ?"
        )
        params.extend(deadline_params(change.deadline))
    if change.lobby_expires_at is not _UNSET:
        sets.append("lobby_expires_at = ?")
        params.append(change.lobby_expires_at)
    if change.winners is not None:
        sets.append("winners = ?")
        params.append(dumps(list(change.winners)))
    if change.rules is not None:
        if old_status != "lobby":
            raise StorageError(f"game {game_id} has started: its rules cannot change")
        sets.append("rules = ?")
        params.append(dumps(change.rules))
    return sets, params


def only_moves_since(version: int, move_versions: list[int], game: Game) -> bool:
    """Whether every commit after ``version`` up to ``game`` is a logged move (at
    ``move_versions``, in order) or, after the last move, a change of the deadline alone:
    then a copy of the game at ``version`` is brought up to date by playing the moves."""
    moved_to = version + len(move_versions)
    return (
        move_versions == list(range(version + 1, moved_to + 1)) and game.state_version <= moved_to
    )


def message_row(row: Sequence[Any]) -> MessageRef:
    where = f"messages row (game {row[0]}, role {row[1]})"
    return MessageRef(
        int_column(where, "game_id", row[0]),
        str_column(where, "role", row[1]),
        int_column(where, "chat_id", row[2]),
        int_column(where, "message_id", row[3]),
    )
