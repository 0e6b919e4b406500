"""A clock the test moves, for the sender's pacing."""

from __future__ import annotations


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def no_chat_forbidden(*_: int) -> None:
    raise AssertionError("no chat is forbidden or migrated here")
