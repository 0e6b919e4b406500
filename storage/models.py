"""Typed, immutable objects the storage layer hands out and takes (storage/contract.py),
and the shape of a finished series it records (:class:`SeriesEnd`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol

GAME_STATUSES: Final = ("lobby", "playing", "finished", "cancelled", "abandoned")
OPEN_STATUSES: Final = ("lobby", "playing")
OUTBOX_METHODS: Final = ("send", "edit", "delete")


class _Unset:
    """Type of the "leave unchanged" sentinel; a class so mypy can tell it from ``None``."""

    _instance: _Unset | None = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"


_UNSET: Final[Any] = _Unset()
UNSET: Final[Any] = _UNSET


@dataclass(frozen=True)
class Chat:
    id: int
    title: str
    language: str | None
    rules: dict[str, Any]  # the chat's settings (bot/chat_settings.py ChatSettings.to_dict())
    migrated_to: int | None
    # Bumped by every change of the title, language or settings: another instance's cached
    # copy of them is current while its stamp is the chat's. A counter, not content.
    stamp: int = field(default=0, compare=False)


@dataclass(frozen=True)
class User:
    id: int
    name: str
    username: str | None
    language: str | None
    started: bool


@dataclass(frozen=True)
class Seat:
    seat: int
    user_id: int | None
    bot_level: str | None
    name: str
    away: bool = False
    autoplayed: int = 0  # consecutive auto-played turns


@dataclass(frozen=True)
class Deadline:
    seat: int
    due_at: float
    remind_at: float | None
    reminded: bool = False


@dataclass(frozen=True)
class Game:
    id: int
    chat_id: int
    thread_id: int | None
    status: str  # 'lobby' | 'playing' | 'finished' | 'cancelled' | 'abandoned'
    rules: dict[str, Any]  # the game's switches, {"game": name, ...} (engine.registry)
    version: int  # starts at 0, +1 on every commit
    seats: tuple[Seat, ...]
    created_by: int
    created_at: float
    first_dealer: int | None
    deadline: Deadline | None
    lobby_expires_at: float | None
    winners: tuple[int, ...] | None  # seats, set when finished
    # The version of the last commit that changed more than the deadline (a move, a deal,
    # the seats, the status): a hand's keyboard drawn at this version or later is current.
    state_version: int = 0


@dataclass(frozen=True)
class DealStart:
    deal_index: int
    dealer: int
    deck: tuple[str, ...]  # 36 card codes, top first


@dataclass(frozen=True)
class LoggedMove:
    deal_index: int
    move: dict[str, Any]  # engine Action.to_json()


@dataclass(frozen=True)
class DealTally:
    deal_index: int
    points: tuple[int, ...]
    penalties: tuple[int, ...]


@dataclass(frozen=True)
class OutboxOp:
    chat_id: int
    method: str  # 'send' | 'edit' | 'delete'
    payload: dict[str, Any]  # Bot API params without chat_id (text, reply_markup, message_id, ...)
    game_id: int | None = None
    # Which game message: 'lobby', 'table' (deal 1), 'table:<n>' (deal n), 'hand:<user_id>',
    # 'ping:<user_id>'; None for a one-off.
    role: str | None = None
    # What an edit shows that its reader must see (a finished trick, R8): a newer pending
    # edit of the same message replaces it only if it shows the same milestone, so a state
    # the next one no longer shows is never coalesced away. None: any newer edit replaces it.
    milestone: str | None = None


@dataclass(frozen=True)
class SentOp:
    """An operation Telegram took (a send, an edit or a delete) in a chat, at a wall-clock
    time: what a restarted sender rebuilds its pacing from, as Telegram's flood limits
    count them (about 20 a minute in a group, 1 a second in a private chat, 30 a second
    over all chats)."""

    chat_id: int
    at: float


@dataclass(frozen=True)
class MessageRef:
    game_id: int
    role: str
    chat_id: int
    message_id: int


@dataclass(frozen=True)
class UserStats:
    user_id: int
    name: str
    series_played: int
    series_won: int
    deals_played: int
    penalties: int


@dataclass(frozen=True)
class SeatResult:
    """One seat's part in a finished series (what /stats adds up and /top rates)."""

    seat: int
    user_id: int | None
    bot_level: str | None
    name: str
    team: int  # seats with the same team are rated together (B5 pairs)
    place: int  # 0 = the winners; ties share a place
    won: bool
    deals: int
    points: int  # trick points over all deals
    penalties: int  # the series total (R13; deal wins in a Bura robber series)
    best_deal: int  # most trick points in one deal
    declarations_true: int = 0  # Bura D5
    declarations_false: int = 0
    combinations: int = 0  # Part C / D6-D8 shown

    @property
    def player(self) -> str:
        """The rating key: a person by id, a computer player by level."""
        return f"u{self.user_id}" if self.user_id is not None else f"ai:{self.bot_level}"


class SeatOutcome(Protocol):
    """One seat of a finished series as the commit that finishes it records it (the
    columns of :class:`SeatResult`, which reads it back)."""

    @property
    def seat(self) -> int: ...
    @property
    def user_id(self) -> int | None: ...
    @property
    def bot_level(self) -> str | None: ...
    @property
    def name(self) -> str: ...
    @property
    def team(self) -> int: ...
    @property
    def place(self) -> int: ...
    @property
    def won(self) -> bool: ...
    @property
    def deals(self) -> int: ...
    @property
    def points(self) -> int: ...
    @property
    def penalties(self) -> int: ...
    @property
    def best_deal(self) -> int: ...
    @property
    def declarations_true(self) -> int: ...
    @property
    def declarations_false(self) -> int: ...
    @property
    def combinations(self) -> int: ...
    @property
    def player(self) -> str:
        """The key the seat is rated under (``SeatResult.player``)."""
        ...


class Skill(Protocol):
    """A player's rating in one chat and game, as a series' rating step reads and
    returns it (a stored :class:`Rating` is one)."""

    @property
    def mu(self) -> float: ...
    @property
    def sigma(self) -> float: ...
    @property
    def series(self) -> int: ...


class SeriesEnd(Protocol):
    """A finished series, committed with the change that finishes it
    (``GameChange.series_end``); the bot builds it with ``stats.summary.series_end``.

    It brings its own rating step: the commit reads the current rating of each seat's
    ``player`` in the chat and game, calls :meth:`rate`, and stores what it returns, all
    in the transaction that finishes the game, so a series is rated exactly once."""

    @property
    def game(self) -> str: ...  # the engine's game name (engine.registry)
    @property
    def deals(self) -> int: ...
    @property
    def seats(self) -> Sequence[SeatOutcome]: ...
    @property
    def teams(self) -> str: ...  # B5: 'none' | 'pairs'

    def rate(self, current: Mapping[str, Skill]) -> Mapping[str, Skill]:
        """The new rating of every player key in the series; ``current`` holds those
        already rated in this chat and game (a key missing from it starts afresh)."""
        ...


@dataclass(frozen=True)
class SeriesSummary:
    """A finished series as /history lists it."""

    game_id: int
    chat_id: int
    game: str
    finished_at: float
    deals: int
    seats: tuple[SeatResult, ...]


@dataclass(frozen=True)
class PlayerRecord:
    """A user's record in one game (in one chat, or over all chats)."""

    game: str
    series_played: int
    series_won: int
    deals: int
    points: int
    penalties: int
    best_deal: int
    declarations_true: int
    declarations_false: int
    combinations: int
    with_computers: bool = False  # series with a computer player, kept apart from people's


@dataclass(frozen=True)
class Rating:
    """A stored openskill rating; ``ordinal`` (mu - 3 sigma) is what /top shows."""

    game: str
    player: str
    name: str
    mu: float
    sigma: float
    series: int

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class GameChange:
    """Everything one atomic commit may do to a game; the game's version goes up by one."""

    status: str | None = None
    seats: tuple[Seat, ...] | None = None  # replace the whole seat list
    first_dealer: int | None = None
    new_deal: DealStart | None = None  # written before `move`
    move: LoggedMove | None = None  # logged under (game_id, new version), UNIQUE
    tally: DealTally | None = None  # a finished deal's scores
    deadline: Deadline | Any | None = _UNSET
    lobby_expires_at: float | Any | None = _UNSET
    winners: tuple[int, ...] | None = None
    # A lobby's rules changed by its creator before Start; a series never
    # changes its rules once dealt.
    rules: dict[str, Any] | None = None
    outbox: tuple[OutboxOp, ...] = ()
    # With status 'finished': recorded, and ratings updated, in the same transaction.
    series_end: SeriesEnd | None = None

    def only_deadline(self) -> bool:
        """Moves the turn's deadline (and sends messages) and changes nothing else: a
        reminder, a computer letting a chance pass. It keeps ``Game.state_version``."""
        return replace(self, deadline=_UNSET, outbox=()) == GameChange()


@dataclass(frozen=True)
class GameState:
    """What the game lock reads, in the same round trip, for an instance to check its
    cached copy of a game against the database (``PgStorage.game_lock``)."""

    version: int
    chat_id: int
    chat_stamp: int  # Chat.stamp of the game's chat
    selections: dict[int, list[str]]  # user id -> cards selected at ``version``
    taps: dict[int, float]  # user id -> when they last tapped in this game (clock time)
