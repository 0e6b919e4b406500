"""The game service: every change to a game goes through here, one game at a time.

A change is computed on the engine, then committed to storage together with the
outbox rows that tell players about it (one transaction), and only then is the
tap answered. The delivery worker sends the outbox later, at Telegram's pace.
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

from bot import burkozel_house as house
from bot import metrics, render
from bot.chat_settings import (
    NO_TIMER_REMINDER,
    ChatSettings,
    SettingsError,
    fits_seats,
    rules_of_game,
)
from bot.chat_settings import load as load_settings
from bot.chatter import ChatterLimit
from bot.i18n import Texts, html_join, texts
from bot.lobby_watch import tell_lobby_watchers
from bot.picture import with_series_picture
from bot.settings_view import lobby_rules_line as rules_summary
from bot.stats import series_end_of
from engine import (
    Card,
    CardCodeError,
    EngineError,
    Move,
    RuleSet,
    Series,
    from_record,
    shuffled_deck,
)
from engine.ai import LEVELS, make_player, safe_move
from storage import (
    Backend,
    Deadline,
    DealStart,
    DealTally,
    Game,
    GameChange,
    GameExistsError,
    LoggedMove,
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
    series: Series | None
    chat_title: str
    language: str
    # The chat's table customs (turn timer, stand-in); its rules are the game's own.
    settings: ChatSettings = field(default_factory=ChatSettings)
    selections: dict[int, list[Card]] = field(default_factory=dict)
    last_tap: dict[int, float] = field(default_factory=dict)  # user id -> clock()

    @property
    def t(self) -> Texts:
        return texts(self.language)

    def seat_of(self, user_id: int) -> Seat | None:
        return next((s for s in self.game.seats if s.user_id == user_id), None)


def _markup(markup: render.Keyboard | None) -> dict[str, Any] | None:
    return markup


class GameService:
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
        self.away_stand_in = away_stand_in
        self.clock = clock
        self.rng = rng or random.SystemRandom()
        # A game's lock exists only while someone holds or awaits it: [lock, users].
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}
        self._live: dict[int, LiveGame] = {}
        self._current: set[int] = set()  # games locked here and checked against a shared db
        self.outbox_ready = asyncio.Event()
        self.chatter = ChatterLimit()

    # --- loading and committing ------------------------------------------------

    @contextlib.asynccontextmanager
    async def lock(self, game_id: int) -> AsyncIterator[None]:
        """Serialise the changes of one game. Entries are dropped when the last user
        leaves, so taps naming any number of (forged) game ids leave nothing behind."""
        lock, users = self._locks.get(game_id) or (asyncio.Lock(), 0)
        self._locks[game_id] = (lock, users + 1)
        try:
            # With a shared database the game is also locked for the other instances, and a
            # cached game that one of them changed since is dropped (storage/pg.py).
            async with lock, self.storage.game_lock(game_id) as version:
                if version is not None:
                    cached = self._live.get(game_id)
                    if cached is not None and cached.game.version != version:
                        self._live.pop(game_id, None)
                    self._current.add(game_id)
                try:
                    yield
                finally:
                    self._current.discard(game_id)
        finally:
            lock, users = self._locks[game_id]
            if users > 1:
                self._locks[game_id] = (lock, users - 1)
            else:
                del self._locks[game_id]

    async def language_of(self, chat_id: int) -> str:
        chat = await self.storage.get_chat(chat_id)
        return (chat.language if chat else None) or self.default_language

    def cached_language(self, game_id: int) -> str | None:
        """The language of a game being played, if it is in memory (no storage read)."""
        live = self._live.get(game_id)
        return None if live is None else live.language

    async def _load(self, game_id: int) -> LiveGame:
        live = self._live.get(game_id)
        if live is not None and (not self.storage.shared or game_id in self._current):
            return live
        if live is not None and await self.storage.game_version(game_id) == live.game.version:
            return live  # another instance may change the game: checked against the database
        game = await self._get_game(game_id)
        chat = await self.storage.get_chat(game.chat_id)
        series = None
        if game.status != "lobby" and game.first_dealer is not None:
            try:
                series = from_record(await self.storage.export_record(game_id))
            except (EngineError, StorageError):
                log.exception("game %s cannot be rebuilt from its move log", game_id)
                raise UserError("error.corrupt") from None
        live = LiveGame(
            game=game,
            series=series,
            chat_title=chat.title if chat else "",
            language=(chat.language if chat else None) or self.default_language,
            settings=load_settings(chat.rules)[0] if chat else ChatSettings(),
        )
        if game.status in OPEN:
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
        return game

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
        self, live: LiveGame, user_id: int, text: str, markup: render.Keyboard | None
    ) -> OutboxOp:
        payload = {"text": text, "reply_markup": _markup(markup)}
        return OutboxOp(user_id, "edit", payload, live.game.id, f"hand:{user_id}")

    def ping(self, live: LiveGame, user_id: int, text: str) -> tuple[OutboxOp, OutboxOp]:
        """Replace the player's previous ping with a new message (edits do not notify)."""
        role = f"ping:{user_id}"
        return (
            OutboxOp(user_id, "delete", {}, live.game.id, role),
            OutboxOp(user_id, "send", {"text": text}, live.game.id, role),
        )

    def _seconds_left(self, live: LiveGame) -> int | None:
        deadline = live.game.deadline
        if deadline is None:
            return None
        return max(0, round(deadline.due_at - self.clock()))

    def hand_op(self, live: LiveGame, seat: Seat, *, version: int | None = None) -> OutboxOp:
        """The player's hand redrawn. ``version``: the game version its buttons are for;
        ops committed with a change must pass the version that commit creates
        (``live.game.version + 1``), or the new keyboard would be stale at once."""
        assert live.series is not None and seat.user_id is not None
        game = live.game if version is None else replace(live.game, version=version)
        deal = live.series.deals[-1]
        t = live.t
        seconds = self._seconds_left(live) if deal.turn == seat.seat else None
        text = render.hand_text(
            t,
            game,
            live.chat_title,
            deal,
            seat.seat,
            deal_number=len(live.series.deals),
            turn_seconds=seconds,
            previous=render.previous_trick(live.series),
        )
        selection = live.selections.get(seat.user_id, [])
        markup = render.hand_keyboard(t, game, deal, seat.seat, selection)
        return self.dm_edit(live, seat.user_id, text, markup)

    def _hand_ops(self, live: LiveGame) -> list[OutboxOp]:
        """Every hand redrawn, for a commit (so drawn for the version it creates)."""
        after = live.game.version + 1
        return [
            self.hand_op(live, s, version=after) for s in live.game.seats if s.user_id is not None
        ]

    def _play_ops(self, live: LiveGame, *, last_mover: int | None) -> list[OutboxOp]:
        """Table and hands redrawn for the new state, and a ping for the player to act.
        They are committed with the change, so keyboards carry the version it creates."""
        assert live.series is not None
        deal = live.series.deals[-1]
        seconds = self._seconds_left(live)
        ops = [
            self.group_edit(
                live,
                "table",
                render.table_text(live.t, live.game, live.series, turn_seconds=seconds),
            )
        ]
        ops += self._hand_ops(live)
        turn = deal.turn
        if turn is not None and turn != last_mover:
            seat = live.game.seats[turn]
            if seat.user_id is not None and not seat.away and self._idle(live, seat.user_id):
                ops += self.ping(live, seat.user_id, live.t("ping.your_turn", chat=live.chat_title))
        stopper = deal.stopper() if deal.turn is not None else None
        if stopper is not None and stopper != turn:  # C3/C4: may act out of turn: pinged
            seat = live.game.seats[stopper]
            if seat.user_id is not None and not seat.away:
                ops += self.ping(
                    live, seat.user_id, live.t("house.ping_stop", chat=live.chat_title)
                )
        return ops

    def _idle(self, live: LiveGame, user_id: int) -> bool:
        tapped = live.last_tap.get(user_id)
        return tapped is None or self.clock() - tapped > PING_AFTER_IDLE

    def _closing_ops(self, live: LiveGame, status: str) -> list[OutboxOp]:
        t = live.t
        ops: list[OutboxOp] = []
        if live.series is None:
            text = render.lobby_closed_text(t, live.game, status)
            ops.append(self.group_edit(live, "lobby", text))
            return ops
        ops.append(
            self.group_edit(
                live, "table", render.final_table_text(t, live.game, live.series, status)
            )
        )
        for seat in live.game.seats:
            if seat.user_id is not None:
                text = render.hand_over_text(t, live.chat_title, status)
                ops.append(self.dm_edit(live, seat.user_id, text, None))
                ops.append(
                    OutboxOp(seat.user_id, "delete", {}, live.game.id, f"ping:{seat.user_id}")
                )
        return ops

    def _turn_timeout(self, live: LiveGame) -> float:
        """The chat's turn timer (0: none), else the bot's."""
        timer = live.settings.turn_timer
        return self.turn_timeout if timer is None else float(timer)

    def _stand_in(self, live: LiveGame) -> str | None:
        chosen = live.settings.stand_in
        if chosen is None:
            return self.away_stand_in
        return None if chosen == "off" else chosen

    def _deadline_for(self, live: LiveGame, series: Series) -> Deadline | None:
        deal = series.current
        if deal is None or deal.turn is None:
            return None
        now = self.clock()
        stopper = deal.stopper()
        if stopper is not None and live.game.seats[stopper].bot_level is not None:
            # C3/C4: a computer that may lead out of turn does so (engine/ai/house.py).
            return Deadline(stopper, now + self.computer_pause, None)
        seat = live.game.seats[deal.turn]
        timeout = self._turn_timeout(live)
        if seat.bot_level is not None:
            return Deadline(seat.seat, now + self.computer_pause, None)
        if timeout == 0:  # no timer: nobody is played for; a gentle reminder now and then
            return Deadline(seat.seat, now + NO_TIMER_REMINDER, None)
        if seat.away:
            return Deadline(seat.seat, now + min(3.0, timeout), None)
        return Deadline(seat.seat, now + timeout, now + timeout * 2 / 3)

    # --- lobby -------------------------------------------------------------------

    async def remember_user(self, user: UserInfo) -> bool:
        """Record the user; True if they have started the bot (so we may DM them)."""
        record = await self.storage.upsert_user(user.id, user.name, user.username, user.language)
        return record.started

    async def new_game(
        self,
        chat_id: int,
        title: str,
        thread_id: int | None,
        user: UserInfo,
        game_name: str | None = None,
    ) -> Game:
        """A lobby with the chat's default rules (of ``game_name``, else the chat's game)."""
        chat = await self.storage.upsert_chat(chat_id, title)
        settings, broken = load_settings(chat.rules)
        started = await self.remember_user(user)
        seats = (Seat(0, user.id, None, user.name),) if started else ()
        try:
            game = await self.storage.create_game(
                chat_id,
                thread_id,
                settings.game_rules(game_name),
                user.id,
                seats,
                self.clock() + self.lobby_timeout,
            )
        except GameExistsError as exc:
            role = "lobby" if exc.game.status == "lobby" else "table"
            ref = await self.storage.get_message(exc.game.id, role)
            if ref is None and exc.game.status == "lobby":
                await self._repost_lobby(exc.game.id)
            raise AlreadyOpen(exc.game, ref.message_id if ref else None) from None
        await self._repost_lobby(game.id)
        if broken is not None:
            # A stored setting that cannot be read: this game has the base rules, and the
            # group is told why (the lobby itself is unaffected).
            log.warning("chat %s settings: %s", chat_id, broken.detail)
            note = texts(chat.language or self.default_language)(
                "settings.broken_note", detail=broken.detail
            )
            payload: dict[str, Any] = {"text": note}
            if thread_id is not None:
                payload["message_thread_id"] = thread_id
            await self.storage.enqueue((OutboxOp(chat_id, "send", payload, game.id, None),))
            self.outbox_ready.set()
        await tell_lobby_watchers(self, game)
        if not started:
            raise NeedsStart(self.join_link(game.id))
        return game

    async def _repost_lobby(self, game_id: int) -> None:
        async with self.lock(game_id):
            live = await self._load(game_id)
            await self._commit(live, GameChange(outbox=(self._lobby_op(live),)))

    def join_link(self, game_id: int) -> str:
        return render.deep_link(self.bot_username, f"j{game_id}")

    def _lobby_op(self, live: LiveGame) -> OutboxOp:
        t = live.t
        return self.group_edit(
            live,
            "lobby",
            render.lobby_text(t, live.game, rules_summary(t, live.game.rules)),
            render.lobby_keyboard(t, live.game, self.bot_username),
        )

    async def set_lobby_rules(
        self, game_id: int, user_id: int, rules: dict[str, Any], menu: OutboxOp
    ) -> Game:
        """The lobby creator's ⚙ Rules: this game's rules before Start, the lobby message
        redrawn and the menu edited with the same commit."""
        async with self.lock(game_id):
            live = await self._lobby(game_id)
            if live.game.created_by != user_id:
                raise UserError("settings.creator_only")
            live.game = replace(live.game, rules=rules)
            return await self._commit(
                live, GameChange(rules=rules, outbox=(self._lobby_op(live), menu))
            )

    async def rematch(self, game_id: int, user: UserInfo) -> Game:
        """A new series at the same table: the same seats, back in the lobby."""
        await self.remember_user(user)
        old = await self._get_game(game_id)
        if old.status in OPEN:
            raise UserError("newgame.already_open")
        if not any(s.user_id == user.id for s in old.seats):
            raise UserError("error.not_seated")
        seats: list[Seat] = []
        for seat in old.seats:
            known = None if seat.user_id is None else await self.storage.get_user(seat.user_id)
            if seat.user_id is None or (known is not None and known.started):
                seats.append(replace(seat, seat=len(seats), away=False, autoplayed=0))
        try:
            # The same table plays the same game and rules again; the creator may change
            # them before Start (⚙ Rules).
            game = await self.storage.create_game(
                old.chat_id,
                old.thread_id,
                old.rules,
                user.id,
                tuple(seats),
                self.clock() + self.lobby_timeout,
            )
        except GameExistsError:
            raise UserError("newgame.already_open") from None
        await self._repost_lobby(game.id)
        await tell_lobby_watchers(self, game)
        return game

    async def _lobby(self, game_id: int) -> LiveGame:
        live = await self._load(game_id)
        if live.game.status != "lobby":
            raise UserError("lobby.not_open")
        return live

    async def _change_seats(self, live: LiveGame, seats: tuple[Seat, ...]) -> Game:
        numbered = tuple(replace(s, seat=i) for i, s in enumerate(seats))
        live.game = replace(live.game, seats=numbered)
        return await self._commit(live, GameChange(seats=numbered, outbox=(self._lobby_op(live),)))

    async def join(self, game_id: int, user: UserInfo) -> Game:
        started = await self.remember_user(user)
        async with self.lock(game_id):
            live = await self._lobby(game_id)
            if live.seat_of(user.id) is not None:
                raise UserError("lobby.already_in")
            if len(live.game.seats) >= MAX_SEATS:
                raise UserError("lobby.full")
            if not started:
                raise NeedsStart(self.join_link(game_id))
            seat = Seat(len(live.game.seats), user.id, None, user.name)
            return await self._change_seats(live, (*live.game.seats, seat))

    async def leave(self, game_id: int, user_id: int) -> Game:
        async with self.lock(game_id):
            live = await self._lobby(game_id)
            if live.seat_of(user_id) is None:
                raise UserError("lobby.not_in")
            seats = tuple(s for s in live.game.seats if s.user_id != user_id)
            if not any(s.user_id is not None for s in seats):
                live.game = replace(live.game, seats=seats)
                ops = tuple(self._closing_ops(live, "cancelled"))
                return await self._commit(
                    live, GameChange(status="cancelled", seats=seats, outbox=ops)
                )
            return await self._change_seats(live, seats)

    async def add_computer(self, game_id: int, user_id: int, level: str) -> Game:
        if level not in LEVELS:
            raise UserError("computer.bad_level")
        async with self.lock(game_id):
            live = await self._lobby(game_id)
            if live.seat_of(user_id) is None:
                raise UserError("lobby.join_first")
            if len(live.game.seats) >= MAX_SEATS:
                raise UserError("lobby.full")
            number = 1 + sum(1 for s in live.game.seats if s.bot_level is not None)
            name = live.t.alert("computer.name", n=number, level=live.t(f"computer.{level}"))
            seat = Seat(len(live.game.seats), None, level, name)
            return await self._change_seats(live, (*live.game.seats, seat))

    async def start(self, game_id: int, user_id: int) -> Game:
        async with self.lock(game_id):
            live = await self._lobby(game_id)
            if live.seat_of(user_id) is None:
                raise UserError("lobby.join_first")
            players = len(live.game.seats)
            if players < 2:
                raise UserError("lobby.too_few")
            try:
                game_name, rules = rules_of_game(live.game.rules)
            except EngineError:
                raise UserError("error.corrupt") from None
            if game_name != "burkozel" or not isinstance(rules, RuleSet):
                raise UserError("lobby.game_not_ready")
            try:
                fits_seats(rules, players)  # B5: pairs need exactly 4
            except SettingsError as exc:
                raise UserError(exc.key, players=players) from None
            dealer = self.rng.randrange(players)
            series = Series(players, rules, first_dealer=dealer)
            deal = series.start_deal(shuffled_deck(rng=self.rng))  # R3
            live.series = series
            live.game = replace(live.game, deadline=self._deadline_for(live, series))
            t = live.t
            started = t(
                "lobby.started",
                players=html_join(", ", (render.seat_name(s) for s in live.game.seats)),
            )
            ops = [self.group_edit(live, "lobby", started), *self._play_ops(live, last_mover=None)]
            change = GameChange(
                status="playing",
                first_dealer=dealer,
                new_deal=DealStart(0, deal.dealer, tuple(c.code() for c in deal.deck)),
                deadline=live.game.deadline,
                lobby_expires_at=None,
                outbox=tuple(ops),
            )
            return await self._commit(live, change)

    # --- play ------------------------------------------------------------------

    async def _playing(self, game_id: int, user_id: int, version: int) -> tuple[LiveGame, Seat]:
        live = await self._load(game_id)
        seat = live.seat_of(user_id)
        if seat is None:
            raise UserError("error.not_seated")
        if live.game.status != "playing" or live.series is None:
            raise UserError("error.game_over")
        if version != live.game.version:
            # An old keyboard: redraw the current one so the next tap works.
            await self.storage.enqueue((self.hand_op(live, seat),))
            self.outbox_ready.set()
            raise UserError("error.stale")
        return live, seat

    async def toggle(self, game_id: int, user_id: int, version: int, code: str) -> bool:
        """A tap on a card: plays it if it is a whole move by itself (True), else selects
        or unselects it (False)."""
        async with self.lock(game_id):
            live, seat = await self._playing(game_id, user_id, version)
            try:
                card = Card.parse(code)
            except CardCodeError:
                raise UserError("error.forged") from None
            assert live.series is not None
            deal = live.series.deals[-1]
            if card not in deal.hand(seat.seat):
                raise UserError("error.not_your_card")
            stored = await self.storage.get_selection(game_id, user_id, live.game.version)
            if stored is not None:  # a shared database: another instance may have a selection
                live.selections[user_id] = [Card.parse(c) for c in stored]
            live.last_tap[user_id] = self.clock()
            chosen = live.selections.setdefault(user_id, [])
            move = None if chosen else render.one_tap_move(deal, seat.seat, card)
            if move is not None:
                await self._apply(live, move, autoplayed=False)
                return True
            if card in chosen:
                chosen.remove(card)
            else:
                chosen.append(card)
            await self.storage.set_selection(
                game_id, user_id, live.game.version, [c.code() for c in chosen]
            )
            await self.storage.enqueue((self.hand_op(live, seat),))
            self.outbox_ready.set()
            return False

    async def play(self, game_id: int, user_id: int, version: int, kind: str, codes: str) -> None:
        async with self.lock(game_id):
            live, seat = await self._playing(game_id, user_id, version)
            assert live.series is not None
            deal = live.series.deals[-1]
            # C3/C4: an out-of-turn lead ("o") is the one move a seat off turn may make.
            if deal.turn != seat.seat and kind != "o":
                raise UserError("error.not_your_turn")
            live.last_tap[user_id] = self.clock()
            if kind == "s":  # C1/C2: show бура or Москва
                if codes not in ("bura", "moscow"):
                    raise UserError("error.forged")
                move = Move(seat.seat, (), show=codes)
            else:
                try:
                    cards = tuple(Card.parse(c) for c in codes.split("."))
                except CardCodeError:
                    raise UserError("error.forged") from None
                beat = {"l": None, "b": True, "d": False, "o": None}
                if kind not in beat:
                    raise UserError("error.forged")
                move = Move(seat.seat, cards, beat[kind], stop=kind == "o")
            try:
                deal.check(move)
            except EngineError:
                raise UserError("error.illegal") from None
            await self._apply(live, move, autoplayed=False)

    async def _apply(self, live: LiveGame, move: Move, *, autoplayed: bool) -> Game:
        series = live.series
        assert series is not None
        deal = series.deals[-1]
        deal_index = len(series.deals) - 1
        game = live.game
        t = live.t
        series.apply(move)  # checked by the caller; the cache is dropped if the commit fails
        live.selections.clear()
        seats = list(game.seats)
        mover = seats[move.seat]
        if mover.user_id is not None:
            if autoplayed:
                streak = mover.autoplayed + 1
                seats[move.seat] = replace(mover, autoplayed=streak, away=streak >= self.away_after)
            else:
                seats[move.seat] = replace(mover, autoplayed=0, away=False)
        live.game = game = replace(game, seats=tuple(seats))
        ops: list[OutboxOp] = []
        if autoplayed:
            ops.append(self.group_send(live, t("afk.autoplayed", name=render.seat_name(mover))))
            if seats[move.seat].away and not mover.away:
                ops.append(self.group_send(live, t("afk.away", name=render.seat_name(mover))))
        change: dict[str, Any] = {"move": LoggedMove(deal_index, move.to_json())}
        status = None
        if deal.finished:
            result = deal.result()
            change["tally"] = DealTally(deal_index, result.points, result.penalties)
            ops.append(
                self.group_send(
                    live,
                    render.deal_end_text(t, game, deal_index + 1, result, series.totals, series),
                )
            )
            if series.finished:
                status = "finished"
                outcome = series.result()
                change["winners"] = outcome.winners
                # Stats and ratings are recorded by the commit that finishes the series.
                change["series_end"] = series_end_of(game, series)
                result_op = self.group_send(
                    live,
                    render.series_end_text(t, game, outcome.totals, outcome.winners, series.rules),
                    render.again_keyboard(t, game),
                )
                ops.append(with_series_picture(result_op))
            else:
                nxt = series.start_deal(shuffled_deck(rng=self.rng))  # R4 dealer
                change["new_deal"] = DealStart(
                    deal_index + 1, nxt.dealer, tuple(c.code() for c in nxt.deck)
                )
        humans = [s for s in game.seats if s.user_id is not None]
        if status is None and humans and all(s.away for s in humans):
            status = "abandoned"
            ops.append(self.group_send(live, t("afk.abandoned")))
        if status is not None:
            change["status"] = status
            change["deadline"] = None
            live.game = replace(game, deadline=None, status=status)
            ops += self._closing_ops(live, status)
        else:
            deadline = self._deadline_for(live, series)
            change["deadline"] = deadline
            live.game = replace(game, deadline=deadline)
            ops += self._play_ops(live, last_mover=move.seat)
        return await self._commit(live, GameChange(seats=game.seats, outbox=tuple(ops), **change))

    # --- cancel ------------------------------------------------------------------

    async def cancel_request(self, chat_id: int, thread_id: int | None, user_id: int) -> LiveGame:
        game = await self.storage.open_game(chat_id, thread_id)
        if game is None:
            raise UserError("cancel.nothing")
        live = await self._load(game.id)
        if live.seat_of(user_id) is None:
            raise UserError("error.not_seated")
        return live

    async def cancel(self, game_id: int, user_id: int) -> Game:
        """A confirmed /cancel: valid as long as the game is open, whatever moved since."""
        async with self.lock(game_id):
            live = await self._load(game_id)
            if live.game.status not in OPEN:
                raise UserError("error.game_over")
            if live.seat_of(user_id) is None:
                raise UserError("error.not_seated")
            return await self._close(live, "cancelled")

    async def _close(self, live: LiveGame, status: str, reason: str | None = None) -> Game:
        live.game = replace(live.game, status=status, deadline=None)
        ops = tuple(self._closing_ops(live, reason or status))
        return await self._commit(live, GameChange(status=status, deadline=None, outbox=ops))

    # --- the DM side -------------------------------------------------------------

    async def user_started(self, user: UserInfo, payload: str | None) -> list[str]:
        """A /start in the DM: we may message them now. Returns text keys to answer with."""
        await self.remember_user(user)
        await self.storage.set_user_started(user.id, True)
        answers = []
        if payload and payload.startswith("j") and payload[1:].isdigit():
            try:
                await self.join(int(payload[1:]), user)
                answers.append("start.joined")
            except UserError as exc:
                answers.append(exc.key)
        # Bring back the hand messages of games they were cut off from.
        for game in await self.storage.games_of_user(user.id):
            if game.status != "playing":
                continue
            async with self.lock(game.id):
                live = await self._load(game.id)
                seat = live.seat_of(user.id)
                if seat is not None and live.series is not None:
                    await self.storage.enqueue((self.hand_op(live, seat),))
        self.outbox_ready.set()
        return answers or ["start.welcome"]

    async def user_unreachable(self, user_id: int) -> None:
        """A DM answered 403: tell each of their games' groups how to bring them back.

        Every pending DM to them fails the same way; only the first posts the link."""
        user = await self.storage.get_user(user_id)
        if user is not None and not user.started:
            return
        await self.storage.set_user_started(user_id, False)
        for game in await self.storage.games_of_user(user_id):
            async with self.lock(game.id):
                live = await self._load(game.id)
                seat = live.seat_of(user_id)
                if seat is None:
                    continue
                text = live.t(
                    "dm.unreachable",
                    name=render.seat_name(seat),
                    link=render.deep_link(self.bot_username, "hi"),
                )
                await self.storage.enqueue((self.group_send(live, text),))
        self.outbox_ready.set()

    async def chat_migrated(self, old_id: int, new_id: int) -> None:
        await self.storage.migrate_chat(old_id, new_id)
        for game_id, live in list(self._live.items()):
            if live.game.chat_id == old_id:
                self._live.pop(game_id, None)
        self.outbox_ready.set()

    async def save_chat_settings(self, chat_id: int, title: str, settings: ChatSettings) -> None:
        """The chat's new defaults. Games already created keep their rules (Game.rules);
        the table customs (timer, stand-in) apply from the next turn."""
        await self.storage.upsert_chat(chat_id, title)
        await self.storage.set_chat_rules(chat_id, settings.to_dict())
        for live in self._live.values():
            if live.game.chat_id == chat_id:
                live.settings = settings

    async def set_language(self, chat_id: int, title: str, language: str) -> None:
        await self.storage.upsert_chat(chat_id, title)
        await self.storage.set_chat_language(chat_id, language)
        for live in self._live.values():
            if live.game.chat_id == chat_id:
                live.language = language

    # --- timers ------------------------------------------------------------------

    async def tick(self) -> None:
        """Expire lobbies, remind and auto-play overdue players, move computer players."""
        now = self.clock()
        for game in await self.storage.expired_lobbies(now):
            async with self.lock(game.id):
                live = await self._load(game.id)
                if live.game.status == "lobby":
                    await self._close(live, "cancelled", reason="expired")
        for game in await self.storage.due_deadlines(now):
            with contextlib.suppress(UserError):
                await self._on_deadline(game.id)

    async def _on_deadline(self, game_id: int) -> None:
        async with self.lock(game_id):
            live = await self._load(game_id)
            deadline = live.game.deadline
            series = live.series
            if live.game.status != "playing" or deadline is None or series is None:
                return
            deal = series.current
            now = self.clock()
            if deal is None or deadline.seat not in deal.actors():
                fixed = self._deadline_for(live, series)
                live.game = replace(live.game, deadline=fixed)
                ops = tuple(self._hand_ops(live))  # every commit makes old keyboards stale
                await self._commit(live, GameChange(deadline=fixed, outbox=ops))
                return
            seat = live.game.seats[deadline.seat]
            if (
                deadline.due_at <= now
                and seat.user_id is not None
                and self._turn_timeout(live) == 0
            ):
                # No timer: nobody plays for a human; remind them, and again later.
                text = live.t("ping.gentle", chat=live.chat_title)
                later = Deadline(seat.seat, now + NO_TIMER_REMINDER, None)
                live.game = replace(live.game, deadline=later)
                ops = (*self.ping(live, seat.user_id, text), *self._hand_ops(live))
                await self._commit(live, GameChange(deadline=later, outbox=ops))
            elif deadline.due_at <= now:
                view = deal.view(seat.seat)
                legal = deal.legal_moves(seat.seat)
                if seat.bot_level is None:
                    # Auto-play for a human never shows or leads out of turn for them.
                    legal = house.ordinary(legal)
                # A player marked away is stood in for by a computer, if the bot is set so.
                level = seat.bot_level or (self._stand_in(live) if seat.away else None)
                if deal.turn != seat.seat:
                    move = legal[0]  # a computer off turn is offered only its C3/C4 lead
                elif level is not None:
                    seed = live.game.id * 100_003 + live.game.version
                    player = make_player(level, seed=seed)
                    move = await asyncio.to_thread(player.choose, view, legal)
                else:
                    move = safe_move(view, legal)
                await self._apply(live, move, autoplayed=seat.bot_level is None)
            elif deadline.remind_at is not None and not deadline.reminded:
                assert seat.user_id is not None
                text = live.t(
                    "ping.hurry", chat=live.chat_title, seconds=round(deadline.due_at - now)
                )
                reminded = replace(deadline, reminded=True)
                live.game = replace(live.game, deadline=reminded)
                # The commit makes every keyboard stale: redraw the hands with it.
                ops = (*self.ping(live, seat.user_id, text), *self._hand_ops(live))
                await self._commit(live, GameChange(deadline=reminded, outbox=ops))

    # --- reading -----------------------------------------------------------------

    async def open_live(self, chat_id: int, thread_id: int | None) -> LiveGame | None:
        game = await self.storage.open_game(chat_id, thread_id)
        return None if game is None else await self._load(game.id)

    async def live(self, game_id: int) -> LiveGame:
        return await self._load(game_id)
