"""The Mini App in a real browser: Playwright driving Debian's Chromium.

Telegram opens a Mini App with its signed launch data in the URL hash
(``#tgWebAppData=…&tgWebAppThemeParams=…``) and the page loads Telegram's
``telegram-web-app.js``, which reads them. Here the tests sign the launch data with the
fake bot token exactly as Telegram does, and serve ``tests/support/webapp_telegram.js`` for
Telegram's script (which cannot be fetched in tests); nothing else leaves the machine.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import random
import socket
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]
TELEGRAM_JS = "https://telegram.org/js/telegram-web-app.js"
STAND_IN = Path(__file__).with_name("webapp_telegram.js")
PHONE = {"width": 360, "height": 740}

# Telegram's own theme parameters (Android, day and night).
THEMES: dict[str, dict[str, str]] = {
    "light": {
        "bg_color": "#ffffff",
        "text_color": "#000000",
        "hint_color": "#a8a8a8",
        "link_color": "#2481cc",
        "button_color": "#2481cc",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#f0f0f0",
        "header_bg_color": "#527da3",
        "accent_text_color": "#1c93e3",
        "section_bg_color": "#ffffff",
        "section_header_text_color": "#3a95d5",
        "subtitle_text_color": "#82868a",
        "destructive_text_color": "#cc2929",
    },
    "dark": {
        "bg_color": "#212d3b",
        "text_color": "#ffffff",
        "hint_color": "#7d8b99",
        "link_color": "#5eabe1",
        "button_color": "#5288c1",
        "button_text_color": "#ffffff",
        "secondary_bg_color": "#151e27",
        "header_bg_color": "#242d39",
        "accent_text_color": "#64b5ef",
        "section_bg_color": "#17212b",
        "section_header_text_color": "#79c4fc",
        "subtitle_text_color": "#7b8790",
        "destructive_text_color": "#ee686f",
    },
}


def sign_init_data(
    token: str,
    user: dict[str, Any],
    *,
    auth_date: int | None = None,
    query_id: str = "AAHdF6IQAAAAAN0XohDhrOrc",
    forge: bool = False,
    start_param: str | None = None,
) -> str:
    """``Telegram.WebApp.initData`` for ``user`` as Telegram signs it: the fields sorted,
    joined ``key=value`` by newlines, HMAC-SHA256 under the key HMAC-SHA256("WebAppData",
    bot token); ``forge`` signs with a wrong token."""
    fields = {
        "query_id": query_id,
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
    }
    if start_param is not None:  # opened by a direct link (t.me/<bot>?startapp=…)
        fields["start_param"] = start_param
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    key = hmac.new(b"WebAppData", (token + ("x" if forge else "")).encode(), hashlib.sha256)
    fields["hash"] = hmac.new(key.digest(), check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields, quote_via=quote)


def tg_user(user_id: int, first_name: str, language_code: str = "en") -> dict[str, Any]:
    return {
        "id": user_id,
        "first_name": first_name,
        "language_code": language_code,
        "allows_write_to_pm": True,
    }


def launch_hash(init_data: str, theme: str = "light", version: str = "9.1") -> str:
    """What Telegram appends to a Mini App's URL (after ``#``) when it opens it
    (``version``: the client's Bot API version, which says what the app may ask of it)."""
    params = {
        "tgWebAppData": init_data,
        "tgWebAppVersion": version,
        "tgWebAppPlatform": "android",
        "tgWebAppThemeParams": json.dumps(THEMES[theme], separators=(",", ":")),
    }
    return urlencode(params, quote_via=quote)


def launch_url(base: str, game: int, init_data: str, theme: str = "light") -> str:
    """The URL Telegram opens for the hand message's «🃏 Open table» button."""
    return f"{base}/webapp/?game={game}#" + launch_hash(init_data, theme)


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """A headless Chromium, or a skip saying what is missing (tests/conftest.py turns
    that skip into a failure in CI)."""
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:  # pragma: no cover - bootstrap installs it
        pytest.skip(f"Playwright is not installed: {exc}")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (scripts/test installs it with apt as root)")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            await browser.close()


async def open_app(browser: Any, url: str, theme: str = "light", scale: float = 2) -> Any:
    """A phone-sized page of its own (a separate context: its own storage, as separate
    people's phones) opened at ``url``, Telegram's script stood in for, the rest of the
    internet cut off."""
    context = await browser.new_context(
        viewport=PHONE,
        device_scale_factor=scale,
        is_mobile=True,
        has_touch=True,
        color_scheme="dark" if theme == "dark" else "light",
        locale="en-US",
    )
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))

    async def route(route: Any) -> None:
        request_url = route.request.url
        if request_url == TELEGRAM_JS:
            await route.fulfill(
                status=200, content_type="application/javascript", body=STAND_IN.read_text()
            )
        elif request_url.startswith(origin):
            await route.continue_()
        else:
            await route.abort()

    await context.route("**/*", route)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("requestfailed", lambda r: console.append(f"failed: {r.url} {r.failure}"))
    page.console_log = console
    await page.goto(url)
    return page


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def webapp_settings(port: int) -> dict[str, Any]:
    """The bot's settings for its Mini App on this machine (polling mode: WEBAPP_LISTEN)."""
    return {"webapp_url": f"http://127.0.0.1:{port}", "webapp_listen": f"127.0.0.1:{port}"}


def web_app_url(message: Any) -> str | None:
    """The URL of a message's «🃏 Open table» (``web_app``) button."""
    for row in message.keyboard:
        for button in row:
            web_app = button.get("web_app")
            if isinstance(web_app, dict):
                return str(web_app["url"])
    return None


class AppPlayer:
    """One person's phone with the Mini App open at their seat."""

    def __init__(self, page: Any, name: str) -> None:
        self.page = page
        self.name = name

    @property
    def errors(self) -> list[str]:
        errors: list[str] = self.page.js_errors
        return errors

    async def version(self) -> int:
        value = await self.page.get_attribute("#app", "data-version")
        return -1 if value is None else int(value)

    async def wait_version(self, at_least: int, timeout: float = 10) -> None:
        """Until the page shows version ``at_least`` or a later one."""
        await self.page.wait_for_function(
            "n => Number(document.getElementById('app').dataset.version ?? -1) >= n",
            arg=at_least,
            timeout=timeout * 1000,
        )

    async def state(self) -> dict[str, Any]:
        """The state the page draws (what the bot sent this seat)."""
        state: dict[str, Any] = await self.page.evaluate("window.burkozelTable.state()")
        return state

    async def hand(self) -> list[str]:
        cards: list[str] = await self.page.eval_on_selector_all(
            "#hand [data-card]", "els => els.map(e => e.dataset.card)"
        )
        return cards

    async def table_cards(self) -> list[str]:
        """The face-up cards of the trick on the table (or of the last one taken)."""
        cards: list[str] = await self.page.eval_on_selector_all(
            "#plays [data-card]", "els => els.map(e => e.dataset.card)"
        )
        return cards

    async def tg(self) -> dict[str, Any]:
        """What the page asked of Telegram (tests/support/webapp_telegram.js)."""
        record: dict[str, Any] = await self.page.evaluate(
            "({...window.__tg, fire: undefined, clickMainButton: undefined, tapBack: undefined})"
        )
        return record

    async def select(self, cards: list[str]) -> None:
        """Tap cards until exactly ``cards`` are selected (lifted)."""
        selected = await self.page.eval_on_selector_all(
            "#hand .card.selected", "els => els.map(e => e.dataset.card)"
        )
        for code in [c for c in selected if c not in cards] + [
            c for c in cards if c not in selected
        ]:
            await self.page.click(f'#hand [data-card="{code}"]')
        lifted = await self.page.eval_on_selector_all(
            "#hand .card.selected", "els => els.map(e => e.dataset.card)"
        )
        assert sorted(lifted) == sorted(cards), (lifted, cards)

    async def act(self, action: dict[str, Any], *, main_button: bool = False) -> None:
        """Select the action's cards, then tap its button (or Telegram's MainButton)."""
        cards = action["cards"] or []
        if cards:
            await self.select(cards)
        button = self.page.locator(
            f'#actions button[data-action="{action["kind"]}"]'
            + (f'[data-cards="{" ".join(cards)}"]' if cards else "")
        )
        assert await button.count() == 1, f"no button for {action}"
        assert await button.is_enabled(), f"{action} is not offered"
        main = (await self.tg())["main"]
        if cards:  # Telegram's MainButton offers the (likeliest) play of the cards chosen
            assert main["visible"] and main["active"], main
        if main_button and cards and main["text"] == action["label"]:
            assert await self.page.evaluate("window.__tg.clickMainButton()")
        else:
            await button.click()

    async def play(self, rng: random.Random, *, main_button: bool = False) -> dict[str, Any]:
        """A legal action chosen at random, played by tapping; returns the state it was
        chosen in (after the page has moved past it)."""
        state = await self.state()
        assert state["actions"], f"{self.name} has nothing to do"
        action = rng.choice(state["actions"])
        await self.act(action, main_button=main_button)
        await self.wait_version(state["version"] + 1)
        state["played"] = action
        return state
