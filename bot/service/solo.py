"""A game against computer players in the player's private chat: the same game as a
group's (storage, crash safety, series, stats), started at once, whose table and hand
are one message there (``outbox.one_message``)."""

from __future__ import annotations

from bot.chat_settings import ChatSettings, SettingsError, apply_preset, fits_seats
from bot.i18n import texts
from bot.service.errors import UserError
from bot.service.live import UserInfo
from bot.service.lobby import LobbyFlow
from bot.service.settings import ServiceSettings
from engine.game import COMPUTER_LEVELS
from storage import Backend, Game, GameExistsError, Seat

MAX_COMPUTERS = 3


class SoloFlow:
    def __init__(self, storage: Backend, lobby: LobbyFlow, settings: ServiceSettings) -> None:
        self.storage = storage
        self.lobby = lobby
        self.settings = settings

    async def play_computers(
        self,
        user: UserInfo,
        language: str,
        preset: str,
        computers: int,
        level: str,
        message_id: int,
    ) -> Game:
        """A series against ``computers`` players of ``level`` under ``preset``, in the
        user's private chat, speaking ``language``. Message ``message_id`` there (the
        menu it was chosen in) becomes the game's message."""
        if level not in COMPUTER_LEVELS or not 1 <= computers <= MAX_COMPUTERS:
            raise UserError("error.forged")
        try:
            settings = apply_preset(ChatSettings(), preset)
        except SettingsError:
            raise UserError("error.forged") from None
        try:
            fits_seats(settings.rules(), 1 + computers)
        except SettingsError:
            raise UserError("solo.pairs_need_three") from None  # B5: two against two
        chat_id = user.id  # a private chat's id is its user's
        await self.storage.upsert_chat(chat_id, user.name)
        await self.storage.set_chat_language(chat_id, language)
        await self.lobby.remember_user(user)
        await self.storage.set_user_started(user.id, True)  # they wrote to the bot
        t = texts(language)
        seats = [Seat(0, user.id, None, user.name)]
        seats += [
            Seat(n, None, level, t.alert("computer.name", n=n, level=t(f"computer.{level}")))
            for n in range(1, computers + 1)
        ]
        try:
            game = await self.storage.create_game(
                chat_id,
                None,
                settings.game_rules(),
                user.id,
                tuple(seats),
                self.settings.clock() + self.settings.lobby_timeout,
            )
        except GameExistsError:
            raise UserError("solo.already_open") from None
        await self.storage.set_message(game.id, f"hand:{user.id}", chat_id, message_id)
        return await self.lobby.start(game.id, user.id)
