"""A fake Telegram Bot API server for end-to-end tests of the real aiogram bot.

Usage::

    async with FakeTelegram() as fake:
        bot = Bot(fake.token, session=AiohttpSession(api=TelegramAPIServer.from_base(fake.api_url)))
        alice = fake.add_user("Alice", username="alice")
        group = fake.add_group("Friends", members=[alice])
        await alice.send(group, "/newgame")
"""

from .entities import (
    Button,
    CallbackAnswer,
    CallbackNotAnswered,
    FakeChat,
    FakeMessage,
    ForumTopic,
    MessageVersion,
    PendingCallback,
)
from .limits import Faults, FloodViolation, InjectedFault, OneOffFault, RateLimits
from .miniapps import MiniAppLaunch
from .server import METHODS, FakeTelegram, InvalidRequest, RequestRecord
from .text import MAX_CALLBACK_DATA_BYTES, MAX_TEXT_LENGTH, ApiError
from .users import FakeUser

__all__ = [
    "MAX_CALLBACK_DATA_BYTES",
    "MAX_TEXT_LENGTH",
    "METHODS",
    "ApiError",
    "Button",
    "CallbackAnswer",
    "CallbackNotAnswered",
    "FakeChat",
    "FakeMessage",
    "FakeTelegram",
    "FakeUser",
    "Faults",
    "FloodViolation",
    "ForumTopic",
    "InjectedFault",
    "InvalidRequest",
    "MessageVersion",
    "MiniAppLaunch",
    "OneOffFault",
    "PendingCallback",
    "RateLimits",
    "RequestRecord",
]
