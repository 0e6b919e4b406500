"""getUpdates sent and read on a thread of its own, beside the bot's busy event loop.

Telegram hands updates out in the order they came, so a player's tap behind a flood is
read only once every update before it has been: how fast the bot reads is how long that
tap waits. Sent from the bot's event loop, each getUpdates waited for a turn of that
loop (busy with the 64 updates being handled) at each step of sending it and of reading
its answer, and the next one could not start before the batch in hand was parsed
(bench/junk.py --trace: of polling's 0.15 s for 100 updates, ~0.06 s was the answer
waiting for the bot's loop and ~0.04 s parsing before the next request went out). Here
the request goes out the moment it is asked for, and its answer is read on this thread's
own loop and connection; the bot's loop only takes up the finished text and checks it as
aiogram does (Telegram's errors, retry-after, an answer that is not JSON).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine
from typing import Any

import aiohttp
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.exceptions import TelegramNetworkError

from bot.intake import ReadUpdates


class UpdatesFetcher:
    """``fetcher.ask(request, timeout)`` sends a getUpdates at once and returns what
    awaits its updates (raw JSON, for bot/intake.py to parse one by one)."""

    def __init__(self, bot: Bot) -> None:
        assert isinstance(bot.session, AiohttpSession)  # (bot/app.py make_bot's)
        self._bot = bot
        self._forms = bot.session  # what aiogram would send, built the same way
        self._loop = asyncio.new_event_loop()
        self._session: aiohttp.ClientSession | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="getUpdates")
        self._thread.daemon = True  # (close() stops it; a crashed process must not wait)
        self._thread.start()

    def ask(self, request: ReadUpdates, timeout: float) -> Coroutine[Any, Any, list[Any]]:
        url = self._forms.api.api_url(token=self._bot.token, method=request.__api_method__)
        form = self._forms.build_form_data(self._bot, request)
        sent = asyncio.run_coroutine_threadsafe(self._post(url, form, timeout), self._loop)
        # (Asked for and then given up, as when stopping: nobody reads its outcome.)
        sent.add_done_callback(lambda done: done.cancelled() or done.exception())
        return self._answer(request, asyncio.wrap_future(sent))

    async def _answer(
        self, request: ReadUpdates, sent: asyncio.Future[tuple[int, str]]
    ) -> list[Any]:
        try:
            status, content = await sent
        except TimeoutError as exc:  # (the same errors aiogram's own session raises)
            raise TelegramNetworkError(method=request, message="Request timeout error") from exc
        except aiohttp.ClientError as exc:
            raise TelegramNetworkError(
                method=request, message=f"{type(exc).__name__}: {exc}"
            ) from exc
        response = self._bot.session.check_response(
            bot=self._bot, method=request, status_code=status, content=content
        )
        result: list[Any] = response.result or []
        return result

    async def _post(self, url: str, form: aiohttp.FormData, timeout: float) -> tuple[int, str]:
        if self._session is None:
            self._session = aiohttp.ClientSession()
        client_timeout = aiohttp.ClientTimeout(total=timeout)
        async with self._session.post(url, data=form, timeout=client_timeout) as response:
            return response.status, await response.text()

    async def close(self) -> None:
        """Give up what is asked for and stop the thread."""
        if not self._thread.is_alive():
            return
        stopped = asyncio.run_coroutine_threadsafe(self._shut(), self._loop)
        with contextlib.suppress(Exception):
            await asyncio.wrap_future(stopped)
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join)
        self._loop.close()

    async def _shut(self) -> None:
        here = asyncio.current_task()
        others = [task for task in asyncio.all_tasks() if task is not here]
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        if self._session is not None:
            await self._session.close()
