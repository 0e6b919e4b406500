"""What the service asks of the hands' copies inside the group (bot.service.outbox): each
private hand redrawn is redrawn in its copy with the same text and buttons (less the Mini
App's, which a group cannot carry), and anew at a turn only where the chat asks for it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.chat_settings import ChatSettings
from bot.service.followers import HandCopies
from bot.service.live import LiveGame
from bot.service.outbox import Outbox, in_group
from storage import OutboxOp
from tests.support.game_record import game_of

KEYS = {"inline_keyboard": [[{"text": "7♠", "callback_data": "t:1:2:7S"}]]}
APP = {"text": "🃏 Open table", "web_app": {"url": "https://example.org/webapp/?game=1"}}


class Recorded(HandCopies):
    def __init__(self) -> None:
        self.redrawn: list[tuple[int, str, Any, bool]] = []

    def used(self, game_id: int) -> bool:
        return True

    def redraw(
        self,
        game_id: int,
        user_id: int,
        content: Any,
        *,
        at_turn: bool = False,
        over: bool = False,
    ) -> None:
        assert not over  # the game is being played
        self.redrawn.append((user_id, content[0], content[1], at_turn))


def _live(chat_id: int, hands: str | None) -> LiveGame:
    game = replace(game_of(0), id=1, chat_id=chat_id, version=2, created_by=7)
    settings = replace(ChatSettings(), hands_in_group=hands)
    return LiveGame(game=game, played=None, chat_title="", language="en", settings=settings)


def _ops() -> tuple[OutboxOp, ...]:
    with_app = {"inline_keyboard": [*KEYS["inline_keyboard"], [APP]]}
    return (
        OutboxOp(-5, "edit", {"text": "table"}, 1, "table"),
        OutboxOp(7, "edit", {"text": "hand of 7", "reply_markup": with_app}, 1, "hand:7"),
        OutboxOp(8, "edit", {"text": "hand of 8", "reply_markup": KEYS}, 1, "hand:8"),
        OutboxOp(8, "delete", {}, 1, "ping:8"),
        OutboxOp(8, "send", {"text": "your turn"}, 1, "ping:8"),
    )


@pytest.mark.parametrize(("hands", "anew"), [(None, False), ("turn", True)])
def test_each_hand_redrawn_is_redrawn_in_its_copy(hands: str | None, anew: bool) -> None:
    outbox = Outbox.__new__(Outbox)
    copies = outbox.hand_copies = Recorded()
    outbox.copy_hands(_live(-5, hands), _ops())
    assert copies.redrawn == [
        (7, "hand of 7", KEYS, False),  # the Mini App's button left out
        (8, "hand of 8", KEYS, anew),  # pinged for their turn
    ]


def test_a_game_in_the_private_chat_has_no_copies() -> None:
    outbox = Outbox.__new__(Outbox)
    copies = outbox.hand_copies = Recorded()
    outbox.copy_hands(_live(7, "turn"), _ops())
    assert copies.redrawn == []


def test_a_keyboard_of_the_mini_app_button_alone_is_none_in_the_group() -> None:
    assert in_group({"inline_keyboard": [[APP]]}) is None
    assert in_group(None) is None
