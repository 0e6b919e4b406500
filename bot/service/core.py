"""The service's core: per-game locks, loading and committing, outbox operations.

A change is computed on the engine, then committed to storage together with the
outbox rows that tell players about it (one transaction), and only then is the
tap answered. The delivery worker sends the outbox later, at Telegram's pace.
The flows (lobby, table, timers, chats) build on :class:`ServiceCore`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot import metrics
from bot.chat_settings import ChatSettings
from bot.chat_settings import load as load_settings
from bot.delivery.attachments import is_attachment
from bot.delivery.chatter import ChatterLimit
from bot.games import BotGame, bot_game
from bot.games.base import PICK
from bot.i18n import Texts, texts
from bot.views import render
from engine import Card, CardCodeError, EngineError
from engine.registry import game_named
from storage import (
    Backend,
    Chat,
    Deadline,
    DealStart,
    Game,
    GameChange,
    GameState,
    OutboxOp,
    Seat,
    StaleVersionError,
    StorageError,
)

log = logging.getLogger(__name__)

MAX_SEATS = 4
MAX_ID = 2**63 - 1  # SQLite's largest integer
OPEN = ("lobby", "playing")
# A player who tapped this recently is looking at their hand: the hand's edit shows
# the turn, so no ping (a message that notifies) is sent.
PING_AFTER_IDLE = 30.0
# While the bot is out of a group (removed from it: Telegram refuses its messages there),
# the group's games wait, their clock stopped: nobody is played for by the turn timer
# while the table cannot be seen. Their deadline names this seat (no seat at all) and is
# due when a game ends for good (bot/delivery/worker.py OUT_OF_GROUP_HELD says when).
OUT_OF_GROUP = -1
# Seconds a move that comes by itself (``GameSide.by_itself``: Bura's draw after a trick)
# waits for the player's other choice (a declaration, D5), timer or no timer.
BY_ITSELF_AFTER = 5.0


class Watchers:
    """Who follows games outside Telegram: the Mini App (``bot.webapp.live.Hub``). By
    default nobody: every hand is edited and every turn pinged, as before."""

    def in_app(self, game_id: int, user_id: int) -> bool:
        """The user has the game open in the Mini App: no hand edit, no ping."""
        return False

    def skipped(self, game_id: int, user_id: int) -> None:
        """An edit of the user's hand message was skipped (they are in the app)."""
        return None

    def changed(self, game_id: int) -> None:
        """The game's version changed (a commit through this process)."""
        return None


class HandCopies:
    """Players' hands shown inside the group as well as in their private chat (ephemeral
    messages: ``bot.delivery.ephemeral.GroupHands``). By default none: a tap on «🂠 My
    cards» is answered that the hand is in the private chat."""

    def used(self, game_id: int) -> bool:
        """Someone has a copy of their hand in this game's group."""
        return False

    async def show(
        self,
        game_id: int,
        user_id: int,
        chat_id: int,
        thread_id: int | None,
        content: tuple[str, dict[str, Any] | None],
        query_id: str,
    ) -> bool:
        """Send a copy answering the user's tap ``query_id``; False: it could not go."""
        return False

    def tapped(self, game_id: int, user_id: int, chat_id: int, ephemeral_id: int) -> bool:
        """The user tapped a button on the copy ``ephemeral_id``; True: it was not the copy
        known (its content is not known either)."""
        return False

    def redraw(
        self,
        game_id: int,
        user_id: int,
        content: tuple[str, dict[str, Any] | None],
        *,
        at_turn: bool = False,
        over: bool = False,
    ) -> None:
        """The user's hand changed; ``at_turn``: bring it anew, it is their turn;
        ``over``: the game is over (its last redraw)."""
        return None

    def status_changed(self, chat_id: int) -> None:
        """The bot's membership of ``chat_id`` changed (an administrator now, or not)."""
        return None

    async def tell(
        self,
        chat_id: int,
        user_id: int,
        thread_id: int | None,
        text: str,
        markup: dict[str, Any] | None,
    ) -> bool:
        """An answer in group ``chat_id`` that only ``user_id`` sees (to their command sent
        so, within Telegram's 15 s); False: it could not go (answer as usual)."""
        return False


class UserError(Exception):
    """A polite refusal: the text key of the answer; nothing was changed."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class NeedsStart(UserError):
    """The user must open a DM with the bot first; ``link`` opens it."""

    def __init__(self, link: str) -> None:
        super().__init__("join.needs_dm", link=link)
        self.link = link


class AlreadyOpen(UserError):
    def __init__(self, game: Game, message_id: int | None) -> None:
        super().__init__("newgame.already_open")
        self.game = game
        self.message_id = message_id


@dataclass
class UserInfo:
    id: int
    name: str
    username: str | None = None
    language: str | None = None


@dataclass
class LiveGame:
    game: Game
    series: Any  # the engine series of ``game_side``'s game, None in the lobby
    chat_title: str
    language: str
    # The chat's table customs (turn timer, stand-in); its rules are the game's own.
    settings: ChatSettings = field(default_factory=ChatSettings)
    chat_stamp: int = 0  # Chat.stamp the title, language and settings above were read at
    selections: dict[int, list[Card]] = field(default_factory=dict)
    # Users who tapped PICK: their taps select cards until they play or tap it again.
    picking: set[int] = field(default_factory=set)
    # user id -> clock() of their latest tap (or of the start, whose new hand notified them)
    last_tap: dict[int, float] = field(default_factory=dict)
    # Users known to have no ping up in this game (since it was loaded): a ping is for a
    # turn, and is deleted when that turn is played; unknown ones are deleted to be sure.
    unpinged: set[int] = field(default_factory=set)
    # (deal number, moment, seat): a computer let an out-of-turn chance pass then.
    declined: set[tuple[int, int, int]] = field(default_factory=set)

    @property
    def t(self) -> Texts:
        return texts(self.language)

    @property
    def game_side(self) -> BotGame:
        """The game's bot side, as its stored rules name it."""
        return bot_game(self.game.rules)

    def seat_of(self, user_id: int) -> Seat | None:
        return next((s for s in self.game.seats if s.user_id == user_id), None)


def out_of_group(deadline: Deadline | None) -> bool:
    """The game waits for the bot to be back in its group (``OUT_OF_GROUP``)."""
    return deadline is not None and deadline.seat == OUT_OF_GROUP


def _markup(markup: render.Keyboard | None) -> dict[str, Any] | None:
    return markup


def in_group(markup: dict[str, Any] | None) -> dict[str, Any] | None:
    """A private hand's keyboard as a group may carry it: without its Mini App button
    (Telegram allows ``web_app`` buttons in private chats only)."""
    if not markup:
        return None
    rows = [
        [button for button in row if "web_app" not in button]
        for row in markup.get("inline_keyboard", [])
    ]
    rows = [row for row in rows if row]
    return {"inline_keyboard": rows} if rows else None


def in_private_chat(game: Game) -> bool:
    """A game against computers in its player's private chat (a private chat's id is
    the user's, positive; groups' ids are negative)."""
    return game.chat_id > 0


def one_message(game: Game, ops: tuple[OutboxOp, ...]) -> tuple[OutboxOp, ...]:
    """A private chat takes about one message a second, so a change there costs at most
    one operation: its one game message (the ``hand:`` role, carrying the table and the
    hand) with the change's notes (a «Стоп!», a player marked away) above. Pings are
    dropped (the player is looking at that message, which shows the turn and the
    clock), and so are the group's table and lobby, which that message shows. Only a
    picture or a document (the series result) goes as a message of its own."""
    screen: OutboxOp | None = None
    notes: list[str] = []
    kept: list[OutboxOp] = []
    for op in ops:
        role = op.role or ""
        if op.chat_id != game.chat_id or is_attachment(op.payload):
            kept.append(op)
        elif role.startswith("hand:"):
            screen = op
        elif op.method == "send" and not role and not op.payload.get("reply_markup"):
            notes.append(str(op.payload["text"]))
        elif not role:
            kept.append(op)  # a question with buttons of its own (a /cancel)
    if screen is None:
        return tuple(kept) + tuple(
            OutboxOp(game.chat_id, "send", {"text": note}, game.id) for note in notes
        )
    if notes:
        text = "\n\n".join([*notes, str(screen.payload["text"])])
        screen = replace(screen, payload={**screen.payload, "text": text})
    return (*kept, screen)


class ServiceCore:
    def __init__(
        self,
        storage: Backend,
        *,
        bot_username: str,
        default_language: str = "ru",
        turn_timeout: float = 90,
        away_after: int = 2,
        lobby_timeout: float = 3600,
        computer_pause: float = 1.2,
        by_itself_after: float = BY_ITSELF_AFTER,
        away_stand_in: str | None = "normal",
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.storage = storage
        self.bot_username = bot_username
        self.default_language = default_language
        self.turn_timeout = turn_timeout
        self.away_after = away_after
        self.lobby_timeout = lobby_timeout
        self.computer_pause = computer_pause
        self.by_itself_after = by_itself_after
        self.away_stand_in = away_stand_in
        self.clock = clock
        self.rng = rng or random.SystemRandom()
        # A game's lock exists only while someone holds or awaits it: [lock, users].
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}
        self._live: dict[int, LiveGame] = {}
        # Games locked here, with their state as the lock read it from a shared database.
        self._current: dict[int, GameState] = {}
        self.outbox_ready = asyncio.Event()
        self.chatter = ChatterLimit()
        self.watchers = Watchers()
        self.hand_copies = HandCopies()
        # WEBAPP_URL: the hand messages carry an «🃏 Open table» Mini App button.
        self.webapp_url: str | None = None
        # WEBAPP_LINK: the direct link to a game's table in the Mini App (its signed start
        # parameter made by ``WebApp.table_start``), on a «🃏 Table» button under the
        # group's table; None: no such button.
        self.table_link: Callable[[int], str] | None = None

    # --- loading and committing ------------------------------------------------

    @contextlib.asynccontextmanager
    async def lock(self, game_id: int, *, tapper: int | None = None) -> AsyncIterator[None]:
        """Serialise the changes of one game. Entries are dropped when the last user
        leaves, so taps naming any number of (forged) game ids leave nothing behind.
        ``tapper``: the user whose tap this is (with a shared database, recorded for the
        other instances: no ping for a player looking at their hand)."""
        lock, users = self._locks.get(game_id) or (asyncio.Lock(), 0)
        self._locks[game_id] = (lock, users + 1)
        try:
            # With a shared database the game is also locked for the other instances, and a
            # cached game that one of them changed since is brought up to date or dropped.
            async with (
                lock,
                self.storage.game_lock(game_id, tapper=tapper, at=self.clock()) as state,
            ):
                if state is not None:
                    cached = self._live.get(game_id)
                    if cached is not None and not await self._refresh(cached, state):
                        self._live.pop(game_id, None)
                    self._current[game_id] = state
                try:
                    yield
                finally:
                    self._current.pop(game_id, None)
        finally:
            lock, users = self._locks[game_id]
            if users > 1:
                self._locks[game_id] = (lock, users - 1)
            else:
                del self._locks[game_id]

    async def _refresh(self, live: LiveGame, state: GameState) -> bool:
        """Bring a cached game up to the state the lock read from a shared database, where
        another instance may have changed it, its chat or its selections since. False: it
        must be reloaded."""
        if state.chat_id != live.game.chat_id:
            return False  # the chat became a supergroup: that changes no game version
        if state.version != live.game.version:
            if not await self._catch_up(live, state.version):
                return False
            # Another instance told players about the moves since: whose ping is up (a
            # ping is sent for a turn) is not known here any more.
            live.unpinged.clear()
        if state.chat_stamp != live.chat_stamp:
            await self._reread_chat(live)
        self._sync(live, state)
        return True

    async def _reread_chat(self, live: LiveGame) -> None:
        """The chat's title, language and settings changed (through any instance)."""
        chat = await self.storage.get_chat(live.game.chat_id)
        self._set_chat(live, chat)

    def _set_chat(self, live: LiveGame, chat: Chat | None) -> None:
        live.chat_title = chat.title if chat else ""
        live.language = (chat.language if chat else None) or self.default_language
        live.settings = load_settings(chat.rules)[0] if chat else ChatSettings()
        live.chat_stamp = chat.stamp if chat else 0

    @staticmethod
    def _sync(live: LiveGame, state: GameState) -> None:
        """The selections and taps other instances saw, from the lock's read: the
        database holds every selection (a tap on either instance selects), and the
        latest tap of each player."""
        if state.version == live.game.version:
            selections: dict[int, list[Card]] = {}
            picking: set[int] = set()
            for user_id, codes in state.selections.items():
                try:
                    selections[user_id] = [Card.parse(c) for c in codes if c != PICK]
                except CardCodeError:
                    log.warning("game %s: a stored selection is not cards", live.game.id)
                    continue
                if PICK in codes:  # the player tapped «➕ Several cards» (or its like)
                    picking.add(user_id)
            live.selections, live.picking = selections, picking
        for user_id, at in state.taps.items():
            live.last_tap[user_id] = max(at, live.last_tap.get(user_id, at))

    async def _catch_up(self, live: LiveGame, version: int) -> bool:
        """Bring a cached game that another instance moved on up to ``version`` by playing
        the moves logged since, and dealing the deals they started (two instances taking
        turns at a game would otherwise rebuild it from its whole record on nearly every
        tap, and at every deal's end). False: it must be reloaded (a change since was not
        a plain move, as a void deal dealt again, or the series ended)."""
        series = live.series
        if series is None or live.game.status != "playing" or version < live.game.version:
            return False
        found = await self.storage.catch_up(live.game.id, live.game.version)
        if found is None:
            return False
        game, moves = found
        if game.status != "playing" or game.version != version or game.rules != live.game.rules:
            return False
        engine_game = game_named(live.game_side.name)
        deals: list[DealStart] = []

        async def next_deal() -> bool:
            """Deal the next deal as the move that ended the last one stored it."""
            if not series.deals[-1].finished or series.finished:
                return False
            index = len(series.deals)
            if not deals:
                deals.extend(await self.storage.deals(game.id))
            if index >= len(deals) or deals[index].deal_index != index:
                return False  # not dealt (yet): the reload tells
            start = deals[index]
            series.start_deal([Card.parse(c) for c in start.deck], start.dealer)
            return not series.deals[-1].finished

        try:
            for move in moves:
                if move.deal_index == len(series.deals) and not await next_deal():
                    return False
                if move.deal_index != len(series.deals) - 1 or series.deals[-1].finished:
                    return False
                series.apply(engine_game.action_from_json(move.move))
            if series.deals[-1].finished and not await next_deal():
                return False
        except (EngineError, ValueError, KeyError, TypeError):
            log.warning("game %s: cannot catch up from its move log; reloading", game.id)
            return False  # the series may be half-moved: the caller drops it
        live.game = game
        return True

    async def language_of(self, chat_id: int) -> str:
        chat = await self.storage.get_chat(chat_id)
        return (chat.language if chat else None) or self.default_language

    def cached_language(self, game_id: int) -> str | None:
        """The language of a game being played, if it is in memory (no storage read)."""
        live = self._live.get(game_id)
        return None if live is None else live.language

    def cached_game(self, game_id: int) -> Game | None:
        """A game being played or in its lobby, if it is in memory (no storage read)."""
        live = self._live.get(game_id)
        return None if live is None else live.game

    async def _load(self, game_id: int) -> LiveGame:
        live = self._live.get(game_id)
        locked = self._current.get(game_id)
        if live is not None and (not self.storage.shared or locked is not None):
            return live
        if live is not None:
            # Another instance may change the game or its chat: checked against the database.
            state = await self.storage.game_state(game_id)
            if (
                state is not None
                and state.version == live.game.version
                and state.chat_id == live.game.chat_id
            ):
                if state.chat_stamp != live.chat_stamp:
                    await self._reread_chat(live)
                return live
        game = await self._get_game(game_id)
        chat = await self.storage.get_chat(game.chat_id)
        series = None
        if game.status != "lobby" and game.first_dealer is not None:
            try:
                record = await self.storage.export_record(game_id)
                series = bot_game(game.rules).from_record(record)
            except (EngineError, StorageError):
                log.exception("game %s cannot be rebuilt from its move log", game_id)
                raise UserError("error.corrupt") from None
        live = LiveGame(game=game, series=series, chat_title="", language=self.default_language)
        self._set_chat(live, chat)
        if locked is not None:
            self._sync(live, locked)
        if game.status in OPEN:
            # A load outside the game's lock (a /rules, a /cancel question) may overlap one
            # under it: everyone must share one object, or the lock holder's commit leaves
            # a stale copy in the cache that refuses the next change as a conflict.
            cached = self._live.get(game_id)
            if cached is not None and cached.game.version >= game.version:
                return cached
            self._live[game_id] = live
        return live

    async def _get_game(self, game_id: int) -> Game:
        """Every path from a forged id to storage goes through here (SQLite is 64-bit)."""
        if not 0 < game_id <= MAX_ID:
            raise UserError("error.no_game")
        game = await self.storage.get_game(game_id)
        if game is None:
            raise UserError("error.no_game")
        return game

    async def _commit(self, live: LiveGame, change: GameChange) -> Game:
        if in_private_chat(live.game):
            change = replace(change, outbox=one_message(live.game, change.outbox))
        try:
            game = await self.storage.commit(live.game.id, live.game.version, change)
        except StaleVersionError:
            # Someone else's change got in first; this one was not made. (No keyboard is
            # redrawn here, so the answer must not promise one.)
            self._live.pop(live.game.id, None)
            raise UserError("error.conflict") from None
        except BaseException:
            # The cached engine state may be ahead of storage now: rebuild it next time.
            self._live.pop(live.game.id, None)
            raise
        live.game = game
        if change.move is not None:
            metrics.MOVES.inc()
        if game.status not in OPEN:
            self._live.pop(game.id, None)
        self.outbox_ready.set()
        self.watchers.changed(game.id)
        self.copy_hands(live, change.outbox)
        return game

    def copy_hands(self, live: LiveGame, ops: tuple[OutboxOp, ...] | list[OutboxOp]) -> None:
        """The hands ``ops`` redraw in private chats, redrawn in their copies inside the
        group too (``HandCopies``): the same text and buttons, for the same version. A
        player pinged for their turn gets it anew where the chat asks for that."""
        if in_private_chat(live.game) or not self.hand_copies.used(live.game.id):
            return
        pinged = {
            op.chat_id for op in ops if op.method == "send" and (op.role or "").startswith("ping:")
        }
        at_each_turn = live.settings.group_hands == "turn"
        over = live.game.status not in OPEN
        for op in ops:
            if op.method != "edit" or op.role != f"hand:{op.chat_id}":
                continue
            content = (str(op.payload["text"]), in_group(op.payload.get("reply_markup")))
            at_turn = at_each_turn and op.chat_id in pinged
            self.hand_copies.redraw(live.game.id, op.chat_id, content, at_turn=at_turn, over=over)

    def forget(self, game_id: int) -> None:
        self._live.pop(game_id, None)

    # --- outbox operations -----------------------------------------------------

    def _group(self, live: LiveGame, payload: dict[str, Any]) -> dict[str, Any]:
        if live.game.thread_id is not None:
            payload["message_thread_id"] = live.game.thread_id
        return payload

    def group_send(
        self, live: LiveGame, text: str, markup: render.Keyboard | None = None
    ) -> OutboxOp:
        payload = self._group(live, {"text": text, "reply_markup": _markup(markup)})
        return OutboxOp(live.game.chat_id, "send", payload, live.game.id, None)

    def group_edit(
        self, live: LiveGame, role: str, text: str, markup: render.Keyboard | None = None
    ) -> OutboxOp:
        payload = self._group(live, {"text": text, "reply_markup": _markup(markup)})
        return OutboxOp(live.game.chat_id, "edit", payload, live.game.id, role)

    def dm_edit(
        self,
        live: LiveGame,
        user_id: int,
        text: str,
        markup: render.Keyboard | None,
        milestone: str | None = None,
    ) -> OutboxOp:
        payload = {"text": text, "reply_markup": _markup(markup)}
        return OutboxOp(user_id, "edit", payload, live.game.id, f"hand:{user_id}", milestone)

    def ping(self, live: LiveGame, user_id: int, text: str) -> tuple[OutboxOp, ...]:
        """Replace the player's previous ping with a new message (edits do not notify);
        none for a player who has the game open in the Mini App, which shows
        the turn and its timer."""
        if self.watchers.in_app(live.game.id, user_id):
            return ()
        live.unpinged.discard(user_id)
        return (
            self.ping_delete(live, user_id),
            OutboxOp(user_id, "send", {"text": text}, live.game.id, f"ping:{user_id}"),
        )

    @staticmethod
    def ping_delete(live: LiveGame, user_id: int) -> OutboxOp:
        """Take down the user's ping in this game, whatever message it is by now."""
        return OutboxOp(user_id, "delete", {}, live.game.id, f"ping:{user_id}")

    def unping(self, live: LiveGame, user_id: int) -> list[OutboxOp]:
        """The user's ping taken down: the turn it was for has been played."""
        if user_id in live.unpinged:
            return []
        live.unpinged.add(user_id)
        return [self.ping_delete(live, user_id)]

    def _turn_timeout(self, live: LiveGame) -> float:
        """The chat's turn timer (0: none), else the bot's."""
        timer = live.settings.turn_timer
        return self.turn_timeout if timer is None else float(timer)

    def _stand_in(self, live: LiveGame) -> str | None:
        """Who plays for a player marked away: the chat's choice, else the bot's."""
        chosen = live.settings.stand_in
        if chosen is None:
            return self.away_stand_in
        return None if chosen == "off" else chosen

    def _seconds_left(self, live: LiveGame) -> int | None:
        deadline = live.game.deadline
        if deadline is None or out_of_group(deadline):
            return None
        return max(0, round(deadline.due_at - self.clock()))

    # --- reading -----------------------------------------------------------------

    async def open_live(self, chat_id: int, thread_id: int | None) -> LiveGame | None:
        game = await self.storage.open_game(chat_id, thread_id)
        return None if game is None else await self._load(game.id)

    async def live(self, game_id: int) -> LiveGame:
        return await self._load(game_id)
