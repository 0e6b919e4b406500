"""The bot out of a group and back in. While Telegram refuses the bot's messages there
(it was removed), the group's messages are held (bot/delivery/worker.py) and its games
wait with their clock stopped: nobody is played for by the turn timer while nobody can
see the table. Back in, the group is told at once what it missed and where each game
stands; a group the bot stays out of for a day has its games ended (bot/service/timers.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.delivery.worker import OUT_OF_GROUP_HELD
from bot.service.deadlines import deadline_for
from bot.service.games import Games
from bot.service.live import OUT_OF_GROUP, LiveGame, out_of_group
from bot.service.outbox import Outbox
from bot.service.screens import Screens, table_role
from bot.service.settings import ServiceSettings
from storage import Backend, Deadline, Game, GameChange, OutboxOp


@dataclass(eq=False)
class PresenceFlow:
    storage: Backend
    games: Games
    outbox: Outbox
    screens: Screens
    settings: ServiceSettings

    async def bot_removed(self, chat_id: int) -> None:
        """Stop the clocks of the group's games (once), their players told why in their
        private chats (the group cannot be told)."""
        for game in await self._games_in(chat_id):
            async with self.games.lock(game.id):
                live = await self.games.load(game.id)
                if not self._waits_for_group(live) or out_of_group(live.game.deadline):
                    continue
                stopped = Deadline(OUT_OF_GROUP, self.settings.clock() + OUT_OF_GROUP_HELD, None)
                live.game = replace(live.game, deadline=stopped)
                text = live.t("out.removed", chat=live.chat_title)
                ops = tuple(
                    OutboxOp(seat.user_id, "send", {"text": text}, game.id)
                    for seat in live.game.seats
                    if seat.user_id is not None
                )
                await self.games.commit(live, GameChange(deadline=stopped, outbox=ops))
        self.outbox.ready.set()

    async def bot_back(self, chat_id: int) -> None:
        """Back in the group: what was held goes now (the tables the group never saw
        change as new messages, so each deal's result is read in its order), then a
        word that the game goes on and its table as it stands; the clock runs again."""
        now = self.settings.clock()
        await self.storage.outbox_reopen(chat_id, now)
        for game in await self._games_in(chat_id):
            async with self.games.lock(game.id):
                live = await self.games.load(game.id)
                if not self._waits_for_group(live) or not out_of_group(live.game.deadline):
                    continue  # (told already: Telegram's update and a held send both say so)
                assert live.played is not None
                live.game = replace(live.game, deadline=None)
                deadline = deadline_for(live, self.settings)
                live.game = replace(live.game, deadline=deadline)
                ops = [self.outbox.group_send(live, live.t("out.back"))]
                role = table_role(live.played.series)
                if not await self._table_sent_soon(live, role):
                    seconds = self.screens.seconds_left(live)
                    text = live.played.table_text(live.t, live.game, turn_seconds=seconds)
                    markup = self.screens.table_keyboard(live)
                    payload = self.outbox.group_payload(live, text, markup)
                    ops.append(OutboxOp(chat_id, "send", payload, game.id, role))
                ops += self.screens.hand_ops(live)
                await self.games.commit(live, GameChange(deadline=deadline, outbox=tuple(ops)))
        self.outbox.ready.set()

    async def _games_in(self, chat_id: int) -> list[Game]:
        return [game for game in await self.storage.active_games() if game.chat_id == chat_id]

    @staticmethod
    def _waits_for_group(live: LiveGame) -> bool:
        return live.game.status == "playing" and live.played is not None

    async def _table_sent_soon(self, live: LiveGame, role: str) -> bool:
        """A new message of this table is queued already (held while the bot was out)."""
        pending = await self.storage.pending(self.settings.clock(), limit=10_000)
        return any(
            item.game_id == live.game.id and item.role == role and item.method == "send"
            for item in pending
        )
