"""The series picture: a small PNG whose labels the DejaVu fonts can draw in
both languages, sent with the series result, or left out loudly when it cannot be."""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image

from bot.delivery.attachments import UPLOAD_TIMEOUT, Attachments, document_payload
from bot.i18n import LANGUAGES, texts
from bot.views import picture
from bot.views.picture import PictureData, drawable, render, standings, with_series_picture
from storage import OutboxItem, OutboxOp, Seat, Storage
from tests.support.stats import engine_deals, play_series

NAMES = ("Алиса <b>", "Bob & Co 🍺", "🤖 Компьютер 1 (сложный)", "Ёжик ♠♥♦♣")


def sample(language: str, deals: int = 9) -> PictureData:
    t = texts(language)
    rows = tuple((2, 0, 4, 0) if d % 2 else (0, 2, 0, 4) for d in range(deals))
    totals = [sum(r[s] for r in rows) for s in range(4)]
    best = min(totals)
    return PictureData(
        title="Пики & Трефы <3 🃏",
        game=t("game.burkozel"),
        subtitle=t("picture.subtitle", deals=deals, date="30.11.2026 18:00"),
        axis=t("picture.axis"),
        standings_title=t("picture.standings"),
        names=NAMES,
        deals=rows,
        standings=standings(
            NAMES,
            totals,
            [0 if x == best else 1 for x in totals],
            [x == best for x in totals],
        ),
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_picture_is_a_small_png_in_both_languages(language: str) -> None:
    png = render(sample(language))
    assert len(png) < 200_000
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (picture.WIDTH, picture.HEIGHT)
    # Not a blank canvas: the lines of four players in four colours are on it.
    colours = {c for _, c in image.convert("RGB").getcolors(1 << 16) or []}
    for colour in picture.COLOURS[:4]:
        rgb = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
        assert any(sum(abs(a - b) for a, b in zip(c, rgb, strict=True)) < 30 for c in colours)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_label_renders_with_the_dejavu_fonts(language: str) -> None:
    t = texts(language)
    font = picture._font(picture.REGULAR, 15)
    bold = picture._font(picture.BOLD, 15)
    labels = [
        t("game.burkozel"),
        t("game.bura"),
        t("picture.axis"),
        t("picture.standings"),
        t("picture.subtitle", deals=7, date="30.11.2026 18:00"),
        "Ёжик Щука Юля",
        "♠♥♦♣ ★ …",
    ]
    for label in labels:
        assert drawable(font, label) == label
        assert drawable(bold, label) == label


def test_characters_the_font_lacks_are_left_out_not_drawn_as_boxes() -> None:
    font = picture._font(picture.REGULAR, 15)
    assert drawable(font, "Bob & Co 🍺") == "Bob & Co"
    assert drawable(font, "🍺🍺") == ""


def test_a_long_series_still_fits() -> None:
    png = render(sample("ru", deals=60))
    assert len(png) < 200_000


def test_without_the_fonts_render_refuses_loudly(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(picture, "FONT_DIR", tmp_path)
    picture._font.cache_clear()
    try:
        assert not picture.fonts_available()
        with pytest.raises(picture.FontsMissing, match="fonts-dejavu-core"):
            render(sample("en"))
    finally:
        picture._font.cache_clear()


class StubBot:
    """Records what would go to Telegram."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def _call(self, method: str, **params: Any) -> Any:
        self.calls.append((method, params))
        return SimpleNamespace(message_id=len(self.calls))

    async def send_photo(self, **params: Any) -> Any:
        return await self._call("sendPhoto", **params)

    async def send_message(self, **params: Any) -> Any:
        return await self._call("sendMessage", **params)

    async def send_document(self, **params: Any) -> Any:
        return await self._call("sendDocument", **params)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Storage]:
    storage = await Storage.open(tmp_path / "bot.sqlite3")
    yield storage
    await storage.close()


def item_of(op: OutboxOp) -> OutboxItem:
    return OutboxItem(1, op.chat_id, op.method, op.payload, op.game_id, op.role, 0, 0.0, 0.0)


async def test_the_result_goes_as_a_photo_unless_the_chat_turned_pictures_off(
    db: Storage, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seats = (Seat(0, 11, None, "Ann <3"), Seat(1, None, "hard", "🤖 Computer 1 (hard)"))
    game_id = await play_series(db, seats, engine_deals(2, 4))
    await db.upsert_chat(-100, "Пики & Трефы")
    op = with_series_picture(OutboxOp(-100, "send", {"text": "🏆 over"}, game_id))
    attachments = Attachments(db, "ru")
    bot = StubBot()
    await attachments.send(bot, item_of(op), dict(op.payload), None)  # type: ignore[arg-type]
    method, params = bot.calls[-1]
    assert method == "sendPhoto" and params["caption"] == "🏆 over"
    assert len(params["photo"].data) < 200_000

    await db.set_chat_pictures(-100, False)
    await attachments.send(bot, item_of(op), dict(op.payload), None)  # type: ignore[arg-type]
    assert bot.calls[-1] == (
        "sendMessage",
        {
            "chat_id": -100,
            "reply_markup": None,
            "text": "🏆 over",
            "request_timeout": UPLOAD_TIMEOUT,
        },
    )

    # No fonts: the text goes out, and the log says why (once).
    await db.set_chat_pictures(-100, True)
    monkeypatch.setattr(picture, "FONT_DIR", tmp_path)
    with caplog.at_level(logging.ERROR):
        await attachments.send(bot, item_of(op), dict(op.payload), None)  # type: ignore[arg-type]
    assert bot.calls[-1][0] == "sendMessage"
    assert "fonts-dejavu-core" in caplog.text


async def test_a_document_row_sends_its_text_as_a_file(db: Storage) -> None:
    payload = document_payload("x_2026-11-30_g1.json", '{"a": "Ё"}', "record")
    bot = StubBot()
    op = OutboxOp(-100, "send", payload, 1)
    await Attachments(db, "en").send(bot, item_of(op), dict(payload), None)  # type: ignore[arg-type]
    method, params = bot.calls[-1]
    assert method == "sendDocument"
    assert params["document"].filename == "x_2026-11-30_g1.json"
    assert params["document"].data == '{"a": "Ё"}'.encode()


async def test_a_refused_photo_still_delivers_the_result_as_text(db: Storage) -> None:
    from aiogram.exceptions import TelegramBadRequest
    from aiogram.methods import SendPhoto

    class RefusingBot(StubBot):
        async def send_photo(self, **params: Any) -> Any:
            raise TelegramBadRequest(SendPhoto(chat_id=1, photo="x"), "PHOTO_INVALID_DIMENSIONS")

    seats = (Seat(0, 11, None, "Ann"), Seat(1, 12, None, "Bob"))
    game_id = await play_series(db, seats, engine_deals(2, 6))
    op = with_series_picture(OutboxOp(-100, "send", {"text": "🏆 over"}, game_id))
    bot = RefusingBot()
    await Attachments(db, "en").send(bot, item_of(op), dict(op.payload), None)  # type: ignore[arg-type]
    assert bot.calls == [
        (
            "sendMessage",
            {
                "chat_id": -100,
                "reply_markup": None,
                "text": "🏆 over",
                "request_timeout": UPLOAD_TIMEOUT,
            },
        )
    ]
