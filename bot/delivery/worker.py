"""The delivery worker: drains the durable outbox at Telegram's pace.

Every message the bot sends about a game goes through here. Pending edits of one
message are coalesced (only the newest content is sent, bar an edit with a milestone,
such as a hand showing a finished trick: see ``OutboxOp.milestone``), each chat is
paced by a token bucket, and Telegram's refusals are turned into retries, fresh
messages or state changes instead of lost messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)

from bot import metrics
from bot.delivery import lean_api
from bot.delivery.attachments import Attachments, is_attachment
from storage import Backend, CorruptRecordError, OutboxItem, SentOp
from storage.rows import FIRST_TURN, OutboxTurns

log = logging.getLogger(__name__)

# While the bot-wide limit holds sends back, the outbox is read once per this many sends
# that may go (at 25 a second, a look every 120 ms at most).
STEP_BATCH = 3
# A step reads the chats' turns this many at a time (plus the chats with a send in
# flight, which it skips): enough that chats held by their own pace rarely need a second
# page, few enough that a long backlog costs a step nothing.
TURNS_PER_READ = 4 * STEP_BATCH
# A failed operation is tried again after a wait doubling from 0.5 s up to this cap, drawn
# at random from its upper half (so the chats that failed together do not come back
# together). The cap is low because the wait holds the chat's queue, and a chat must move
# again within seconds of Telegram answering again (a minute's cap made tables wait 25-47 s
# after an outage); other chats are never held by it.
RETRY_CAP = 3.0
# A group that refuses the bot's messages (403: it was removed) has them held, not dropped,
# for this long: someone may add the bot back, and then the group is told all it missed.
# A day: an administrator's slip is noticed by the next day, and a game nobody has seen
# for a day is over for its players anyway (its game ends then, bot/service/presence.py).
OUT_OF_GROUP_HELD = 86400.0
# While held, a group is tried again this often: the bot learns that it is back from
# Telegram's my_chat_member update at once, this is for an update that never came.
OUT_OF_GROUP_PROBE = 300.0
OUT_OF_GROUP = "out of the group"  # a held row's last error
# About 15 minutes of Telegram trouble (at 2.25 s a try on average, plus the tries' own
# time) before a message is given up.
MAX_ATTEMPTS = 400
# What ``_send`` answers for an operation that needed no call to Telegram: a delete of a
# ping that is down already, an edit to what the message shows already. Such a row gives
# its chat's and the bot's budgets back: with several instances each move queues a ping
# delete (an instance cannot know that another took the ping down), and paced like calls
# fifty of them held a player's hand back for a minute (tests/e2e/test_scale.py).
NO_CALL = -1
# Stopping (shutdown, or another instance took the sender's role): how long the sends in
# flight may take to finish. One Telegram has taken is then recorded as sent instead of
# going again from the next sender (a second copy in the chat), and the bot's HTTP session
# is not closed under it (aiogram would open a new one for the call and leave it open).
SETTLE_SECONDS = 5.0


@dataclass
class Bucket:
    """A token bucket: ``capacity`` operations at once, refilled at ``rate`` per second."""

    capacity: float
    rate: float
    tokens: float = -1.0
    stamp: float = 0.0
    paused_until: float = 0.0

    def ready_at(self, now: float, need: float = 1) -> float:
        """When ``need`` operations may go (``now`` if they may go at once)."""
        self._refill(now)
        need = min(need, self.capacity)
        wait = 0.0 if self.tokens >= need else (need - self.tokens) / self.rate
        return max(now + wait, self.paused_until)

    def take(self, now: float) -> None:
        self._refill(now)
        self.tokens -= 1

    def give_back(self, now: float) -> None:
        """An operation taken that Telegram never saw."""
        self._refill(now)
        self.tokens = min(self.capacity, self.tokens + 1)

    def _refill(self, now: float) -> None:
        if self.tokens < 0 and self.stamp == 0.0:
            self.tokens, self.stamp = self.capacity, now
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now


@dataclass(frozen=True)
class Limits:
    # Worst case in any 60 s window: capacity + 60 * rate. Telegram allows about 20
    # per minute in a group, so 3 + 16 stays under it with room for clock skew.
    group_capacity: float = 3
    group_rate: float = 16 / 60
    private_capacity: float = 2
    private_rate: float = 0.9
    # Likewise in any 1 s window: capacity + rate. Telegram allows about 30 per second
    # over all chats; a full bucket of 25 plus 25 refilled would make 50.
    global_capacity: float = 3
    global_rate: float = 25
    # The longest of Telegram's windows: a (re)started sender replays the operations of
    # this many seconds into its buckets, so their bounds above hold across a restart.
    history: float = 60


@dataclass
class DeliveryStats:
    sent: int = 0
    coalesced: int = 0
    retried: int = 0
    dropped: int = 0
    unchanged: int = 0  # edits not sent: Telegram shows that text and keyboard already
    flood_waits: int = 0
    errors: list[str] = field(default_factory=list)


class DeliveryWorker:
    def __init__(
        self,
        bot: Bot,
        storage: Backend,
        wake: asyncio.Event,
        *,
        on_forbidden: Callable[[int], Awaitable[None]],
        on_migrated: Callable[[int, int], Awaitable[None]],
        on_removed: Callable[[int], Awaitable[None]] | None = None,
        on_back: Callable[[int], Awaitable[None]] | None = None,
        limits: Limits | None = None,
        attachments: Attachments | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.bot = bot
        self.storage = storage
        self.wake = wake
        self.on_forbidden = on_forbidden
        self.on_migrated = on_migrated
        self.on_removed = on_removed
        self.on_back = on_back
        self.limits = limits or Limits()
        self.attachments = attachments
        self.clock = clock
        self.wall_clock = wall_clock
        self.stats = DeliveryStats()
        self._buckets: dict[int, Bucket] = {}
        self._global = Bucket(self.limits.global_capacity, self.limits.global_rate)
        self._in_flight: dict[int, asyncio.Task[None]] = {}
        self._held_back: set[int] = set()  # edits the last step left for a newer one
        # What each message shows, as we last set it: an edit to the same text and
        # keyboard would cost an operation and change nothing. (Lost on restart: at
        # worst one redundant edit per message, which Telegram answers "not modified".)
        self._shown: dict[tuple[int, int], int] = {}
        self._stopping = False
        self._pruned_at = 0.0  # wall clock: when sent_ops was last pruned

    def bucket(self, chat_id: int) -> Bucket:
        """The pace of ``chat_id`` (a user's private chat: its id is the user's), shared
        with the group's ephemeral messages to that user (bot/delivery/ephemeral.py)."""
        return self._bucket(chat_id)

    @property
    def bot_wide(self) -> Bucket:
        """The pace of all the bot's operations together."""
        return self._global

    def _bucket(self, chat_id: int) -> Bucket:
        bucket = self._buckets.get(chat_id)
        if bucket is None:
            lim = self.limits
            if chat_id > 0:
                bucket = Bucket(lim.private_capacity, lim.private_rate)
            else:
                bucket = Bucket(lim.group_capacity, lim.group_rate)
            self._buckets[chat_id] = bucket
        return bucket

    async def rebuild_pacing(self) -> None:
        """Start as if this sender had sent what Telegram took in the last minute.

        Telegram's windows outlive a process: a sender that starts (after a restart or a
        crash, or taking the role over from a dead instance) with full buckets sent a
        group its whole burst on top of the minute's share just spent, and got 429s. So
        each chat's bucket replays the operations logged (at the moment Telegram had
        answered, never earlier than it counted them). Each chat with a due row counts one
        more now, logged too (else the restart after next forgets it): the previous sender
        may have had that row in flight, taken by Telegram but not logged, and it goes
        again. The bot-wide bucket starts empty: whatever was in flight started within the
        previous sender's bound, and an empty bucket keeps the two within one second's.
        """
        lim = self.limits
        ops = await self.storage.sent_ops(self.wall_clock() - lim.history)
        heads = await self.storage.outbox_heads()
        wall = self.wall_clock()
        in_flight = [SentOp(head.chat_id, wall) for head in heads if head.not_before <= wall]
        await self.storage.log_sent_ops(in_flight)
        now, wall = self.clock(), self.wall_clock()
        self._buckets.clear()
        for op in (*ops, *in_flight):  # oldest first, as a bucket must see them
            self._bucket(op.chat_id).take(now - max(0.0, wall - op.at))
        self._global = Bucket(lim.global_capacity, lim.global_rate, tokens=0.0, stamp=now)
        await self._prune(wall)

    async def _prune(self, wall: float) -> None:
        """Forget logged operations too old for any window, at most once per window."""
        if wall - self._pruned_at >= self.limits.history:
            await self.storage.prune_sent_ops(wall - self.limits.history)
            self._pruned_at = wall

    async def run(self) -> None:
        """Drain the outbox until cancelled; then let the sends in flight settle."""
        try:
            await self._drain_until_stopped()
        finally:
            await self._settle(SETTLE_SECONDS)

    async def _drain_until_stopped(self) -> None:
        paced = False  # each run: each time this instance becomes the sender
        while not self._stopping:
            # Cleared before the step, not after it: a wake-up that comes while the step
            # reads the outbox (a send finished, a commit queued more) starts the next
            # step at once instead of being lost until the step's delay runs out.
            self.wake.clear()
            try:
                if not paced:
                    await self.rebuild_pacing()
                    paced = True
                else:
                    await self._prune(self.wall_clock())
                delay = await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("delivery step failed; retrying shortly")
                delay = 1.0
            # asyncio.timeout, not wait_for: Python 3.11's wait_for drops a cancel that
            # comes as the wake-up does, and this loop (and the bot's shutdown) then ran on.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self.wake.wait()

    async def stop(self) -> None:
        self._stopping = True
        self.wake.set()
        await self._settle(SETTLE_SECONDS)

    async def _settle(self, timeout: float) -> None:
        """Wait up to ``timeout`` for the sends in flight; cancel the rest (their rows stay
        in the outbox and go again, as after a crash)."""
        in_flight = list(self._in_flight.values())
        if not in_flight:
            return
        _finished, hung = await asyncio.wait(in_flight, timeout=timeout)
        for task in hung:
            task.cancel()
        await asyncio.gather(*hung, return_exceptions=True)

    async def drain(self, timeout: float = 30) -> None:
        """Deliver everything pending now (for shutdown and tests)."""
        deadline = self.clock() + timeout
        while self.clock() < deadline:
            delay = await self.step()
            if not self._in_flight and await self.storage.outbox_size() == 0:
                return
            await asyncio.sleep(min(delay, 0.2))

    async def step(self) -> float:
        """Start what may be sent now; return how long until something else may be."""
        wait = self._global.ready_at(self.clock(), STEP_BATCH) - self.clock()
        if wait > 0:
            # Each look at the outbox costs a write (the superseded edits dropped) and a
            # read over every chat's queue, and with many tables the outbox is longest
            # exactly when the bot is busiest: while the bot-wide limit holds the sends
            # back, look only when several may go together (a few tens of ms later), not
            # at every wake-up (CPU per update).
            return wait
        # A chat with a send in flight is left alone for this whole step, even if the send
        # finishes while the reads below wait: its rows as read may hold the one just
        # delivered (marked done only after Telegram answered), which would go twice.
        # Its end wakes the sender, and the next step reads the chat afresh.
        busy = set(self._in_flight)
        self.stats.coalesced += await self.storage.outbox_drop_superseded()
        # The chats' turns are read a page at a time, in the order they go (storage/rows.py
        # OUTBOX_TURNS: per chat FIFO, except that answers to commands go before the
        # games' own messages; across chats games first, then groups' answers, then
        # private chats' answers), and only while something may still go: thousands of
        # strangers' answers queued in a flood cost a step a page, not the backlog.
        # Edits committed after this step dropped the superseded ones (between that
        # write and the read) are not coalesced yet: an edit with a newer edit of its
        # message due too waits for the next step's drop, once (an edit showing a
        # milestone, which that drop keeps, then goes as it is).
        held_back: set[int] = set()
        started: set[int] = set()  # a chat's turn may come up again on a later page
        after = FIRST_TURN
        next_at: float | None = None
        while True:
            page_size = TURNS_PER_READ + len(busy)
            page = await self._turns(after, page_size, busy)
            # The clocks are read after the last await: the buckets must count the moment
            # the operations start. (Read before a slow query, operations the buckets
            # had spread out started together: 429s from Telegram's global limit.)
            now = self.clock()
            wall = self.wall_clock()
            if next_at is None:
                next_at = now + 1.0
                if page.next_due is not None:  # a chat's head waiting for a retry
                    next_at = min(next_at, now + page.next_due - wall)
            for turn in page.turns:
                item = turn.item
                chat_id = item.chat_id
                if chat_id in self._in_flight or chat_id in busy or chat_id in started:
                    continue
                if turn.newer_edit and item.id not in self._held_back:
                    held_back.add(item.id)
                    next_at = now
                    continue
                ready = max(self._bucket(chat_id).ready_at(now), self._global.ready_at(now))
                if ready > now:
                    next_at = min(next_at, ready)
                    continue
                self._bucket(chat_id).take(now)
                self._global.take(now)
                started.add(chat_id)
                task = asyncio.create_task(self._deliver(item))
                self._in_flight[chat_id] = task
                task.add_done_callback(functools.partial(self._done, chat_id))
            global_ready = self._global.ready_at(now)
            if len(page.turns) < page_size or global_ready > now:
                # Every chat seen, or nothing more may go: the chats not read wait for
                # the bot-wide bucket at least, as the next step's first look does.
                if len(page.turns) == page_size:
                    next_at = min(next_at, global_ready)
                break
            after = page.last
        self._held_back = held_back
        return max(0.01, next_at - now)

    async def _turns(self, after: tuple[int, int], size: int, busy: set[int]) -> OutboxTurns:
        """A page of the chats' turns, after the pings that cancel out in those chats are
        dropped (read again if any were: a chat's next row may have been one of them)."""
        while True:
            page = await self.storage.outbox_turns(self.wall_clock(), size, after)
            pinged = {
                turn.item.chat_id
                for turn in page.turns
                if turn.item.chat_id not in busy
                and turn.item.role is not None
                and turn.item.role.startswith("ping:")
            }
            if not pinged or not await self._drop_cancelled_pings(pinged):
                return page

    async def _drop_cancelled_pings(self, chat_ids: set[int]) -> int:
        """A pending ping "send" followed by the next ping's "delete" cancel out: neither
        needs to go. So a player who gets several turns while their chat is paced sees one
        ping, not a backlog of them (pings are delete + send, which edits cannot coalesce).
        And of deletes with no send between them only the first is needed: with several
        instances every move queues one (an instance cannot know that another took the
        ping down already). Read for the chats whose next row is a ping; returns the rows
        dropped."""
        stacks: dict[tuple[int, int | None, str], list[OutboxItem]] = {}
        dropped: set[int] = set()
        for item in await self.storage.outbox_pings(chat_ids, self.wall_clock()):
            role = item.role
            if role is None:
                continue
            stack = stacks.setdefault((item.chat_id, item.game_id, role), [])
            if item.method == "delete" and stack and stack[-1].method == "send":
                dropped.update((stack.pop().id, item.id))
            elif item.method == "delete" and stack and stack[-1].method == "delete":
                dropped.add(item.id)
            else:
                stack.append(item)
        for item_id in dropped:
            await self.storage.outbox_done(item_id)
        self.stats.coalesced += len(dropped)
        return len(dropped)

    def _done(self, chat_id: int, _task: asyncio.Task[None]) -> None:
        self._in_flight.pop(chat_id, None)
        self.wake.set()

    async def _deliver(self, item: OutboxItem) -> None:
        started = self.wall_clock()
        try:
            message_id = await self._send(item)
        except TelegramRetryAfter as exc:
            self.stats.flood_waits += 1
            metrics.FLOOD_WAITS.inc()
            self._bucket(item.chat_id).paused_until = self.clock() + exc.retry_after
            await self.storage.outbox_retry(
                item.id,
                self.wall_clock() + exc.retry_after,
                "429 retry_after",
                count_attempt=False,
            )
        except TelegramMigrateToChat as exc:
            log.info("chat %s moved to %s", item.chat_id, exc.migrate_to_chat_id)
            await self.on_migrated(item.chat_id, exc.migrate_to_chat_id)
        except TelegramForbiddenError as exc:
            wall = self.wall_clock()
            if item.chat_id < 0 and wall - item.created_at < OUT_OF_GROUP_HELD:
                # Out of the group: the chat's messages wait (this one at their head) for
                # the bot to be back, and its games stop their clocks.
                log.info("chat %s refuses the bot (%s); holding its messages", item.chat_id, exc)
                await self.storage.outbox_retry(
                    item.id, wall + OUT_OF_GROUP_PROBE, OUT_OF_GROUP, count_attempt=False
                )
                if self.on_removed is not None:
                    await self.on_removed(item.chat_id)
                return
            await self.storage.outbox_done(item.id)
            self.stats.dropped += 1
            if item.chat_id > 0:
                log.info("user %s cannot be messaged: %s", item.chat_id, exc.message)
                await self.on_forbidden(item.chat_id)
            else:
                log.warning("bot cannot write to chat %s: %s", item.chat_id, exc.message)
        except (TelegramServerError, TelegramNetworkError, ClientDecodeError) as exc:
            # Telegram out of reach, failing, or answering with something that is not the
            # Bot API's (a proxy's HTML page): one line, and the operation is tried again.
            await self._retry(item, lean_api.failure(exc) or type(exc).__name__, started)
        except TelegramBadRequest as exc:
            # A bad request will not get better by retrying: record it and move on.
            self.stats.dropped += 1
            self.stats.errors.append(exc.message)
            log.warning("dropped %s to %s: %s", item.method, item.chat_id, exc.message)
            await self.storage.outbox_done(item.id, sent=self._sent(item))
        except TelegramAPIError as exc:
            await self._retry(item, exc.message.splitlines()[0], started)
        except CorruptRecordError as exc:  # the stored payload: trying again cannot help
            self.stats.dropped += 1
            log.error("dropped outbox item %s: %s", item.id, exc)
            await self.storage.outbox_done(item.id)
        except Exception as exc:
            log.exception("unexpected error delivering outbox item %s", item.id)
            await self._retry(item, repr(exc), started)
        else:
            if message_id == NO_CALL:
                now = self.clock()
                self._bucket(item.chat_id).give_back(now)
                self._global.give_back(now)
                await self.storage.outbox_done(item.id)
                return
            self.stats.sent += 1
            await self.storage.outbox_done(item.id, message_id, sent=self._sent(item))
            if item.last_error == OUT_OF_GROUP and self.on_back is not None:
                # A held group took a message: the bot is back, though Telegram's update
                # saying so never came. The rest goes now, and the games go on.
                await self.on_back(item.chat_id)
            if message_id is not None and item.game_id is not None and item.role is not None:
                # A newer edit may have superseded (deleted) this row while it was in
                # flight; the message it created must still be the one later edits
                # change, or they would send a second copy and leave this one stale.
                await self.storage.set_message(item.game_id, item.role, item.chat_id, message_id)

    def _sent(self, item: OutboxItem) -> SentOp:
        """The operation Telegram has just answered, as the next sender's pacing counts it."""
        return SentOp(item.chat_id, self.wall_clock())

    async def _retry(self, item: OutboxItem, error: str, started: float) -> None:
        """Try ``item`` again soon (its chat waits for it, no other chat does). The wait
        counts from when the failed try ``started``: a call that hung until it was given
        up has waited already."""
        self.stats.retried += 1
        if item.attempts >= MAX_ATTEMPTS:
            log.error(
                "giving up on outbox item %s after %s tries: %s", item.id, item.attempts, error
            )
            self.stats.dropped += 1
            await self.storage.outbox_done(item.id)
            return
        cap = min(RETRY_CAP, 0.5 * 2**item.attempts)
        again = max(self.wall_clock(), started + random.uniform(cap / 2, cap))
        log.warning(
            "%s to chat %s failed (try %s): %s; again in %.1f s",
            item.method,
            item.chat_id,
            item.attempts + 1,
            error,
            again - self.wall_clock(),
        )
        await self.storage.outbox_retry(item.id, again, error)

    async def _send(self, item: OutboxItem) -> int | None:
        """Perform one operation; returns the id of a message it created, or NO_CALL."""
        payload = dict(item.payload)
        markup = payload.pop("reply_markup", None)
        # The keyboard is the JSON Telegram takes: sent as is (bot/delivery/lean_api.py), and for
        # attachments validated by aiogram, which takes a plain dict too.
        reply_markup: Any = markup or None
        if item.method == "delete":
            return None if await self._delete(item, payload) else NO_CALL
        if item.method == "send" and self.attachments is not None and is_attachment(payload):
            return await self.attachments.send(self.bot, item, payload, reply_markup)
        if item.method == "edit" and (
            "message_id" in payload or (item.game_id is not None and item.role is not None)
        ):
            # A message named by id (a menu edited in place), else the game's role message.
            target: int | None = None
            if "message_id" in payload:
                target = int(payload.pop("message_id"))
            elif item.game_id is not None and item.role is not None:
                ref = await self.storage.get_message(item.game_id, item.role)
                if ref is not None and ref.chat_id == item.chat_id:
                    target = ref.message_id
            if target is not None:
                shown = (item.chat_id, target)
                content = hash((payload["text"], repr(markup)))
                if self._shown.get(shown) == content:
                    self.stats.unchanged += 1
                    return NO_CALL
                try:
                    await lean_api.edit_text(
                        self.bot, item.chat_id, target, payload["text"], reply_markup
                    )
                    self._remember(shown, content)
                    return None
                except TelegramBadRequest as exc:
                    text = exc.message.lower()
                    if "not modified" in text:
                        return None
                    if "not found" not in text and "can't be edited" not in text:
                        raise
                    log.info("message %s gone; sending a fresh one", target)
        message_id = await lean_api.send_text(
            self.bot, item.chat_id, markup=reply_markup, **_send_params(payload)
        )
        if item.role is not None:
            self._remember((item.chat_id, message_id), hash((payload["text"], repr(markup))))
        return message_id

    def _remember(self, message: tuple[int, int], content: int) -> None:
        if len(self._shown) >= 200_000:  # bounded; forgetting only costs a redundant edit
            self._shown.clear()
        self._shown[message] = content

    async def _delete(self, item: OutboxItem, payload: dict[str, Any]) -> bool:
        """Delete the message ``item`` names; False if there was none to delete."""
        message_id = payload.get("message_id")
        named: tuple[int, str] | None = None  # the game's role message, found by its name
        if message_id is None and item.game_id is not None and item.role is not None:
            named = (item.game_id, item.role)
            ref = await self.storage.get_message(*named)
            if ref is None or ref.chat_id != item.chat_id:
                return False
            message_id = ref.message_id
        if message_id is None:
            return False
        try:
            await lean_api.delete(self.bot, item.chat_id, message_id)
        except TelegramBadRequest as exc:
            # Already gone, or too old to delete: either way there is nothing to do.
            log.info("could not delete message %s: %s", message_id, exc.message)
        if named is not None:
            # Forgotten only once Telegram has it gone: forgotten first, a failed request
            # or a kill before it would leave the message (a 🔔 ping) up for good, as
            # the retry would find nothing to delete.
            await self.storage.forget_message(*named)
        return True


def _send_params(payload: dict[str, Any]) -> dict[str, Any]:
    allowed = ("text", "message_thread_id", "reply_to_message_id", "disable_notification")
    params = {k: v for k, v in payload.items() if k in allowed and v is not None}
    reply_to = params.pop("reply_to_message_id", None)
    if reply_to is not None:
        params["reply_parameters"] = {"message_id": reply_to, "allow_sending_without_reply": True}
    return params
