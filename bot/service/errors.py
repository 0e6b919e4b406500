"""The polite refusals a flow answers with: nothing was changed."""

from __future__ import annotations

from storage import Game


class UserError(Exception):
    """A polite refusal: the text key of the answer; nothing was changed."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values


class NeedsStart(UserError):
    """The user must open a DM with the bot first; ``link`` opens it."""

    def __init__(self, link: str) -> None:
        super().__init__("join.needs_dm", link=link)
        self.link = link


class AlreadyOpen(UserError):
    def __init__(self, game: Game, message_id: int | None) -> None:
        super().__init__("newgame.already_open")
        self.game = game
        self.message_id = message_id
