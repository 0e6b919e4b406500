"""The storage contract: what the bot may ask of a storage backend.

Two packages implement :class:`Backend`: :mod:`storage.sqlite` (``Storage``: SQLite
through aiosqlite, one long-lived writer connection, one process) and
:mod:`storage.postgres` (``PgStorage``: PostgreSQL through asyncpg pools, several bot
instances). ``storage.url.open_storage(url)`` opens the one a ``DATABASE_URL`` names
(``sqlite:PATH`` or ``postgresql://…``) and returns it as a :class:`Backend`, so mypy
checks that both implement all of it; the contract tests (``tests/storage/``,
fixture ``db``) run against both. A method added to one backend is added here and to
the other (the SQL is usually the same: PostgreSQL's is written with ``?`` too and
turned into ``$n`` by ``storage.postgres.writes.sql``).

Each backend has its own numbered migrations (``migrations.py`` in its package); the
tables, columns and row decoders (storage/rows.py) are the same, and
``tests/storage/test_storage.py`` checks that both schemas match. ``python -m storage copy
SRC_URL DST_URL`` copies every shared table (ids included) into an empty database of
either backend (storage/copy.py).

Values: the typed, immutable objects of storage/models.py. Times are UNIX seconds as
``float``; JSON columns hold plain dicts and lists. Every method that changes a game
takes ``expected_version`` and raises ``StaleVersionError`` (changing nothing) if the
game's version differs. Errors derive from ``StorageError`` (storage/errors.py).

Transactions. Each method is one transaction. SQLite runs each whole on aiosqlite's
worker thread (one hop per transaction), and group-commits writes: writes issued while
a transaction runs share the next one, each in its own SAVEPOINT, so a failure (stale
version, constraint) undoes only that call's part, and the batch shares one COMMIT (one
fsync with synchronous=FULL). A write returns, or raises, only once that COMMIT is done.
A caller cancelled before its batch starts writes nothing; one cancelled later may still
be committed (as with a cancellation that arrives just after COMMIT). PostgreSQL runs
each method as one transaction on a pooled connection (reads in a REPEATABLE READ
snapshot), no group commit; concurrent commits of one game are serialised by the row
lock of the version compare-and-set.

Exactly once. While ``storage.updates.CURRENT_UPDATE`` holds an ``UpdateClaim`` (the bot
sets it per update), the first write transaction also inserts the update id into
``updates``; if it is there already, the transaction rolls back and
``DuplicateUpdateError`` is raised.

Series and ratings (storage/records.py). When a commit carries ``series_end``, the same
transaction inserts the ``series`` row and its ``series_seats``, reads the current rating
of each seat's ``player`` key in (chat, game), calls the series' own rating step
(``SeriesEnd.rate``: the bot builds the series end with ``stats.summary.series_end``,
openskill Plackett-Luce, one match per series, teams ranked by ``place``) and upserts
the results. A rating step that fails is logged and the series stays recorded. A second
commit on a finished game records nothing more, so a series is rated once. The records
methods are written once for both backends as jobs (storage/jobs.py). Two series of one
chat may finish at once (forum topics): SQLite serialises the read-modify-write of the
ratings by its single writer; on PostgreSQL the rating read does not lock its rows yet
(``SELECT ... FOR UPDATE`` is still to do), so two series of one chat finishing in the
same instant could lose one rating update (the series rows are kept).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from storage.models import (
    Chat,
    DealStart,
    DealTally,
    Game,
    GameChange,
    GameState,
    LoggedMove,
    MessageRef,
    OutboxOp,
    PlayerRecord,
    Rating,
    Seat,
    SentOp,
    SeriesSummary,
    User,
    UserStats,
)
from storage.rows import FIRST_TURN, OutboxItem, OutboxTurns


class Backend(Protocol):
    """A storage backend, as the bot uses it (see the module docstring)."""

    async def close(self) -> None: ...

    # --- chats and users -------------------------------------------------------

    async def upsert_chat(self, chat_id: int, title: str) -> Chat:
        """Create the chat or set its title; keeps its language and rules."""
        ...

    async def get_chat(self, chat_id: int) -> Chat | None: ...

    async def set_chat_language(self, chat_id: int, language: str) -> None: ...

    async def set_chat_rules(self, chat_id: int, rules: dict[str, Any]) -> None:
        """The chat's settings (``bot/chat_settings.py`` ``ChatSettings.to_dict()``)."""
        ...

    async def migrate_chat(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup: its games, messages, pending outbox, stats,
        series, ratings, lobby watchers and pictures switch move to ``new_id``."""
        ...

    async def upsert_user(
        self, user_id: int, name: str, username: str | None, language: str | None
    ) -> User:
        """Create the user or update them; keeps ``started``."""
        ...

    async def get_user(self, user_id: int) -> User | None: ...

    async def set_user_started(self, user_id: int, started: bool) -> None: ...

    # --- games -------------------------------------------------------------------

    async def create_game(
        self,
        chat_id: int,
        thread_id: int | None,
        rules: dict[str, Any],
        created_by: int,
        seats: tuple[Seat, ...],
        lobby_expires_at: float | None,
        outbox: tuple[OutboxOp, ...] = (),
    ) -> Game:
        """A new game at version 0; ``GameExistsError`` if an open game is already in
        (chat, thread)."""
        ...

    async def get_game(self, game_id: int) -> Game | None: ...

    async def open_game(self, chat_id: int, thread_id: int | None) -> Game | None:
        """The lobby or playing game in (chat, thread)."""
        ...

    async def active_games(self) -> list[Game]:
        """Every lobby or playing game."""
        ...

    async def games_of_user(self, user_id: int) -> list[Game]:
        """The lobby or playing games the user is seated in."""
        ...

    async def commit(self, game_id: int, expected_version: int, change: GameChange) -> Game:
        """Apply ``change`` atomically (version + 1, its outbox rows in the same
        transaction); ``StaleVersionError`` and nothing changed if the version differs.
        A tally adds deals played and penalties per seated user to the chat's stats;
        status 'finished' with winners adds series played and won."""
        ...

    async def due_deadlines(self, now: float) -> list[Game]:
        """Playing games whose deadline is due (``due_at``, or an unsent ``remind_at``,
        at or before ``now``)."""
        ...

    async def expired_lobbies(self, now: float) -> list[Game]: ...

    # --- a game's history ----------------------------------------------------------

    async def deals(self, game_id: int) -> list[DealStart]: ...

    async def moves(self, game_id: int) -> list[LoggedMove]:
        """The game's moves, in version order."""
        ...

    async def catch_up(self, game_id: int, version: int) -> tuple[Game, list[LoggedMove]] | None:
        """The game and its moves logged after ``version``, in one snapshot; None if the
        game is gone, or a change since then logged no move and, after the last move,
        was more than the deadline (another instance moved a cached game on)."""
        ...

    async def tallies(self, game_id: int) -> list[DealTally]: ...

    async def export_record(self, game_id: int) -> dict[str, Any]:
        """The game as its engine's record, in the ``format`` of the game its rules are
        for (``engine.registry``); ``GameNotFoundError`` if none."""
        ...

    async def chat_stats(self, chat_id: int) -> list[UserStats]: ...

    # --- series results and ratings (rows written by commit(series_end=...)) ------

    async def player_records(self, user_id: int, chat_id: int | None) -> list[PlayerRecord]:
        """The user's record per game, in one chat or (None) over all chats, series with
        a computer player apart from people's (``PlayerRecord.with_computers``); series a
        chat finished before its reset do not count."""
        ...

    async def ratings(self, chat_id: int, game: str | None = None) -> list[Rating]:
        """The chat's ratings, best ordinal first: people's, from series without
        computer players (those are not rated)."""
        ...

    async def recent_series(self, chat_id: int, limit: int = 10) -> list[SeriesSummary]:
        """The chat's last finished series, newest first."""
        ...

    async def series_result(self, game_id: int) -> SeriesSummary | None: ...

    async def last_played_game(self, chat_id: int, thread_id: int | None = None) -> int | None:
        """The newest game with at least one tally; an open game in ``thread_id`` first
        (for /export)."""
        ...

    async def reset_chat_stats(self, chat_id: int) -> None:
        """Delete the chat's ratings and stats rows and note the reset time; game
        records and series stay."""
        ...

    async def set_chat_pictures(self, chat_id: int, on: bool) -> None: ...

    async def chat_pictures(self, chat_id: int) -> bool:
        """Whether series results carry a picture: True unless switched off."""
        ...

    async def toggle_lobby_watch(self, chat_id: int, user_id: int) -> bool:
        """Switch "tell me when the next lobby opens here"; True if now watching."""
        ...

    async def take_lobby_watchers(self, chat_id: int) -> list[int]:
        """The chat's lobby watchers, forgotten in the same transaction."""
        ...

    # --- messages the games own ----------------------------------------------------

    async def set_message(self, game_id: int, role: str, chat_id: int, message_id: int) -> None: ...

    async def get_message(self, game_id: int, role: str) -> MessageRef | None: ...

    async def game_messages(self, game_id: int) -> list[MessageRef]: ...

    async def forget_message(self, game_id: int, role: str) -> None: ...

    # --- the outbox (durable; commit() writes its rows with the move) ---------------

    async def enqueue(self, ops: tuple[OutboxOp, ...]) -> None:
        """Queue messages in their own transaction (those of no game change)."""
        ...

    async def pending(self, now: float, limit: int = 100) -> list[OutboxItem]:
        """Rows with ``not_before <= now``, oldest first."""
        ...

    async def outbox_heads(self, limit: int = 10_000) -> list[OutboxItem]:
        """The oldest row of each chat, due or not, oldest first."""
        ...

    async def outbox_turns(
        self, now: float, limit: int, after: tuple[int, int] = FIRST_TURN
    ) -> OutboxTurns:
        """At most ``limit`` chats' turns after ``after`` (storage/rows.py ``OUTBOX_TURNS``:
        each chat whose oldest row is due, with the row it sends next, in the order the
        chats go), and when the first row that waits becomes due; read as of ``now``."""
        ...

    async def outbox_pings(self, chat_ids: Iterable[int], now: float) -> list[OutboxItem]:
        """The due rows of these chats whose role is a ping's (``ping:``), oldest first."""
        ...

    async def outbox_done(
        self, item_id: int, message_id: int | None = None, *, sent: SentOp | None = None
    ) -> None:
        """Delete the row; with a role and ``message_id``, record the game's message in
        the same transaction; ``sent`` (the operation Telegram took) is logged there too,
        even if the row was gone already."""
        ...

    async def outbox_retry(
        self, item_id: int, not_before: float, error: str, *, count_attempt: bool = True
    ) -> None: ...

    async def outbox_drop_superseded(self) -> int:
        """Drop each pending edit of a game message that a newer pending edit replaces
        (any newer one; for a row with a milestone, a newer one with the same
        milestone); returns the rows dropped."""
        ...

    async def outbox_reopen(self, chat_id: int, now: float) -> None:
        """The bot is back in a group whose rows were held: its rows are due at ``now``,
        and each pending edit of a game's table (after those a newer one replaces are
        dropped) becomes a send, unless a pending send of that table comes before it."""
        ...

    async def outbox_size(self) -> int: ...

    async def outbox_oldest(self) -> float | None:
        """``created_at`` of the oldest row (for /metrics)."""
        ...

    async def sent_ops(self, since: float) -> list[SentOp]:
        """Operations logged after ``since``, oldest first."""
        ...

    async def log_sent_ops(self, ops: Iterable[SentOp]) -> None:
        """A (re)started sender logs the rows that may have been in flight."""
        ...

    async def prune_sent_ops(self, before: float) -> int: ...

    # --- several instances (PostgreSQL; trivial on SQLite: one process) -------------

    @property
    def shared(self) -> bool:
        """True when other processes change games too (cached games must be checked)."""
        ...

    def game_lock(
        self, game_id: int, *, tapper: int | None = None, at: float = 0.0
    ) -> AbstractAsyncContextManager[GameState | None]:
        """Hold the game (a PostgreSQL advisory lock) and yield, read in the same round
        trip, its :class:`GameState`, recording ``tapper``'s tap at ``at`` if they are
        seated; None on SQLite or when there is no such game."""
        ...

    async def game_state(self, game_id: int) -> GameState | None:
        """The same, unlocked."""
        ...

    async def game_version(self, game_id: int) -> int | None: ...

    async def try_lead(self) -> bool:
        """Become, or stay, the one instance that sends and runs the timers."""
        ...

    async def resign(self) -> None: ...

    async def listen_outbox(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` whenever any instance queues outbox rows."""
        ...

    async def listen_games(
        self,
        callback: Callable[[int], None],
        presence: Callable[[int, int, bool], None] | None = None,
    ) -> None:
        """The Mini App: call ``callback(game_id)`` whenever any instance
        commits a new version of a game (PostgreSQL: NOTIFY from the move's transaction;
        SQLite: nothing, the one process tells itself), and ``presence(game_id, user_id,
        present)`` for what any instance tells with :meth:`notify_presence`."""
        ...

    async def notify_presence(self, game_id: int, user_id: int, present: bool) -> None:
        """Tell every instance that the user has the game open in the Mini App, or no
        more (SQLite: nothing to tell)."""
        ...

    async def get_selection(self, game_id: int, user_id: int, version: int) -> list[str] | None:
        """The cards the user selected at ``version``; None: kept in memory (SQLite)."""
        ...

    async def set_selection(
        self, game_id: int, user_id: int, version: int, cards: list[str]
    ) -> None:
        """Card codes; "+" first: the player is choosing (PICK)."""
        ...

    async def update_seen(self, update_id: int) -> bool:
        """Whether the update was handled already (a webhook re-delivery)."""
        ...

    async def mark_update(self, update_id: int) -> None: ...

    async def prune_updates(self, before: float) -> int: ...

    async def ping(self) -> bool:
        """Whether the database answers (/healthz)."""
        ...
