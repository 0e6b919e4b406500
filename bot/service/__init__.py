"""The game service: every change to a game goes through here, one game at a time.

``GameService`` is the one object handlers get. It builds the collaborators every flow
shares — the bot's settings with its clock (``settings``), the outbox (``outbox``), the
games in memory with their locks and commit (``games``), what players are shown
(``screens``), applying actions (``moves``) — and hands each flow those it uses: the
table (taps), the lobby (new game, seats, Start, rematch, /cancel), the timers
(deadlines, auto-play, computer players), the chats (the DM side, chat changes),
presence (the bot out of a group and back) and solo (a game against computers in the
player's private chat). The flows' methods the handlers call are its own.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from bot.delivery.chatter import ChatterLimit
from bot.service.chats import ChatFlow
from bot.service.errors import AlreadyOpen, NeedsStart, UserError
from bot.service.followers import HandCopies, Watchers
from bot.service.games import Games
from bot.service.live import LiveGame, UserInfo
from bot.service.lobby import LobbyFlow
from bot.service.moves import Moves
from bot.service.outbox import Outbox
from bot.service.presence import PresenceFlow
from bot.service.screens import Screens
from bot.service.settings import BY_ITSELF_AFTER, ServiceSettings
from bot.service.solo import SoloFlow
from bot.service.table import TableFlow
from bot.service.timers import TimerFlow
from storage import Backend


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
        by_itself_after: float = BY_ITSELF_AFTER,
        away_stand_in: str | None = "normal",
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.storage = storage
        self.settings = settings = ServiceSettings(
            bot_username=bot_username,
            default_language=default_language,
            turn_timeout=turn_timeout,
            away_after=away_after,
            lobby_timeout=lobby_timeout,
            computer_pause=computer_pause,
            by_itself_after=by_itself_after,
            away_stand_in=away_stand_in,
            clock=clock,
            rng=rng or random.SystemRandom(),
        )
        self.outbox = outbox = Outbox(storage)
        self.outbox_ready = outbox.ready
        self.chatter = ChatterLimit()
        self.games = games = Games(storage, outbox, settings)
        screens = Screens(outbox, settings)
        moves = Moves(games, outbox, screens, settings)
        self.table = table = TableFlow(storage, games, outbox, screens, moves, settings)
        self.lobby = lobby = LobbyFlow(storage, games, outbox, screens, moves, settings)
        self.timers = timers = TimerFlow(storage, games, outbox, moves, settings)
        self.chats = chats = ChatFlow(storage, games, outbox, screens, lobby, settings)
        self.presence = presence = PresenceFlow(storage, games, outbox, screens, settings)
        self.solo = solo = SoloFlow(storage, lobby, settings)

        # What the handlers, the Mini App and the timers call: the flows' own methods.
        self.live = games.load
        self.open_live = games.open_live
        self.lock = games.lock
        self.language_of = games.language_of
        self.cached_game = games.cached_game
        self.cached_language = games.cached_language
        self.group_send = outbox.group_send
        self.hand_op = screens.hand_op
        self.toggle = table.toggle
        self.play = table.play
        self.hand_here = table.hand_here
        self.app_left = table.app_left
        self.remember_user = lobby.remember_user
        self.new_game = lobby.new_game
        self.join_link = lobby.join_link
        self.join = lobby.join
        self.leave = lobby.leave
        self.add_computer = lobby.add_computer
        self.set_lobby_rules = lobby.set_lobby_rules
        self.start = lobby.start
        self.rematch = lobby.rematch
        self.cancel_request = lobby.cancel_request
        self.cancel = lobby.cancel
        self.tick = timers.tick
        self.user_started = chats.user_started
        self.user_unreachable = chats.user_unreachable
        self.chat_migrated = chats.chat_migrated
        self.save_chat_settings = chats.save_chat_settings
        self.set_language = chats.set_language
        self.bot_removed = presence.bot_removed
        self.bot_back = presence.bot_back
        self.play_computers = solo.play_computers

    # The app puts in who follows games besides the chats, and the Mini App's addresses.
    @property
    def watchers(self) -> Watchers:
        return self.outbox.watchers

    @watchers.setter
    def watchers(self, watchers: Watchers) -> None:
        self.outbox.watchers = watchers

    @property
    def hand_copies(self) -> HandCopies:
        return self.outbox.hand_copies

    @hand_copies.setter
    def hand_copies(self, copies: HandCopies) -> None:
        self.outbox.hand_copies = copies

    @property
    def webapp_url(self) -> str | None:
        return self.settings.webapp_url

    @webapp_url.setter
    def webapp_url(self, url: str | None) -> None:
        self.settings.webapp_url = url

    @property
    def table_link(self) -> Callable[[int], str] | None:
        return self.settings.table_link

    @table_link.setter
    def table_link(self, link: Callable[[int], str] | None) -> None:
        self.settings.table_link = link


__all__ = ["AlreadyOpen", "GameService", "LiveGame", "NeedsStart", "UserError", "UserInfo"]
