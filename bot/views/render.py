"""Texts and keyboards every game shares: buttons, cards and names, the lobby, closing
texts, the series result. Each game draws its own table and hands (``bot.games``).

Rendering is pure: it turns a game's state into text and buttons. Group renders
use only public information; hand renders use the one seat's own view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.i18n import LANGUAGES, Html, Texts, html, html_join, texts
from bot.json import Json
from bot.views.callbacks import CancelCb, LangCb, LobbyCb, SettingsCb
from engine import Card, Suit
from storage import Game, Seat

TRUMP_MARK = "★"
# An inline keyboard as the JSON Telegram takes: plain dicts, built for every hand on
# every move, are several times cheaper than aiogram's pydantic models (CPU per tap).
Keyboard = Json


class Tally(Protocol):
    """A series' tally as the closing table shows it (``bot.games.base.DealSeries``)."""

    @property
    def results(self) -> Sequence[object]: ...

    @property
    def totals(self) -> tuple[int, ...]: ...


def button(text: str, data: str) -> dict[str, str]:
    return {"text": text, "callback_data": data}


def keyboard(rows: list[list[dict[str, str]]]) -> Keyboard:
    return {"inline_keyboard": rows}


def card_text(card: Card, trump: Suit | None = None) -> str:
    return card.pretty() + (TRUMP_MARK if card.suit is trump else "")


def cards_text(cards: Sequence[Card], trump: Suit | None = None) -> str:
    return " ".join(card_text(c, trump) for c in cards)


class TrumpView(Protocol):
    """What a seat's view says of the trump (both games' views have it)."""

    @property
    def trump(self) -> Suit: ...
    @property
    def trump_card(self) -> Card: ...
    @property
    def trump_card_in_stock(self) -> bool: ...
    @property
    def trump_card_drawn_by(self) -> int | None: ...
    @property
    def stock_size(self) -> int: ...


def trump_line(t: Texts, view: TrumpView) -> str:
    """The trump card and where it is (Burkozel and Bura views say it alike)."""
    if view.trump_card_in_stock:
        where = t("table.trump_under_stock")
    else:
        assert view.trump_card_drawn_by is not None
        where = t("table.trump_drawn")
    return t(
        "table.trump",
        card=card_text(view.trump_card, view.trump),
        suit=view.trump.symbol,
        where=where,
        stock=view.stock_size,
    )


def seat_name(seat: Seat) -> Html:
    return html(seat.name)


def deep_link(bot_username: str, payload: str) -> str:
    return f"https://t.me/{bot_username}?start={payload}"


def app_link(bot_username: str, app: str, start_param: str) -> str:
    """The direct link that opens the bot's Mini App in the chat it is tapped in: ``app``
    "main" for the Main Mini App, else a named app's short name (WEBAPP_LINK)."""
    path = bot_username if app == "main" else f"{bot_username}/{app}"
    return f"https://t.me/{path}?startapp={start_param}"


# --- lobby -------------------------------------------------------------------


def lobby_keyboard(t: Texts, game: Game, bot_username: str) -> Keyboard:
    def action(text: str, name: str) -> dict[str, str]:
        return button(text, LobbyCb(game=game.id, action=name).pack())

    rows = [
        [action(t("lobby.join"), "join"), action(t("lobby.leave"), "leave")],
        [action(t(f"lobby.add_{level}"), f"bot-{level}") for level in ("easy", "normal", "hard")],
        [
            action(t("lobby.start"), "start"),
            button(t("lobby.rules_button"), SettingsCb(game=game.id, action="open").pack()),
        ],
        [{"text": t("lobby.open_dm"), "url": deep_link(bot_username, "hi")}],
    ]
    return keyboard(rows)


def lobby_closed_text(t: Texts, game: Game, reason: str) -> str:
    names = html_join(", ", (seat_name(s) for s in game.seats)) or "—"
    return t(f"lobby.closed_{reason}", players=names)


# --- the table ---------------------------------------------------------------


def time_limit(t: Texts, seconds: int) -> Html:
    """A coarse upper bound ("up to 10 min"): still true however long the message stays
    unedited, unlike a countdown frozen at render time."""
    if seconds >= 90:
        return t("time.minutes", n=-(-seconds // 60))
    return t("time.seconds", n=max(1, seconds))


def final_table_text(t: Texts, game: Game, series: Tally | None, status: str) -> str:
    """The table once a game is over: any game's series, or None (closed in the lobby)."""
    lines: list[str] = [t(f"table.over_{status}")]
    if series is not None and series.results:
        totals = series.totals
        for seat in game.seats:
            lines.append(f"{seat_name(seat)}: {totals[seat.seat]}")
    return "\n".join(lines)


# --- a player's hand (private) -----------------------------------------------


def hand_over_text(t: Texts, chat_title: str, status: str) -> str:
    return t(f"hand.over_{status}", chat=chat_title)


def language_keyboard(chat_id: int) -> Keyboard:
    """Each language named in itself, so anyone can find theirs."""
    buttons = [
        button(texts(code)("language.name"), LangCb(code=code, chat=chat_id).pack())
        for code in LANGUAGES
    ]
    return keyboard([buttons])


def cancel_keyboard(t: Texts, game: Game) -> Keyboard:
    def choice(key: str, confirm: bool) -> dict[str, str]:
        return button(t(key), CancelCb(game=game.id, confirm=confirm).pack())

    return keyboard([[choice("cancel.yes", True), choice("cancel.no", False)]])


# --- deal and series results ---------------------------------------------------


def again_keyboard(t: Texts, game: Game) -> Keyboard:
    data = LobbyCb(game=game.id, action="again").pack()
    return keyboard([[button(t("series.again"), data)]])


@dataclass(frozen=True, slots=True)
class Combination:
    """A combination in one seat's hand: its ``kind`` (``bura``, ``moscow``,
    ``small_moscow``, ``molodka``) and its ``cards``."""

    seat: int
    kind: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Shown:
    """A бура or Москва shown (C1/C2, D6/D8): ``by`` showed it, ``winner``'s combination
    won, and ``combinations`` (``by``'s first) are every one that counted at that moment:
    one shown, every other in any hand counts as shown too (Part C "Precisely")."""

    by: int
    winner: int
    combinations: tuple[Combination, ...]
    trump: Suit


def combinations_in(
    hands: Sequence[Sequence[Card]], first: int, kind_of: Callable[[Sequence[Card]], str | None]
) -> tuple[Combination, ...]:
    """The combination (``kind_of``) of each hand that holds one, clockwise from seat
    ``first``, its cards sorted."""
    found = []
    for step in range(len(hands)):
        seat = (first + step) % len(hands)
        kind = kind_of(hands[seat])
        if kind is not None:
            found.append(Combination(seat, kind, tuple(sorted(hands[seat]))))
    return tuple(found)


def shown_lines(t: Texts, seats: Sequence[Seat], shown: Shown) -> list[Html]:
    """Who showed what, with the cards, and whose combination wins the deal."""

    def line(key: str, combination: Combination) -> Html:
        return t(
            key,
            name=seat_name(seats[combination.seat]),
            combo=t(f"combo.{combination.kind}"),
            cards=cards_text(combination.cards, shown.trump),
        )

    if len(shown.combinations) == 1:
        return [line("show.wins", shown.combinations[0])]
    lines = [line("show.shown", c) for c in shown.combinations]
    return [*lines, t("show.higher", name=seat_name(seats[shown.winner]))]


def dealt_lines(
    t: Texts, seats: Sequence[Seat], combinations: Sequence[Combination], trump: Suit
) -> list[Html]:
    """D9: the combinations that void a deal straight from the deal, cards and all (the
    deal is not played, so its hands are no secret)."""
    return [
        t(
            "show.dealt",
            name=seat_name(seats[c.seat]),
            combo=t(f"combo.{c.kind}"),
            cards=cards_text(c.cards, trump),
        )
        for c in combinations
    ]


def series_end_text(
    t: Texts,
    game: Game,
    totals: Sequence[int],
    winners: Sequence[int],
    extra: Sequence[str] = (),
) -> str:
    """``extra``: a game's own lines before the seats (B5: the two pairs)."""
    names = html_join(", ", (seat_name(game.seats[s]) for s in winners))
    key = "series.winner" if len(winners) == 1 else "series.winners"
    lines = [t("series.over"), t(key, names=names), ""]
    if extra:
        lines += [*extra, ""]
    for seat in sorted(game.seats, key=lambda s: totals[s.seat]):
        lines.append(f"{seat_name(seat)}: {totals[seat.seat]}")
    return "\n".join(lines)
