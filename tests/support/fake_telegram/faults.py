"""Faults the fake injects: one-off failures a test asks for (``fail_next``) and the
random 429s, 5xx and dropped connections of :class:`Faults`. A mixin of
:class:`FakeTelegram`, whose state it uses."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aiohttp import web

from .limits import InjectedFault, OneOffFault
from .text import ApiError, int_or_none


class FaultInjection:
    def fail_next(
        self,
        method: str,
        status: int = 500,
        description: str | None = None,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        chat_id: int | None = None,
        times: int = 1,
        after_effect: bool = False,
        html: bool = False,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` (optionally only for ``chat_id``)
        with ``status`` without any effect, or (``after_effect``) after doing what they
        ask: Telegram accepted the call, and the bot never learnt it (a lost reply).
        ``html``: the answer is a proxy's HTML error page, not the Bot API's JSON."""
        self._one_off.append(
            OneOffFault(
                method,
                status,
                description,
                retry_after,
                migrate_to_chat_id,
                chat_id,
                times,
                after_effect,
                html,
            )
        )

    def _draw_after_effect(self, name: str, params: dict[str, Any]) -> OneOffFault | None:
        chat_key = int_or_none(params.get("chat_id"))
        for fault in self._one_off:
            if (
                fault.after_effect
                and fault.method.lower() == name.lower()
                and (fault.chat_id is None or fault.chat_id == chat_key)
            ):
                fault.times -= 1
                if fault.times <= 0:
                    self._one_off.remove(fault)
                return fault
        return None

    async def _draw_fault(
        self, name: str, params: dict[str, Any], request: web.Request
    ) -> web.StreamResponse | None:
        chat_id = params.get("chat_id")
        chat_key = chat_id if isinstance(chat_id, int) else int_or_none(chat_id)
        for fault in self._one_off:
            if (
                not fault.after_effect
                and fault.method.lower() == name.lower()
                and (fault.chat_id is None or fault.chat_id == chat_key)
            ):
                fault.times -= 1
                if fault.times <= 0:
                    self._one_off.remove(fault)
                parameters: dict[str, Any] = {}
                if fault.retry_after is not None:
                    parameters["retry_after"] = fault.retry_after
                if fault.migrate_to_chat_id is not None:
                    parameters["migrate_to_chat_id"] = fault.migrate_to_chat_id
                desc = fault.description or default_description(fault.status, fault.retry_after)
                if fault.html:
                    return self._serve_html(name, params, fault.status, desc, chat_key)
                return self._serve_fault(name, params, fault.status, desc, parameters, chat_key)
        faults = self.faults
        if not faults.applies_to(name):
            return None
        lo, hi = faults.latency
        if hi > 0:
            await asyncio.sleep(faults.rng.uniform(lo, hi))
        roll = faults.rng.random()
        if roll < faults.p_429:
            lo_r, hi_r = faults.retry_after_range
            retry = faults.rng.randint(lo_r, hi_r)
            desc = default_description(429, retry)
            return self._serve_fault(name, params, 429, desc, {"retry_after": retry}, chat_key)
        roll -= faults.p_429
        if roll < faults.p_5xx:
            status = faults.rng.choice(faults.statuses_5xx)
            desc = default_description(status, None)
            if faults.html_5xx:
                return self._serve_html(name, params, status, desc, chat_key)
            return self._serve_fault(name, params, status, desc, {}, chat_key)
        roll -= faults.p_5xx
        if roll < faults.p_hang:
            self._record(name, params, 0, "hung")
            self.injected_faults.append(InjectedFault(name, 0, "hung", time.monotonic(), chat_key))
            # Held open with nothing said, like a dead connection to a Telegram that is
            # down: never answered, even once the faults are over; the client gives up.
            deadline = time.monotonic() + faults.hang_seconds
            while (
                request.transport is not None
                and not request.transport.is_closing()
                and time.monotonic() < deadline
            ):
                await asyncio.sleep(0.05)
            if request.transport is not None:
                request.transport.close()
            raise asyncio.CancelledError
        roll -= faults.p_hang
        if roll < faults.p_disconnect:
            self._record(name, params, 0, "connection dropped")
            self.injected_faults.append(
                InjectedFault(name, 0, "connection dropped", time.monotonic(), chat_key)
            )
            if request.transport is not None:
                request.transport.close()
            raise asyncio.CancelledError
        return None

    def _serve_fault(
        self,
        name: str,
        params: dict[str, Any],
        status: int,
        desc: str,
        parameters: dict[str, Any],
        chat_id: int | None,
    ) -> web.Response:
        self._record(name, params, status, desc)
        self.injected_faults.append(
            InjectedFault(name, status, desc, time.monotonic(), chat_id, dict(parameters))
        )
        return self._error_response(ApiError(status, desc, parameters or None))

    def _serve_html(
        self, name: str, params: dict[str, Any], status: int, desc: str, chat_id: int | None
    ) -> web.Response:
        """nginx's error page in front of the Bot API: HTML, no JSON."""
        self._record(name, params, status, desc)
        self.injected_faults.append(InjectedFault(name, status, desc, time.monotonic(), chat_id))
        html = f"<html><head><title>{status} {desc}</title></head><body></body></html>"
        return web.Response(text=html, status=status, content_type="text/html")

    def _serve_after_effect(
        self, name: str, params: dict[str, Any], accepted: OneOffFault
    ) -> web.Response:
        """The call was done; the bot is told it failed (a lost reply)."""
        desc = accepted.description or default_description(accepted.status, None)
        chat_key = int_or_none(params.get("chat_id"))
        return self._serve_fault(name, params, accepted.status, desc, {}, chat_key)


def default_description(status: int, retry_after: int | None) -> str:
    if status == 429:
        return f"Too Many Requests: retry after {retry_after or 1}"
    return {
        400: "Bad Request",
        401: "Unauthorized",
        403: "Forbidden",
        404: "Not Found",
        409: "Conflict",
        500: "Internal Server Error",
        502: "Bad Gateway",
        503: "Service Unavailable",
        504: "Gateway Timeout",
    }.get(status, "Error")
