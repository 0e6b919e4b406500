"""The game service: every change to a game goes through here, one game at a time.

``GameService`` is the one object handlers get; it is put together from the flows:
``core`` (locks, loading and committing, outbox operations), ``table`` (taps and
applying actions), ``lobby`` (new game, seats, Start, rematch, /cancel), ``timers``
(deadlines, auto-play, computer players), ``chats`` (the DM side, chat changes),
``presence`` (the bot out of a group and back) and ``solo`` (a game against computers in
the player's private chat).
"""

from __future__ import annotations

from bot.service.chats import ChatFlow
from bot.service.core import AlreadyOpen, LiveGame, NeedsStart, UserError, UserInfo
from bot.service.presence import PresenceFlow
from bot.service.solo import SoloFlow
from bot.service.timers import TimerFlow


class GameService(ChatFlow, SoloFlow, TimerFlow, PresenceFlow):
    pass


__all__ = ["AlreadyOpen", "GameService", "LiveGame", "NeedsStart", "UserError", "UserInfo"]
