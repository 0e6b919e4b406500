"""Outbox rows that carry a file: the series picture and /export's game record.

The delivery worker hands such rows here (:func:`is_attachment`). A series result marked
with a picture goes out as a photo with the result as its caption; if the chat turned
pictures off, the fonts are missing or the caption is too long, it goes out as the plain
text message it would have been. A document row carries its file's text itself.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup, ReplyParameters

from bot.i18n import texts
from bot.views import picture
from bot.views.stats import game_name, when
from engine.registry import game_of_rules
from storage import Backend, OutboxItem

log = logging.getLogger(__name__)

DOCUMENT_KEY: Final = "document"
CAPTION_LIMIT: Final = 1024  # Telegram's limit for a photo caption
UPLOAD_TIMEOUT: Final = 20  # seconds: a picture of some 100 KB, or a game record


def series_limit(rules: dict[str, Any]) -> int:
    """The total that ends a series: 12 (R14, D10 penalty_12), or a Bura robber target."""
    series = str(rules.get("series", ""))
    return {"robber_11": 11, "robber_21": 21}.get(series, picture.LIMIT)


def is_attachment(payload: dict[str, Any]) -> bool:
    return picture.PICTURE_KEY in payload or DOCUMENT_KEY in payload


def document_payload(name: str, text: str, caption: str) -> dict[str, Any]:
    return {DOCUMENT_KEY: {"name": name, "text": text}, "caption": caption}


class Attachments:
    def __init__(self, storage: Backend, default_language: str) -> None:
        self.storage = storage
        self.default_language = default_language
        self._warned = False

    async def send(
        self,
        bot: Bot,
        item: OutboxItem,
        payload: dict[str, Any],
        markup: InlineKeyboardMarkup | None,
    ) -> int:
        """Send the row; returns the new message's id."""
        # A hung upload is given up after this long, not the session's minute: the group's
        # queue waits behind it (bot/delivery/lean_api.py CALL_TIMEOUT says why).
        common: dict[str, Any] = {
            "chat_id": item.chat_id,
            "reply_markup": markup,
            "request_timeout": UPLOAD_TIMEOUT,
        }
        if payload.get("message_thread_id") is not None:
            common["message_thread_id"] = payload["message_thread_id"]
        if payload.get("reply_to_message_id") is not None:
            common["reply_parameters"] = ReplyParameters(
                message_id=payload["reply_to_message_id"], allow_sending_without_reply=True
            )
        document = payload.get(DOCUMENT_KEY)
        if isinstance(document, dict):
            file = BufferedInputFile(str(document["text"]).encode(), str(document["name"]))
            message = await bot.send_document(
                document=file, caption=payload.get("caption"), **common
            )
            return message.message_id
        text = str(payload.get("text", ""))
        png = None
        if item.game_id is not None and len(text) <= CAPTION_LIMIT:
            png = await self.series_png(item.game_id)
        if png is not None:
            try:
                message = await bot.send_photo(
                    photo=BufferedInputFile(png, f"series-{item.game_id}.png"),
                    caption=text,
                    **common,
                )
                return message.message_id
            except TelegramBadRequest as exc:
                # The picture must never cost the players their result: send the text.
                log.warning(
                    "series picture of game %s refused (%s); sending text",
                    item.game_id,
                    exc.message,
                )
        message = await bot.send_message(text=text, **common)
        return message.message_id

    async def series_png(self, game_id: int) -> bytes | None:
        """The picture of a finished series, or None when it should go without one."""
        game = await self.storage.get_game(game_id)
        if game is None or not await self.storage.chat_pictures(game.chat_id):
            return None
        if not picture.fonts_available():
            if not self._warned:
                log.error(
                    "series pictures are off: DejaVu fonts not found in %s"
                    " (apt-get install fonts-dejavu-core)",
                    picture.FONT_DIR,
                )
                self._warned = True
            return None
        result = await self.storage.series_result(game_id)
        tallies = await self.storage.tallies(game_id)
        if result is None or not tallies:
            return None
        chat = await self.storage.get_chat(game.chat_id)
        t = texts((chat.language if chat else None) or self.default_language)
        seats = sorted(result.seats, key=lambda s: s.seat)
        names = tuple(s.name for s in seats)  # the picture is not HTML: names as they are
        data = picture.PictureData(
            title=(chat.title if chat else "") or "",
            game=game_name(t, game_of_rules(game.rules)),
            subtitle=t("picture.subtitle", deals=result.deals, date=when(result.finished_at)),
            axis=t("picture.axis"),
            standings_title=t("picture.standings"),
            names=names,
            deals=tuple(tally.penalties for tally in tallies),
            limit=series_limit(game.rules),
            standings=picture.standings(
                names,
                [s.penalties for s in seats],
                [s.place for s in seats],
                [s.won for s in seats],
            ),
        )
        try:
            png, seconds = await asyncio.to_thread(picture.timed_render, data)
        except Exception:
            log.exception("could not draw the picture of game %s; sending text", game_id)
            return None
        log.info(
            "series picture of game %s: %d bytes in %.0f ms", game_id, len(png), seconds * 1000
        )
        return png
