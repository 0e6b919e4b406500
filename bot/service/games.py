"""The games in play, in memory: one game changed at a time (its lock), each loaded once
and kept while it is open, and every change committed to storage with the outbox
operations that tell players about it, in one transaction, before the tap is answered
(the delivery worker sends the outbox later, at Telegram's pace)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import replace

from bot import metrics
from bot.chat_settings import ChatSettings
from bot.chat_settings import load as load_settings
from bot.games import bot_game
from bot.games.base import PICK
from bot.service.errors import UserError
from bot.service.live import OPEN, LiveGame, in_private_chat
from bot.service.outbox import Outbox, one_message
from bot.service.settings import ServiceSettings
from engine import Card, CardCodeError, EngineError
from storage import (
    Backend,
    Chat,
    DealStart,
    Game,
    GameChange,
    GameState,
    StaleVersionError,
    StorageError,
)

log = logging.getLogger(__name__)

MAX_ID = 2**63 - 1  # SQLite's largest integer


class Games:
    def __init__(self, storage: Backend, outbox: Outbox, settings: ServiceSettings) -> None:
        self.storage = storage
        self.outbox = outbox
        self.settings = settings
        # A game's lock exists only while someone holds or awaits it: [lock, users].
        self.locks: dict[int, tuple[asyncio.Lock, int]] = {}
        self.in_memory: dict[int, LiveGame] = {}
        # Games locked here, with their state as the lock read it from a shared database.
        self._current: dict[int, GameState] = {}

    @contextlib.asynccontextmanager
    async def lock(self, game_id: int, *, tapper: int | None = None) -> AsyncIterator[None]:
        """Serialise the changes of one game. Entries are dropped when the last user
        leaves, so taps naming any number of (forged) game ids leave nothing behind.
        ``tapper``: the user whose tap this is (with a shared database, recorded for the
        other instances: no ping for a player looking at their hand)."""
        lock, users = self.locks.get(game_id) or (asyncio.Lock(), 0)
        self.locks[game_id] = (lock, users + 1)
        try:
            # With a shared database the game is also locked for the other instances, and a
            # cached game that one of them changed since is brought up to date or dropped.
            async with (
                lock,
                self.storage.game_lock(game_id, tapper=tapper, at=self.settings.clock()) as state,
            ):
                if state is not None:
                    cached = self.in_memory.get(game_id)
                    if cached is not None and not await self._refresh(cached, state):
                        self.in_memory.pop(game_id, None)
                    self._current[game_id] = state
                try:
                    yield
                finally:
                    self._current.pop(game_id, None)
        finally:
            lock, users = self.locks[game_id]
            if users > 1:
                self.locks[game_id] = (lock, users - 1)
            else:
                del self.locks[game_id]

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
        live.language = (chat.language if chat else None) or self.settings.default_language
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
        played = live.played
        if played is None or live.game.status != "playing" or version < live.game.version:
            return False
        found = await self.storage.catch_up(live.game.id, live.game.version)
        if found is None:
            return False
        game, moves = found
        if game.status != "playing" or game.version != version or game.rules != live.game.rules:
            return False
        series = played.series
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
                played.apply_json(move.move)
            if series.deals[-1].finished and not await next_deal():
                return False
        except (EngineError, ValueError, KeyError, TypeError):
            log.warning("game %s: cannot catch up from its move log; reloading", game.id)
            return False  # the series may be half-moved: the caller drops it
        live.game = game
        return True

    async def language_of(self, chat_id: int) -> str:
        chat = await self.storage.get_chat(chat_id)
        return (chat.language if chat else None) or self.settings.default_language

    def cached_language(self, game_id: int) -> str | None:
        """The language of a game being played, if it is in memory (no storage read)."""
        live = self.in_memory.get(game_id)
        return None if live is None else live.language

    def cached_game(self, game_id: int) -> Game | None:
        """A game being played or in its lobby, if it is in memory (no storage read)."""
        live = self.in_memory.get(game_id)
        return None if live is None else live.game

    async def load(self, game_id: int) -> LiveGame:
        live = self.in_memory.get(game_id)
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
        game = await self.get_game(game_id)
        chat = await self.storage.get_chat(game.chat_id)
        played = None
        if game.status != "lobby" and game.first_dealer is not None:
            try:
                record = await self.storage.export_record(game_id)
                played = bot_game(game.rules).load(record)
            except (EngineError, StorageError):
                log.exception("game %s cannot be rebuilt from its move log", game_id)
                raise UserError("error.corrupt") from None
        live = LiveGame(
            game=game, played=played, chat_title="", language=self.settings.default_language
        )
        self._set_chat(live, chat)
        if locked is not None:
            self._sync(live, locked)
        if game.status in OPEN:
            # A load outside the game's lock (a /rules, a /cancel question) may overlap one
            # under it: everyone must share one object, or the lock holder's commit leaves
            # a stale copy in the cache that refuses the next change as a conflict.
            cached = self.in_memory.get(game_id)
            if cached is not None and cached.game.version >= game.version:
                return cached
            self.in_memory[game_id] = live
        return live

    async def get_game(self, game_id: int) -> Game:
        """Every path from a forged id to storage goes through here (SQLite is 64-bit)."""
        if not 0 < game_id <= MAX_ID:
            raise UserError("error.no_game")
        game = await self.storage.get_game(game_id)
        if game is None:
            raise UserError("error.no_game")
        return game

    async def commit(self, live: LiveGame, change: GameChange) -> Game:
        if in_private_chat(live.game):
            change = replace(change, outbox=one_message(live.game, change.outbox))
        try:
            game = await self.storage.commit(live.game.id, live.game.version, change)
        except StaleVersionError:
            # Someone else's change got in first; this one was not made. (No keyboard is
            # redrawn here, so the answer must not promise one.)
            self.in_memory.pop(live.game.id, None)
            raise UserError("error.conflict") from None
        except BaseException:
            # The cached engine state may be ahead of storage now: rebuild it next time.
            self.in_memory.pop(live.game.id, None)
            raise
        live.game = game
        if change.move is not None:
            metrics.MOVES.inc()
        if game.status not in OPEN:
            self.in_memory.pop(game.id, None)
        self.outbox.committed(live, change.outbox)
        return game

    def forget(self, game_id: int) -> None:
        self.in_memory.pop(game_id, None)

    # --- reading -----------------------------------------------------------------

    async def open_live(self, chat_id: int, thread_id: int | None) -> LiveGame | None:
        game = await self.storage.open_game(chat_id, thread_id)
        return None if game is None else await self.load(game.id)
