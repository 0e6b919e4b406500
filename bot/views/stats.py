"""What /stats, /top and /history show, and the series result the commit records.

Pure: storage rows in, HTML text out (every user value escaped).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Sequence

from bot.games import GAMES
from bot.games.base import Played
from bot.i18n import Html, Texts, html, html_join
from stats.ratings import SHOWN_AFTER
from stats.summary import series_end
from storage import Game, PlayerRecord, Rating, SeatResult, SeriesEnd, SeriesSummary

log = logging.getLogger(__name__)

HISTORY_LIMIT = 10
TOP_LIMIT = 20  # rows per game, so /top stays far below Telegram's 4096 characters


def series_end_of(game: Game, played: Played) -> SeriesEnd | None:
    """The finished series' per-seat results, recorded with the commit that finishes it.

    A failure here is logged and the series finishes unrecorded: stats must never stop
    a game from ending."""
    try:
        return _series_end(game, played)
    except Exception:
        log.exception("game %s: cannot summarise the finished series for stats", game.id)
        return None


def _series_end(game: Game, played: Played) -> SeriesEnd:
    record = played.record()
    points, penalties = played.deal_rows()
    return series_end(
        game.rules,
        game.seats,
        points,
        penalties,
        played.winners(),
        [deal["moves"] for deal in record["deals"]],
        record.get("format"),
    )


def decimal(t: Texts, value: float, places: int) -> str:
    """A number as the language writes it (a decimal comma in Russian)."""
    text = f"{value:.{places}f}"
    return text.replace(".", ",") if t.language == "ru" else text


def game_name(t: Texts, game: str) -> Html:
    return t(f"game.{game}") if game in GAMES else html(game)


NAME_LIMIT = 24  # characters of a name in lists, so ten series fit in one message


def short(name: str, limit: int = NAME_LIMIT) -> str:
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def player_name(t: Texts, player: str, name: str) -> Html:
    """A person by their (shortened) name; a computer player by its level (its rating is
    shared by every computer of that level)."""
    if player.startswith("ai:"):
        level = player[3:]
        known = level in ("easy", "normal", "hard")
        return t("top.computer", level=t(f"computer.{level}") if known else html(short(level)))
    return html(short(name))


def seat_label(t: Texts, seat: SeatResult) -> Html:
    return player_name(t, seat.player, seat.name)


# --- /stats ------------------------------------------------------------------


def stats_text(t: Texts, name: str, records: Sequence[PlayerRecord], *, everywhere: bool) -> str:
    key = "stats.title_all" if everywhere else "stats.title_chat"
    lines: list[str] = [t(key, name=html(name))]
    if not records:
        lines.append(t("stats.none"))
        return "\n".join(lines)
    for r in records:
        deals = max(1, r.deals)
        lines += [
            "",
            t(
                "stats.game",
                game=game_name(t, r.game),
                company=t("stats.with_computers" if r.with_computers else "stats.with_people"),
            ),
            t("stats.series", won=r.series_won, played=r.series_played),
            t(
                "stats.deals",
                deals=r.deals,
                points=decimal(t, r.points / deals, 1),
                penalties=decimal(t, r.penalties / deals, 2),
                best=r.best_deal,
            ),
        ]
        if r.game in GAMES:
            lines += GAMES[r.game].stats_lines(t, r)
        lines.append(t("stats.combinations", count=r.combinations))
    return "\n".join(lines)


# --- /top --------------------------------------------------------------------


def top_text(t: Texts, ratings: Sequence[Rating]) -> str:
    lines: list[str] = [t("top.title")]
    if not ratings:
        lines += [t("top.none"), "", t("top.note", n=SHOWN_AFTER)]
        return "\n".join(lines)
    for game in sorted({r.game for r in ratings}, key=lambda g: (g not in GAMES, g)):
        rows = [r for r in ratings if r.game == game]
        rated = [r for r in rows if r.series >= SHOWN_AFTER]
        lines += ["", f"<b>{game_name(t, game)}</b>"]
        for place, r in enumerate(rated[:TOP_LIMIT], start=1):
            lines.append(
                t(
                    "top.row",
                    place=place,
                    name=player_name(t, r.player, r.name),
                    rating=decimal(t, r.ordinal, 1),
                    series=r.series,
                )
            )
        waiting = sorted(
            (r for r in rows if r.series < SHOWN_AFTER), key=lambda r: (-r.series, r.player)
        )
        if waiting:
            # The names are escaped already (Html): joined as HTML, not escaped again.
            names = Html(
                ", ".join(
                    f"{player_name(t, r.player, r.name)} ({r.series}/{SHOWN_AFTER})"
                    for r in waiting[:TOP_LIMIT]
                )
                + (", …" if len(waiting) > TOP_LIMIT else "")
            )
            lines.append(t("top.waiting", names=names))
    lines += ["", t("top.note", n=SHOWN_AFTER)]
    return "\n".join(lines)


# --- /history ----------------------------------------------------------------


def when(timestamp: float) -> str:
    return dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%d.%m.%Y %H:%M")


def history_text(t: Texts, series: Sequence[SeriesSummary]) -> str:
    if not series:
        return t("history.none")
    lines: list[str] = [t("history.title", n=len(series))]
    for number, s in enumerate(series, start=1):
        players = html_join(", ", (seat_label(t, seat) for seat in s.seats))
        winners = html_join(", ", (seat_label(t, seat) for seat in s.seats if seat.won)) or "—"
        lines.append(
            t(
                "history.row",
                n=number,
                date=when(s.finished_at),
                game=game_name(t, s.game),
                players=players,
                winners=winners,
                deals=s.deals,
            )
        )
    return "\n".join(lines)


# --- /export -----------------------------------------------------------------


def export_filename(title: str, game_id: int, timestamp: float) -> str:
    """``<chat title>_<date>_g<game>.json``: letters and digits of the title only (any
    script), so the name is safe on every system."""
    slug = "-".join(re.findall(r"\w+", title, flags=re.UNICODE))[:40] or "chat"
    day = dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%Y-%m-%d")
    return f"{slug}_{day}_g{game_id}.json"
