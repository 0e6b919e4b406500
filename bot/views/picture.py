"""The series picture: the penalty tally deal by deal, one line per player, and the final
standings, drawn with Pillow and the DejaVu fonts (Cyrillic and ♠♥♦♣ render).

One picture per finished series, carried by the series result message itself (a photo
with the result as its caption), so it costs the group no extra message. The outbox row
only marks the message (:func:`with_series_picture`); the picture is drawn when the row
is delivered, from the stored tallies, so it survives restarts like any other message.
"""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from storage import OutboxOp

log = logging.getLogger(__name__)

FONT_DIR: Final = Path("/usr/share/fonts/truetype/dejavu")
REGULAR: Final = "DejaVuSans.ttf"
BOLD: Final = "DejaVuSans-Bold.ttf"
PICTURE_KEY: Final = "picture"
WIDTH, HEIGHT = 800, 460
COLOURS: Final = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
LIMIT = 12  # R14: the series ends when someone reaches 12


class FontsMissing(RuntimeError):
    """The DejaVu fonts are not installed (``apt-get install fonts-dejavu-core``)."""


def with_series_picture(op: OutboxOp) -> OutboxOp:
    """Mark a series result message to go out as a photo of the series (if the chat has
    pictures on and the fonts are there; otherwise it goes out as text, as before)."""
    return OutboxOp(
        op.chat_id, op.method, {**op.payload, PICTURE_KEY: "series"}, op.game_id, op.role
    )


@dataclass(frozen=True)
class Standing:
    seat: int
    name: str
    total: int
    place: int  # 0 = winner
    won: bool


@dataclass(frozen=True)
class PictureData:
    title: str  # the chat's title
    game: str  # "Burkozel" / "Бура", already translated
    subtitle: str  # e.g. "7 deals · 30.11.2026"
    axis: str  # "penalties after each deal"
    standings_title: str
    names: tuple[str, ...]  # per seat
    deals: tuple[tuple[int, ...], ...]  # per deal, each seat's penalty for it
    standings: tuple[Standing, ...]  # best first
    limit: int = LIMIT


@cache
def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    path = FONT_DIR / name
    if not path.exists():
        raise FontsMissing(
            f"font {path} not found: install fonts-dejavu-core (series pictures are off)"
        )
    return ImageFont.truetype(str(path), size)


def fonts_available() -> bool:
    return (FONT_DIR / REGULAR).exists() and (FONT_DIR / BOLD).exists()


@cache
def _missing_glyph(font: ImageFont.FreeTypeFont) -> bytes:
    return bytes(font.getmask("\U0010fffd"))


@cache
def _has_glyph(font: ImageFont.FreeTypeFont, char: str) -> bool:
    if char.isspace():
        return True
    mask = font.getmask(char)
    return mask.size[0] > 0 and bytes(mask) != _missing_glyph(font)


def drawable(font: ImageFont.FreeTypeFont, text: str) -> str:
    """``text`` without the characters the font cannot draw (most emoji), so a name shows
    as letters rather than boxes."""
    kept = "".join(c for c in text if _has_glyph(font, c))
    return " ".join(kept.split())


def _fit(font: ImageFont.FreeTypeFont, text: str, width: float) -> str:
    text = drawable(font, text)
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def render(data: PictureData) -> bytes:
    """The picture as PNG bytes. Raises :class:`FontsMissing` without the fonts."""
    regular, small = _font(REGULAR, 15), _font(REGULAR, 12)
    bold, title_font = _font(BOLD, 15), _font(BOLD, 20)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text(
        (20, 14),
        _fit(title_font, f"{data.title} — {data.game}", WIDTH - 120),
        font=title_font,
        fill="#222",
    )
    draw.text((WIDTH - 20, 16), "♠♥♦♣", font=title_font, fill="#b22", anchor="ra")
    draw.text((20, 44), _fit(regular, data.subtitle, WIDTH - 40), font=regular, fill="#555")

    # The chart: cumulative penalties after each deal.
    left, top, right, bottom = 50, 80, 500, HEIGHT - 50
    players = len(data.names)
    totals = [[0] * players]
    for deal in data.deals:
        totals.append([totals[-1][s] + deal[s] for s in range(players)])
    top_value = max(data.limit, *(max(row) for row in totals))
    n = max(1, len(data.deals))

    def at(deal: int, value: int) -> tuple[float, float]:
        return (
            left + (right - left) * deal / n,
            bottom - (bottom - top) * value / top_value,
        )

    step = 2 if top_value <= 16 else 4 if top_value <= 40 else 10
    for value in range(0, top_value + 1, step):
        y = at(0, value)[1]
        draw.line((left, y, right, y), fill="#e4e1d8")
        draw.text((left - 8, y), str(value), font=small, fill="#666", anchor="rm")
    tick = max(1, n // 12 + (1 if n % 12 else 0)) if n > 12 else 1
    for number in range(0, n + 1, tick):
        x = at(number, 0)[0]
        draw.text((x, bottom + 6), str(number), font=small, fill="#666", anchor="ma")
    limit_y = at(0, data.limit)[1]
    for x in range(left, right, 12):
        draw.line((x, limit_y, min(x + 6, right), limit_y), fill="#c33", width=2)
    draw.line((left, top, left, bottom), fill="#999")
    draw.line((left, bottom, right, bottom), fill="#999")
    draw.text((left, bottom + 24), _fit(small, data.axis, right - left), font=small, fill="#666")
    for seat in range(players):
        colour = COLOURS[seat % len(COLOURS)]
        # Lines that run together stay visible side by side: each seat a little apart.
        shift = (seat - (players - 1) / 2) * 3
        points = [(x, y + shift) for x, y in (at(d, totals[d][seat]) for d in range(len(totals)))]
        if len(points) > 1:
            draw.line(points, fill=colour, width=3, joint="curve")
        for x, y in points:
            draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=colour)

    # The standings.
    x0 = 530
    draw.text(
        (x0, top - 4), _fit(bold, data.standings_title, WIDTH - x0 - 20), font=bold, fill="#222"
    )
    y = top + 28
    for row in data.standings:
        colour = COLOURS[row.seat % len(COLOURS)]
        draw.rectangle((x0, y + 3, x0 + 12, y + 15), fill=colour)
        font = bold if row.won else regular
        label = f"{row.place + 1}. " + ("★ " if row.won else "")
        draw.text((x0 + 20, y), label, font=font, fill="#222")
        name_x = x0 + 20 + font.getlength(label)
        draw.text((WIDTH - 20, y), str(row.total), font=font, fill="#222", anchor="ra")
        name = _fit(font, row.name, WIDTH - 60 - name_x)
        draw.text((name_x, y), name, font=font, fill="#222")
        y += 30
    # A fixed palette (every ink blended into the background in steps, for antialiased
    # edges) keeps the PNG small and is ~5x faster than computing one per picture.
    out = io.BytesIO()
    image.quantize(palette=_palette(), dither=Image.Dither.NONE).save(
        out, format="PNG", compress_level=3
    )
    return out.getvalue()


BACKGROUND: Final = "#fbfaf6"
INKS: Final = ("#222222", "#555555", "#666666", "#999999", "#e4e1d8", "#cc3333", "#bb2222")


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@cache
def _palette() -> Image.Image:
    back = _rgb(BACKGROUND)
    entries: list[int] = list(back)
    for ink in (*COLOURS, *INKS):
        rgb = _rgb(ink)
        for step in range(1, 17):  # 16 shades from the background to the ink
            entries += (round(b + (c - b) * step / 16) for b, c in zip(back, rgb, strict=True))
    palette = Image.new("P", (1, 1))
    palette.putpalette(entries[: 256 * 3])
    return palette


def timed_render(data: PictureData) -> tuple[bytes, float]:
    started = time.perf_counter()
    png = render(data)
    return png, time.perf_counter() - started


def standings(
    names: Sequence[str], totals: Sequence[int], places: Sequence[int], won: Sequence[bool]
) -> tuple[Standing, ...]:
    """Per-seat values (in seat order) as standings, best first."""
    rows = [
        Standing(seat, n, t, p, w)
        for seat, (n, t, p, w) in enumerate(zip(names, totals, places, won, strict=True))
    ]
    return tuple(sorted(rows, key=lambda r: (r.place, r.seat)))
