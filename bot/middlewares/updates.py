"""Each Telegram update is applied once, even when it is delivered twice.

Webhook mode answers Telegram only after an update is handled, so an instance that dies
mid-update gets it re-delivered (to any instance). The update id is stored in the same
transaction as the update's first change (storage/updates.py): a re-delivered update
that already changed something is dropped here, one that did not is handled normally.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.types import TelegramObject, Update
from aiogram.types.update import UpdateTypeLookupError

from bot import metrics
from storage import CURRENT_UPDATE, Backend, DuplicateUpdateError, UpdateClaim

log = logging.getLogger(__name__)


class OnceMiddleware(BaseMiddleware):
    """Outer middleware on ``Dispatcher.update``: dedupe by update_id, count, time taps."""

    def __init__(self, storage: Backend, *, dedupe: bool = True) -> None:
        self.storage = storage
        self.dedupe = dedupe  # off: only count and time

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        assert isinstance(event, Update)
        started = time.perf_counter()
        if _kind(event) == "other":
            # A kind this aiogram cannot name: nothing of ours handles it, and aiogram
            # would log the whole (possibly hostile) update as a warning. Count it, go on.
            self._count(event, started)
            return None
        # No look-up first: an update that changed nothing may run again harmlessly, and
        # one that did is stopped by its first write (one round trip less per update).
        if not self.dedupe:
            result = await handler(event, data)
            self._count(event, started)
            return result
        claim = UpdateClaim(event.update_id)
        token = CURRENT_UPDATE.set(claim)
        try:
            result = await handler(event, data)
        except DuplicateUpdateError:
            # Another delivery of this update committed first: this one changed nothing.
            metrics.DUPLICATES.inc()
            log.info("update %s was handled meanwhile; dropped", event.update_id)
            return None
        finally:
            CURRENT_UPDATE.reset(token)
        self._count(event, started)
        return result

    @staticmethod
    def _count(event: Update, started: float) -> None:
        metrics.UPDATES.labels(_kind(event)).inc()
        if event.callback_query is not None:
            metrics.TAP_SECONDS.observe(time.perf_counter() - started)


def _kind(update: Update) -> str:
    """The update's kind for the metrics; "other" for one this aiogram cannot name
    (Telegram adds kinds over time, and such an update is simply not for us)."""
    try:
        return update.event_type
    except UpdateTypeLookupError:
        return "other"
