"""Whose timer runs after a change, and when it is due."""

from __future__ import annotations

from bot.chat_settings import NO_TIMER_REMINDER
from bot.service.live import LiveGame, out_of_group
from bot.service.settings import ServiceSettings
from storage import Deadline


def deadline_for(live: LiveGame, settings: ServiceSettings) -> Deadline | None:
    """Whose timer runs: a computer that may act out of turn (a «Стоп!», C3/C4) is
    asked first, once per moment; then the seat whose turn it is, under the chat's
    turn timer (none: a gentle reminder now and then, never auto-play)."""
    played, game = live.played, live.game
    if out_of_group(game.deadline):
        return game.deadline  # stopped until the bot is back in the group
    if played is None or played.series.current is None:
        return None
    turn = played.turn()
    if turn is None:
        return None
    now = settings.clock()
    moment = (len(played.series.deals), played.actions_played())
    for seat in played.actors():
        optional = seat != turn and game.seats[seat].bot_level is not None
        if optional and (*moment, seat) not in live.declined:
            return Deadline(seat, now + settings.computer_pause, None)
    seat_ = game.seats[turn]
    timeout = settings.turn_timeout_of(live)
    if seat_.bot_level is not None:
        return Deadline(turn, now + settings.computer_pause, None)
    if played.by_itself() is not None:  # stored: a restart or another instance makes it
        return Deadline(turn, now + settings.by_itself_after, None)
    if timeout == 0:
        return Deadline(turn, now + NO_TIMER_REMINDER, None)
    if seat_.away:
        return Deadline(turn, now + min(3.0, timeout), None)
    return Deadline(turn, now + timeout, now + timeout * 2 / 3)


def seconds_left(live: LiveGame, now: float) -> int | None:
    """The seconds the turn's timer shows (None: no timer runs)."""
    deadline = live.game.deadline
    if deadline is None or out_of_group(deadline):
        return None
    return max(0, round(deadline.due_at - now))
