"""Exactly-once handling of Telegram updates that may be delivered more than once.

In webhook mode Telegram re-delivers an update that was not answered (the instance
died mid-update). The bot marks the update it is handling in :data:`CURRENT_UPDATE`;
the first write transaction made while handling it also records its ``update_id`` in
the ``updates`` table, in the same transaction. A re-delivered update whose changes
were committed therefore fails that insert, its writes roll back, and
:class:`DuplicateUpdateError` tells the bot to drop it: nothing is applied twice, and an
update whose instance died before committing is applied once, on re-delivery.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from storage.errors import StorageError


@dataclass
class UpdateClaim:
    update_id: int
    claimed: bool = False  # set once a committed transaction recorded the update


CURRENT_UPDATE: ContextVar[UpdateClaim | None] = ContextVar("current_update", default=None)


class DuplicateUpdateError(StorageError):
    """This update was already handled (its changes are committed); drop it."""


def pending_claim() -> UpdateClaim | None:
    """The update to record with the next write, or None (not handling one, or done)."""
    claim = CURRENT_UPDATE.get()
    return claim if claim is not None and not claim.claimed else None
