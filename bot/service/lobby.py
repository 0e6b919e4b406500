"""The lobby flow: a new game, joining and leaving, computer players, Start, a rematch
at the same table, and /cancel."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from bot.chat_settings import SettingsError, fits_seats, rules_of_game
from bot.chat_settings import load as load_settings
from bot.games import GAMES
from bot.i18n import html_join, texts
from bot.json import Json
from bot.service.deadlines import deadline_for
from bot.service.errors import AlreadyOpen, NeedsStart, UserError
from bot.service.games import Games
from bot.service.live import OPEN, LiveGame, UserInfo, in_private_chat
from bot.service.lobby_watch import tell_lobby_watchers
from bot.service.moves import Moves
from bot.service.outbox import Outbox
from bot.service.screens import Screens, table_role
from bot.service.settings import ServiceSettings
from bot.views import render
from bot.views.lobby import lobby_text
from bot.views.settings import lobby_rules_line
from engine import EngineError, shuffled_deck
from engine.game import COMPUTER_LEVELS
from engine.registry import game_by_alias, game_of_rules
from storage import Backend, DealStart, Game, GameChange, GameExistsError, OutboxOp, Seat

log = logging.getLogger(__name__)

MAX_SEATS = 4


@dataclass(eq=False)
class LobbyFlow:
    storage: Backend
    games: Games
    outbox: Outbox
    screens: Screens
    moves: Moves
    settings: ServiceSettings

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
        """A lobby with the chat's default rules: of ``game_name`` (``/newgame bura``),
        else of the chat's game."""
        if game_name is not None:
            named = game_by_alias(game_name)
            if named is None or named.name not in GAMES:
                raise UserError("newgame.unknown_game", games=", ".join(GAMES))
            game_name = named.name
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
                self.settings.clock() + self.settings.lobby_timeout,
            )
        except GameExistsError as exc:
            role = "lobby"
            if exc.game.status != "lobby":
                live = await self.games.load(exc.game.id)
                role = "table" if live.played is None else table_role(live.played.series)
            ref = await self.storage.get_message(exc.game.id, role)
            if ref is None and exc.game.status == "lobby":
                await self.repost_lobby(exc.game.id)
            raise AlreadyOpen(exc.game, ref.message_id if ref else None) from None
        await self.repost_lobby(game.id)
        if broken is not None:
            # A stored setting that cannot be read: this game has the base rules, and the
            # group is told why (the lobby itself is unaffected).
            log.warning("chat %s settings: %s", chat_id, broken.detail)
            language = chat.language or self.settings.default_language
            note = texts(language)("settings.broken_note", detail=broken.detail)
            payload: Json = {"text": note}
            if thread_id is not None:
                payload["message_thread_id"] = thread_id
            await self.storage.enqueue((OutboxOp(chat_id, "send", payload, game.id, None),))
            self.outbox.ready.set()
        await tell_lobby_watchers(self.storage, self.outbox, self.settings, game)
        if not started:
            raise NeedsStart(self.join_link(game.id))
        return game

    async def repost_lobby(self, game_id: int) -> None:
        async with self.games.lock(game_id):
            live = await self.games.load(game_id)
            await self.games.commit(live, GameChange(outbox=(self._lobby_op(live),)))

    def join_link(self, game_id: int) -> str:
        return render.deep_link(self.settings.bot_username, f"j{game_id}")

    def _lobby_op(self, live: LiveGame) -> OutboxOp:
        t = live.t
        return self.outbox.group_edit(
            live,
            "lobby",
            lobby_text(t, live.game, live.game_side, lobby_rules_line(t, live.game.rules)),
            render.lobby_keyboard(t, live.game, self.settings.bot_username),
        )

    async def set_lobby_rules(
        self, game_id: int, user_id: int, rules: Json, menu: OutboxOp
    ) -> Game:
        """The lobby creator's ⚙ Rules: this game's rules before Start, the lobby message
        redrawn and the menu edited with the same commit."""
        async with self.games.lock(game_id):
            live = await self._lobby(game_id)
            if live.game.created_by != user_id:
                raise UserError("settings.creator_only")
            live.game = replace(live.game, rules=rules)
            return await self.games.commit(
                live, GameChange(rules=rules, outbox=(self._lobby_op(live), menu))
            )

    async def rematch(self, game_id: int, user: UserInfo) -> Game:
        """A new series at the same table: the same seats, back in the lobby."""
        await self.remember_user(user)
        old = await self.games.get_game(game_id)
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
                self.settings.clock() + self.settings.lobby_timeout,
            )
        except GameExistsError:
            raise UserError("newgame.already_open") from None
        if in_private_chat(game):  # against computers alone: no lobby to wait in
            return await self.start(game.id, user.id)
        await self.repost_lobby(game.id)
        await tell_lobby_watchers(self.storage, self.outbox, self.settings, game)
        return game

    async def _lobby(self, game_id: int) -> LiveGame:
        live = await self.games.load(game_id)
        if live.game.status != "lobby":
            raise UserError("lobby.not_open")
        return live

    async def _change_seats(self, live: LiveGame, seats: tuple[Seat, ...]) -> Game:
        numbered = tuple(replace(s, seat=i) for i, s in enumerate(seats))
        live.game = replace(live.game, seats=numbered)
        return await self.games.commit(
            live, GameChange(seats=numbered, outbox=(self._lobby_op(live),))
        )

    async def join(self, game_id: int, user: UserInfo) -> Game:
        started = await self.remember_user(user)
        async with self.games.lock(game_id):
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
        async with self.games.lock(game_id):
            live = await self._lobby(game_id)
            if live.seat_of(user_id) is None:
                raise UserError("lobby.not_in")
            seats = tuple(s for s in live.game.seats if s.user_id != user_id)
            if not any(s.user_id is not None for s in seats):
                live.game = replace(live.game, seats=seats)
                ops = tuple(self.screens.closing_ops(live, "cancelled"))
                return await self.games.commit(
                    live, GameChange(status="cancelled", seats=seats, outbox=ops)
                )
            return await self._change_seats(live, seats)

    async def add_computer(self, game_id: int, user_id: int, level: str) -> Game:
        if level not in COMPUTER_LEVELS:
            raise UserError("computer.bad_level")
        async with self.games.lock(game_id):
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
        async with self.games.lock(game_id):
            live = await self._lobby(game_id)
            if live.seat_of(user_id) is None:
                raise UserError("lobby.join_first")
            players = len(live.game.seats)
            if players < 2:
                raise UserError("lobby.too_few")
            try:
                _, rules = rules_of_game(live.game.rules)
                fits_seats(rules, players)  # B5: pairs need exactly 4
            except SettingsError as exc:
                raise UserError(exc.key, players=players) from None
            except EngineError:
                raise UserError("error.corrupt") from None
            if game_of_rules(live.game.rules) not in GAMES:
                raise UserError("lobby.game_not_ready")
            dealer = self.settings.rng.randrange(players)
            played = live.game_side.start(players, live.game.rules, dealer)
            deal = played.series.start_deal(shuffled_deck(rng=self.settings.rng))  # R3
            live.played = played
            live.game = replace(live.game, deadline=deadline_for(live, self.settings))
            t = live.t
            started = t(
                "lobby.started",
                players=html_join(", ", (render.seat_name(s) for s in live.game.seats)),
            )
            # Every hand now comes as a new message, which notifies its player: the first
            # turns need no 🔔 of their own (a send and a delete per player saved), so the
            # start counts as everyone's latest tap for pinging.
            now = self.settings.clock()
            for seat in live.game.seats:
                if seat.user_id is not None:
                    live.last_tap.setdefault(seat.user_id, now)
            ops = [
                self.outbox.group_edit(live, "lobby", started),
                *self.screens.play_ops(live, last_mover=None),
            ]
            change = GameChange(
                status="playing",
                first_dealer=dealer,
                new_deal=DealStart(0, deal.dealer, tuple(c.code() for c in deal.deck)),
                deadline=live.game.deadline,
                lobby_expires_at=None,
                outbox=tuple(ops),
            )
            game = await self.games.commit(live, change)
            await self.moves.deal_again(live)
            return game

    # --- cancel ------------------------------------------------------------------

    async def cancel_request(self, chat_id: int, thread_id: int | None, user_id: int) -> LiveGame:
        game = await self.storage.open_game(chat_id, thread_id)
        if game is None:
            raise UserError("cancel.nothing")
        live = await self.games.load(game.id)
        if live.seat_of(user_id) is None:
            raise UserError("error.not_seated")
        return live

    async def cancel(self, game_id: int, user_id: int) -> Game:
        """A confirmed /cancel: valid as long as the game is open, whatever moved since."""
        async with self.games.lock(game_id):
            live = await self.games.load(game_id)
            if live.game.status not in OPEN:
                raise UserError("error.game_over")
            if live.seat_of(user_id) is None:
                raise UserError("error.not_seated")
            return await self.moves.close(live, "cancelled")
