"""One person's flood of messages shed before it takes room in the updates held.

Polling fetches no more while the process holds its most updates (chat_order.py), and
Telegram hands updates out in the order they came: whatever fills that room holds back
every update behind it, a seated player's tap included. Taps are screened and shed by
tap_screen.py; messages (private texts, commands in groups) were not, and strangers
sending texts and commands as fast as a script can filled the room: the players' taps
were read tens of seconds late, though answered at once once read.

So while the process holds ``PRESSED`` updates or more (a flood is under way: a quiet
bot holds a handful), each person may write ``BURST`` messages at once, then one every
``1 / RATE`` seconds, counted across every chat (a flood split between a private chat
and a group is one flood); what else they write is dropped here, with no answer (an
answer would cost the bot's sending rate, shared by every chat) and no place in any
queue. Below ``PRESSED`` nothing is shed: there is room for someone typing fast.

The burst is for what a person wrote while the bot was away (a restart, an outage): it
waits at Telegram and arrives at once, a /start and a /newgame together, while the bot
is busy with everyone else's backlog. It also means many strangers, each within it, can
still fill the room together (200 of them: 1,000 updates); one person cannot.

What a person must not lose gets through: a /start, a command in a game's group, a few
messages in a row; a player seated at a table in play (``seated``) is never shed; a
lobby's Join is a tap, counted apart in tap_screen.py. Service messages (a group
upgraded to a supergroup, members added) are Telegram's, not the person's, and are
never shed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

from aiogram.enums import ContentType
from aiogram.types import Update

from bot import metrics
from bot.middlewares.tap_screen import TokenBuckets

log = logging.getLogger(__name__)

# Typing, nobody keeps up a message every two seconds for long.
BURST: Final = 5
RATE: Final = 0.5
# Updates held (chat_order.py: at most 1,024) from which on a flood is shed: a quiet
# bot holds a handful.
PRESSED: Final = 128
SHEDDING_KEPT: Final = 4096  # writers remembered as shed, to log each once

# What a person writes (the rest is Telegram's own notices, or a kind this aiogram
# cannot name: never shed).
WRITTEN: Final = frozenset(
    {
        ContentType.TEXT,
        ContentType.AUDIO,
        ContentType.ANIMATION,
        ContentType.DOCUMENT,
        ContentType.GAME,
        ContentType.LIVE_PHOTO,
        ContentType.PHOTO,
        ContentType.STICKER,
        ContentType.VIDEO,
        ContentType.VIDEO_NOTE,
        ContentType.VOICE,
        ContentType.CHECKLIST,
        ContentType.CONTACT,
        ContentType.VENUE,
        ContentType.LOCATION,
        ContentType.POLL,
        ContentType.DICE,
        ContentType.STORY,
        ContentType.PAID_MEDIA,
    }
)


class MessageScreen:
    """``await screen(update)``: True if the update was a message shed here (dropped,
    not queued); False: queue it as usual."""

    def __init__(
        self,
        held: Callable[[], int],
        seated: Callable[[int], bool] = lambda user_id: False,
        buckets: TokenBuckets | None = None,
    ) -> None:
        self.held = held  # updates the process holds now
        self.seated = seated  # whether a person plays at a table now
        self.buckets = buckets or TokenBuckets(burst=BURST, rate=RATE)
        self._shedding: set[int] = set()  # writers whose latest message was shed

    async def __call__(self, update: Update) -> bool:
        message = update.message
        if message is None or message.content_type not in WRITTEN:
            return False
        # (An anonymous admin or a channel writes as a chat, under a user id they share.)
        sender = message.sender_chat or message.from_user or message.chat
        writer = sender.id
        # (Counted even when nothing is shed: a flood that began in a quiet moment is
        # shed as soon as it presses.)
        if self.buckets.take(writer) or self.held() < PRESSED or self.seated(writer):
            self._shedding.discard(writer)
            return False
        if writer not in self._shedding:
            if len(self._shedding) >= SHEDDING_KEPT:  # (it only keeps the log short)
                self._shedding.clear()
            self._shedding.add(writer)
            log.info("user %s writes faster than a person: shedding their messages", writer)
        metrics.MESSAGES_SHED.inc()
        return True
