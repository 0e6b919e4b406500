"""A clock the test moves, for the sender's pacing, and a sender on it."""

from __future__ import annotations

import asyncio
from typing import Any

from aiogram import Bot

from bot.delivery.worker import DeliveryWorker, Limits


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def no_chat_forbidden(*_: int) -> None:
    raise AssertionError("no chat is forbidden or migrated here")


def paced_worker(
    storage: Any, limits: Limits, clock: Clock | None = None, bot: Bot | None = None
) -> DeliveryWorker:
    """A sender on ``clock`` (standing still unless the test moves it) for which every
    row is due. Without ``bot`` nothing reaches Telegram: the test replaces ``_send`` or
    ``_deliver``."""
    return DeliveryWorker(
        bot,  # type: ignore[arg-type]
        storage,
        asyncio.Event(),
        on_forbidden=no_chat_forbidden,
        on_migrated=no_chat_forbidden,
        limits=limits,
        clock=clock or Clock(),
        wall_clock=lambda: 1e12,
    )
