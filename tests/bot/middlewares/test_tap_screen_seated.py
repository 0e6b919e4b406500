"""bot/middlewares/tap_screen.py: a seated player's cards and plays in their own game are
never shed, however fast they come; the same person's taps elsewhere are."""

from __future__ import annotations

from typing import Any, cast

from aiogram.types import CallbackQuery, Update, User

from bot.middlewares.tap_screen import BURST, TOO_FAST, TapScreen, TokenBuckets
from bot.service import GameService
from bot.views.callbacks import CardCb, LobbyCb
from storage import Game, Seat

PLAYER, STRANGER = 11, 12


class Service:
    """What the screen reads of the service: a game in memory."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def cached_game(self, game_id: int) -> Game | None:
        return self.game if game_id == self.game.id else None


def playing_game() -> Game:
    seats = (Seat(0, PLAYER, None, "Ann"), Seat(1, None, "hard", "🤖"))
    return Game(
        1, -100, None, "playing", {"game": "burkozel"}, 7, seats, PLAYER, 0.0, 0, None, None, None
    )


def tap(n: int, user: int, data: str) -> Update:
    query = CallbackQuery(
        id=str(n),
        from_user=User(id=user, is_bot=False, first_name="x"),
        chat_instance="c",
        data=data,
    )
    return Update(update_id=n, callback_query=query)


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_a_seated_players_taps_in_their_game_are_never_shed() -> None:
    clock = Clock()
    screen = TapScreen(cast(GameService, Service(playing_game())), cast(Any, None))
    screen.buckets = TokenBuckets(clock=clock)
    card = CardCb(game=1, v=7, card="7H").pack()
    # Ten times a person's burst within a second: every one goes on to the game's line.
    for n in range(10 * BURST):
        assert await screen(tap(n, PLAYER, card)) is False
        clock.now += 0.001
    # The same person's taps on another game's lobby button are counted as before: past
    # the burst they are shed (answered here, not queued). (This stand-in service cannot
    # read storage, so a tap within the rate is queued for the handlers to judge.)
    join = LobbyCb(game=2, action="join").pack()
    shed = [await screen(tap(10_000 + n, PLAYER, join)) for n in range(2 * BURST)]
    assert shed[:BURST] == [False] * BURST and all(shed[BURST + 1 :])
    assert screen._answers and screen._answers[-1][1] == TOO_FAST


async def test_the_players_of_a_table_seen_played_are_known_as_seated() -> None:
    """bot/middlewares/message_screen.py never sheds what they write."""
    screen = TapScreen(cast(GameService, Service(playing_game())), cast(Any, None))
    assert not screen.seats(PLAYER)  # no tap of that game seen yet
    await screen(tap(1, PLAYER, CardCb(game=1, v=7, card="7H").pack()))
    assert screen.seats(PLAYER) and not screen.seats(STRANGER)
