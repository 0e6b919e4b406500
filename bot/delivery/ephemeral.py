"""Players' hands shown inside the group as ephemeral messages (a message in a group that
one member sees; Bot API 10.2-10.3), and the one place their sends and edits are paced.

A hand here is a copy of the private hand, never the record: Telegram does not promise
to deliver an ephemeral message (an offline user, an app restart), and a bot that is not
an administrator may send one only within 15 s of the user's tap. So copies live in
memory only, each player's in one task that sends, edits or deletes one thing at a time
and skips to the newest content (a redraw replaces the one still waiting). A copy that
is lost is got back by tapping «🂠 My cards» again; its buttons carry the game's version,
so a tap on an older copy is refused as stale like any other.

Telegram has not said whether these operations count against the group's 20 messages a
minute. They are paced here as the receiver's private chat is (about one a second, shared
with their private hand's edits: ``DeliveryWorker.bucket``) plus the bot-wide bound; once
Telegram answers 429 to one in a group, that group's own budget is taken too from then on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.enums import ChatMemberStatus
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramRetryAfter

from bot.delivery import lean_api
from bot.delivery.worker import Bucket, DeliveryWorker
from bot.service.followers import HandCopies

log = logging.getLogger(__name__)

# How long the bot's administrator status in a group is trusted before it is asked again
# (a my_chat_member update says at once when it changes: ``status_changed``).
ADMIN_KNOWN_FOR = 600.0
# A failing call (Telegram out of reach) is tried this many times, a second apart, and
# then given up: the private hand has the same content, and a tap brings a copy back.
TRIES = 3
# How long a tap waits for its hand to be sent before it is answered anyway.
SHOW_WAIT = 8.0

Key = tuple[int, int]  # (game id, user id)
Content = tuple[str, dict[str, Any] | None]  # text and keyboard


@dataclass
class Copy:
    """One player's hand in one game's group: what it shows and what it should."""

    chat_id: int
    thread_id: int | None
    ephemeral_id: int | None = None  # None: none sent (or the last one is gone)
    shown: Content | None = None
    wanted: Content | None = None
    fresh: bool = False  # the next content goes as a new message (at the player's turn)
    query_id: str | None = None  # the tap a new message answers (Telegram's 15 s window)
    over: bool = False  # the game is over: the content wanted is the copy's last
    waiting: list[asyncio.Future[bool]] = field(default_factory=list)
    task: asyncio.Task[None] | None = None


class GroupHands(HandCopies):
    """The hands' copies inside groups, for a running bot."""

    def __init__(
        self, bot: Bot, pacing: DeliveryWorker, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.bot = bot
        self.pacing = pacing
        self.clock = clock
        self._copies: dict[Key, Copy] = {}
        self._by_game: dict[int, set[int]] = {}
        self._admin: dict[int, tuple[bool, float]] = {}  # chat -> (is admin, known at)
        self._group_paced: set[int] = set()  # groups whose 429 said these count there

    # --- what the service asks ------------------------------------------------------

    def used(self, game_id: int) -> bool:
        return game_id in self._by_game

    async def show(
        self,
        game_id: int,
        user_id: int,
        chat_id: int,
        thread_id: int | None,
        content: Content,
        query_id: str,
    ) -> bool:
        """Send the player their hand as a new ephemeral message, answering their tap
        ``query_id``; True once Telegram took it (not that it reached them)."""
        copy = self._copy(game_id, user_id, chat_id, thread_id)
        copy.wanted, copy.fresh, copy.query_id = content, True, query_id
        done = asyncio.get_running_loop().create_future()
        copy.waiting.append(done)
        self._run(game_id, user_id, copy)
        try:
            async with asyncio.timeout(SHOW_WAIT):
                return await asyncio.shield(done)
        except TimeoutError:
            return False

    def tapped(self, game_id: int, user_id: int, chat_id: int, ephemeral_id: int) -> bool:
        """The player tapped a button of ephemeral message ``ephemeral_id``: the copy they
        are looking at, which later redraws edit (one from before a restart, say)."""
        copy = self._copy(game_id, user_id, chat_id, None)
        if copy.ephemeral_id == ephemeral_id:
            return False
        copy.ephemeral_id, copy.shown = ephemeral_id, None
        return True

    def redraw(
        self,
        game_id: int,
        user_id: int,
        content: Content,
        *,
        at_turn: bool = False,
        over: bool = False,
    ) -> None:
        """The player's hand changed: their copy shows ``content`` too. ``at_turn``: it
        is their turn and the chat wants the hand brought then, as a new message (only
        where the bot is an administrator; else the copy is edited). ``over``: the game
        is over, and this is the copy's last edit."""
        copy = self._copies.get((game_id, user_id))
        if copy is None:
            return
        copy.wanted = content
        copy.fresh = (copy.fresh or at_turn) and not over
        copy.over = copy.over or over
        self._run(game_id, user_id, copy)

    async def tell(
        self,
        chat_id: int,
        user_id: int,
        thread_id: int | None,
        text: str,
        markup: dict[str, Any] | None,
    ) -> bool:
        sent = await self._call(
            chat_id,
            user_id,
            lambda: lean_api.send_ephemeral(
                self.bot, chat_id, user_id, text, markup, thread_id=thread_id
            ),
        )
        return sent is not None

    def status_changed(self, chat_id: int) -> None:
        """The bot's membership in ``chat_id`` changed (made administrator or not)."""
        self._admin.pop(chat_id, None)

    async def close(self) -> None:
        tasks = [c.task for c in self._copies.values() if c.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- the copies' tasks -----------------------------------------------------------

    def _copy(self, game_id: int, user_id: int, chat_id: int, thread_id: int | None) -> Copy:
        copy = self._copies.get((game_id, user_id))
        if copy is None:
            copy = self._copies[(game_id, user_id)] = Copy(chat_id, thread_id)
            self._by_game.setdefault(game_id, set()).add(user_id)
        elif thread_id is not None:
            copy.thread_id = thread_id
        return copy

    def _forget(self, game_id: int, user_id: int) -> None:
        self._copies.pop((game_id, user_id), None)
        users = self._by_game.get(game_id)
        if users is not None:
            users.discard(user_id)
            if not users:
                del self._by_game[game_id]

    def _run(self, game_id: int, user_id: int, copy: Copy) -> None:
        if copy.task is None or copy.task.done():
            copy.task = asyncio.create_task(
                self._drain(game_id, user_id, copy), name=f"group-hand-{game_id}-{user_id}"
            )

    async def _drain(self, game_id: int, user_id: int, copy: Copy) -> None:
        while copy.wanted is not None:
            content, fresh, query_id, over = copy.wanted, copy.fresh, copy.query_id, copy.over
            copy.wanted, copy.fresh, copy.query_id = None, False, None
            try:
                if fresh and (query_id is not None or await self._is_admin(copy.chat_id)):
                    sent = await self._send(user_id, copy, content, query_id)
                else:
                    sent = await self._edit(user_id, copy, content)
            except Exception:
                log.exception("hand copy of user %s in game %s failed", user_id, game_id)
                sent = False
            if query_id is not None or fresh:
                for done in copy.waiting:
                    if not done.done():
                        done.set_result(sent)
                copy.waiting.clear()
            if over:
                self._forget(game_id, user_id)
                return
        for done in copy.waiting:  # (superseded by nothing: told it went as well as it did)
            if not done.done():
                done.set_result(copy.ephemeral_id is not None)
        copy.waiting.clear()

    async def _send(self, user_id: int, copy: Copy, content: Content, query_id: str | None) -> bool:
        older = copy.ephemeral_id
        text, markup = content
        new_id = await self._call(
            copy.chat_id,
            user_id,
            lambda: lean_api.send_ephemeral(
                self.bot,
                copy.chat_id,
                user_id,
                text,
                markup,
                callback_query_id=query_id,
                thread_id=copy.thread_id,
            ),
        )
        if new_id is None:
            if query_id is None and older is not None:  # not let to send: the old one then
                return await self._edit(user_id, copy, content)
            return False
        copy.ephemeral_id, copy.shown = int(new_id), content
        if older is not None and older != new_id:
            # The older copy (lost, scrolled away, or still up): one hand on screen.
            await self._call(
                copy.chat_id,
                user_id,
                lambda: lean_api.delete_ephemeral(self.bot, copy.chat_id, user_id, older),
            )
        return True

    async def _edit(self, user_id: int, copy: Copy, content: Content) -> bool:
        target = copy.ephemeral_id
        if target is None:
            return False
        if copy.shown == content:
            return True
        text, markup = content
        done = await self._call(
            copy.chat_id,
            user_id,
            lambda: lean_api.edit_ephemeral(self.bot, copy.chat_id, user_id, target, text, markup),
            gone_ok=True,
        )
        if done is None:  # gone (deleted, expired): a tap on «My cards» brings a new one
            if copy.ephemeral_id == target:
                copy.ephemeral_id, copy.shown = None, None
            return False
        copy.shown = content
        return True

    async def _call(
        self,
        chat_id: int,
        user_id: int,
        make: Callable[[], Any],
        *,
        gone_ok: bool = False,
    ) -> Any:
        """One paced call; its result (True for a call that returns nothing), or None when
        Telegram refused it for good (the caller decides what that means)."""
        for attempt in range(TRIES):
            await self._pace(chat_id, user_id)
            try:
                result = await make()
            except TelegramRetryAfter as exc:
                # 429 on a group's ephemeral message: they count against the group too.
                self._group_paced.add(chat_id)
                self.pacing.bucket(chat_id).paused_until = self.clock() + exc.retry_after
                continue
            except TelegramBadRequest as exc:
                if "not modified" in exc.message.lower():
                    return True
                if not ("not found" in exc.message.lower() and gone_ok):
                    log.info("ephemeral to %s in %s refused: %s", user_id, chat_id, exc.message)
                return None
            except TelegramAPIError as exc:
                log.info("ephemeral to %s in %s failed: %s", user_id, chat_id, exc.message)
                if attempt + 1 < TRIES:
                    await asyncio.sleep(1.0)
                continue
            return True if result is None else result
        return None

    async def _pace(self, chat_id: int, user_id: int) -> None:
        """Wait until the receiver's private budget and the bot-wide one (and the group's,
        once Telegram said they count there) allow one more operation, and take it."""
        while True:
            now = self.clock()
            buckets: list[Bucket] = [self.pacing.bucket(user_id), self.pacing.bot_wide]
            if chat_id in self._group_paced:
                buckets.append(self.pacing.bucket(chat_id))
            ready = max(bucket.ready_at(now) for bucket in buckets)
            if ready <= now:
                for bucket in buckets:
                    bucket.take(now)
                return
            await asyncio.sleep(ready - now)

    async def _is_admin(self, chat_id: int) -> bool:
        """The bot is an administrator of ``chat_id`` (may send a hand unasked)."""
        known = self._admin.get(chat_id)
        if known is not None and self.clock() - known[1] < ADMIN_KNOWN_FOR:
            return known[0]
        admin = False
        with contextlib.suppress(TelegramAPIError):
            member = await self.bot.get_chat_member(chat_id, self.bot.id)
            admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.CREATOR)
        self._admin[chat_id] = (admin, self.clock())
        return admin
