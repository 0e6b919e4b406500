"""The timers flow: expired lobbies, reminders, auto-play of overdue players and the
computer players' moves."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, replace

from bot.chat_settings import NO_TIMER_REMINDER
from bot.service.deadlines import deadline_for
from bot.service.errors import UserError
from bot.service.games import Games
from bot.service.live import LiveGame, out_of_group
from bot.service.moves import Moves
from bot.service.outbox import Outbox
from bot.service.settings import ServiceSettings
from storage import Backend, Deadline, GameChange

# Action keys (``SeatAction.to_json``) that are a player's own call, never taken for a
# human by auto-play: a show (C1/C2, D6/D8), an out-of-turn lead, a declaration, даве.
OWN_CALLS = frozenset({"show", "stop", "declare", "dave"})


@dataclass(eq=False)
class TimerFlow:
    storage: Backend
    games: Games
    outbox: Outbox
    moves: Moves
    settings: ServiceSettings

    async def tick(self) -> None:
        """Expire lobbies, remind and auto-play overdue players, move computer players."""
        now = self.settings.clock()
        for game in await self.storage.expired_lobbies(now):
            async with self.games.lock(game.id):
                live = await self.games.load(game.id)
                if live.game.status == "lobby":
                    await self.moves.close(live, "cancelled", reason="expired")
        for game in await self.storage.due_deadlines(now):
            with contextlib.suppress(UserError):
                await self.on_deadline(game.id)

    async def on_deadline(self, game_id: int) -> None:
        """A game whose deadline the tick found due: what is due now, under its lock (the
        move may have been made another way since the tick read it)."""
        async with self.games.lock(game_id):
            live = await self.games.load(game_id)
            deadline = live.game.deadline
            played = live.played
            if live.game.status != "playing" or deadline is None or played is None:
                return
            if out_of_group(deadline):
                if deadline.due_at <= self.settings.clock():
                    # Out of the group for good, it seems: the game ends, its players told
                    # in their private chats (the group is told if the bot is ever back).
                    await self.moves.close(live, "abandoned", reason="out_of_group")
                return
            now = self.settings.clock()
            if played.series.current is None or deadline.seat not in played.actors():
                fixed = deadline_for(live, self.settings)
                live.game = replace(live.game, deadline=fixed)
                await self.games.commit(live, GameChange(deadline=fixed))
                return
            seat = live.game.seats[deadline.seat]
            human = seat.bot_level is None
            if deadline.due_at <= now and seat.seat != played.turn():
                await self._out_of_turn(live, seat.seat)
            elif deadline.due_at <= now and human and (coming := played.by_itself()) is not None:
                # The move that comes by itself (Bura's draw), timer or no timer.
                await self.moves.apply(
                    live, coming.action, seat.seat, autoplayed=False, by_itself=True
                )
            elif deadline.due_at <= now and human and self.settings.turn_timeout_of(live) == 0:
                # No timer: nobody plays for a human; remind them, and again later.
                text = live.t("ping.gentle", chat=live.chat_title)
                later = Deadline(seat.seat, now + NO_TIMER_REMINDER, None)
                live.game = replace(live.game, deadline=later)
                assert seat.user_id is not None
                ops = self.outbox.ping(live, seat.user_id, text)
                await self.games.commit(live, GameChange(deadline=later, outbox=ops))
            elif deadline.due_at <= now:
                # A player marked away is stood in for by a computer, if the chat (else the
                # bot) is set so.
                level = seat.bot_level or (self.settings.stand_in_of(live) if seat.away else None)
                action = None
                if level is not None:
                    seed = live.game.id * 100_003 + live.game.version
                    action = await asyncio.to_thread(played.computer_action, level, seed, seat.seat)
                    if human and action is not None and OWN_CALLS & set(action.to_json()):
                        action = None  # never a show, stop or declaration for a human
                if action is None:
                    action = played.stand_in_action(seat.seat)
                await self.moves.apply(live, action, seat.seat, autoplayed=human)
            elif (
                deadline.remind_at is not None
                and deadline.remind_at <= now
                and not deadline.reminded
            ):
                # (A tick that read a due deadline may get here after the move that was
                # due was made some other way, a tap or another instance's tick: the
                # deadline is then the next player's, and it is nobody's time to hurry.)
                assert seat.user_id is not None
                text = live.t(
                    "ping.hurry", chat=live.chat_title, seconds=round(deadline.due_at - now)
                )
                reminded = replace(deadline, reminded=True)
                live.game = replace(live.game, deadline=reminded)
                # A commit of the deadline alone leaves the hands' keyboards current
                # (Game.state_version): the hand the player is looking at is not redrawn.
                ops = self.outbox.ping(live, seat.user_id, text)
                await self.games.commit(live, GameChange(deadline=reminded, outbox=ops))

    async def _out_of_turn(self, live: LiveGame, seat: int) -> None:
        """A computer that may act out of turn (a «Стоп!»): it acts, or lets the chance
        pass, which is remembered for this moment so the turn's own timer runs next."""
        played = live.played
        assert played is not None
        level = live.game.seats[seat].bot_level
        assert level is not None
        seed = live.game.id * 100_003 + live.game.version
        action = await asyncio.to_thread(played.computer_action, level, seed, seat)
        if action is not None:
            await self.moves.apply(live, action, seat, autoplayed=False)
            return
        live.declined.add((len(played.series.deals), played.actions_played(), seat))
        fixed = deadline_for(live, self.settings)
        live.game = replace(live.game, deadline=fixed)
        await self.games.commit(live, GameChange(deadline=fixed))
