"""A game as the flows hold it in memory between changes (``LiveGame``), what they know
of a user (``UserInfo``) and the states every flow tells apart."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.chat_settings import ChatSettings
from bot.games import bot_game
from bot.games.base import BotGame, Played
from bot.i18n import Texts, texts
from engine import Card
from storage import Deadline, Game, Seat

OPEN = ("lobby", "playing")
# While the bot is out of a group (removed from it: Telegram refuses its messages there),
# the group's games wait, their clock stopped: nobody is played for by the turn timer
# while the table cannot be seen. Their deadline names this seat (no seat at all) and is
# due when a game ends for good (bot/delivery/worker.py OUT_OF_GROUP_HELD says when).
OUT_OF_GROUP = -1


@dataclass
class UserInfo:
    id: int
    name: str
    username: str | None = None
    language: str | None = None


@dataclass
class LiveGame:
    game: Game
    played: Played | None  # the series being played, with its game; None in the lobby
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


def in_private_chat(game: Game) -> bool:
    """A game against computers in its player's private chat (a private chat's id is
    the user's, positive; groups' ids are negative)."""
    return game.chat_id > 0


def private_seat(game: Game) -> int | None:
    """The seat of the player whose private chat holds the game; None in a group."""
    if not in_private_chat(game):
        return None
    return next((s.seat for s in game.seats if s.user_id == game.chat_id), None)
