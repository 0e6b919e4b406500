"""The chats and users flow: /start in the DM, a user the bot cannot reach, a chat
that became a supergroup, a chat's language."""

from __future__ import annotations

from dataclasses import dataclass

from bot.chat_settings import ChatSettings
from bot.service.errors import UserError
from bot.service.games import Games
from bot.service.live import UserInfo, in_private_chat
from bot.service.lobby import LobbyFlow
from bot.service.outbox import Outbox
from bot.service.screens import Screens
from bot.service.settings import ServiceSettings
from bot.views import render
from storage import Backend


@dataclass(eq=False)
class ChatFlow:
    storage: Backend
    games: Games
    outbox: Outbox
    screens: Screens
    lobby: LobbyFlow
    settings: ServiceSettings

    async def user_started(self, user: UserInfo, payload: str | None) -> list[str]:
        """A /start in the DM: we may message them now. Returns text keys to answer with."""
        await self.lobby.remember_user(user)
        await self.storage.set_user_started(user.id, True)
        answers = []
        if payload and payload.startswith("j") and payload[1:].isdigit():
            try:
                await self.lobby.join(int(payload[1:]), user)
                answers.append("start.joined")
            except UserError as exc:
                answers.append(exc.key)
        # Bring back the hand messages of games they were cut off from.
        for game in await self.storage.games_of_user(user.id):
            if game.status != "playing":
                continue
            async with self.games.lock(game.id):
                live = await self.games.load(game.id)
                seat = live.seat_of(user.id)
                if seat is not None and live.played is not None:
                    await self.outbox.redraw(live, (self.screens.hand_op(live, seat),))
        self.outbox.ready.set()
        return answers or ["start.welcome"]

    async def user_unreachable(self, user_id: int) -> None:
        """A DM answered 403: tell each of their games' groups how to bring them back.

        Every pending DM to them fails the same way; only the first posts the link."""
        user = await self.storage.get_user(user_id)
        if user is not None and not user.started:
            return
        await self.storage.set_user_started(user_id, False)
        for game in await self.storage.games_of_user(user_id):
            async with self.games.lock(game.id):
                live = await self.games.load(game.id)
                seat = live.seat_of(user_id)
                if seat is None or in_private_chat(live.game):  # nobody else to tell there
                    continue
                text = live.t(
                    "dm.unreachable",
                    name=render.seat_name(seat),
                    link=render.deep_link(self.settings.bot_username, "hi"),
                )
                await self.storage.enqueue((self.outbox.group_send(live, text),))
        self.outbox.ready.set()

    async def chat_migrated(self, old_id: int, new_id: int) -> None:
        await self.storage.migrate_chat(old_id, new_id)
        for game_id, live in list(self.games.in_memory.items()):
            if live.game.chat_id == old_id:
                self.games.in_memory.pop(game_id, None)
        self.outbox.ready.set()

    async def save_chat_settings(self, chat_id: int, title: str, settings: ChatSettings) -> None:
        """The chat's new defaults. Games already created keep their rules (Game.rules);
        the table customs (timer, stand-in) apply from the next turn."""
        await self.storage.upsert_chat(chat_id, title)
        await self.storage.set_chat_rules(chat_id, settings.to_dict())
        for live in self.games.in_memory.values():
            if live.game.chat_id == chat_id:
                live.settings = settings

    async def set_language(self, chat_id: int, title: str, language: str) -> None:
        await self.storage.upsert_chat(chat_id, title)
        await self.storage.set_chat_language(chat_id, language)
        for live in self.games.in_memory.values():
            if live.game.chat_id == chat_id:
                live.language = language
