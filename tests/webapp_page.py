"""The Mini App in a real browser: Playwright driving Debian's Chromium (issue 29).

Telegram opens a Mini App with its signed launch data in the URL hash
(``#tgWebAppData=…&tgWebAppThemeParams=…``) and the page loads Telegram's
``telegram-web-app.js``, which reads them. Here the tests sign the launch data with the
fake bot token exactly as Telegram does, and serve ``tests/webapp_telegram.js`` for
Telegram's script (which cannot be fetched in tests); nothing else leaves the machine.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
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
) -> str:
    """``Telegram.WebApp.initData`` for ``user`` as Telegram signs it: the fields sorted,
    joined ``key=value`` by newlines, HMAC-SHA256 under the key HMAC-SHA256("WebAppData",
    bot token); ``forge`` signs with a wrong token."""
    fields = {
        "query_id": query_id,
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
    }
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


def launch_url(base: str, game: int, init_data: str, theme: str = "light") -> str:
    """The URL Telegram opens for the hand message's «🃏 Open table» button."""
    params = {
        "tgWebAppData": init_data,
        "tgWebAppVersion": "7.10",
        "tgWebAppPlatform": "android",
        "tgWebAppThemeParams": json.dumps(THEMES[theme], separators=(",", ":")),
    }
    return f"{base}/webapp/?game={game}#" + urlencode(params, quote_via=quote)


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
    await page.goto(url)
    return page
