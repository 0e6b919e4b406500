"""Texts and keyboards for the group table, the lobby and each player's hand.

Rendering is pure: it turns a game's state into text and buttons. Group renders
use only public information (``Deal.view`` of nobody's hand); hand renders use the
one seat's own view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot import burkozel_house as house
from bot.callbacks import CancelCb, LangCb, LobbyCb, SettingsCb, card_data, play_data
from bot.i18n import LANGUAGES, Html, Texts, html, html_join, texts
from engine import Card, Deal, DealResult, Move, Play, PlayerView, RuleSet, Series, Suit
from engine.deal import TrickResult, covers
from storage import Game, Seat

TRUMP_MARK = "★"
# An inline keyboard as the JSON Telegram takes: plain dicts, built for every hand on
# every move, are several times cheaper than aiogram's pydantic models (issue 9: CPU).
Keyboard = dict[str, Any]


def button(text: str, data: str) -> dict[str, str]:
    return {"text": text, "callback_data": data}


def keyboard(rows: list[list[dict[str, str]]]) -> Keyboard:
    return {"inline_keyboard": rows}


# A deal's number, its last trick and its trump (★ marks that deal's trumps, not this one's).
PreviousTrick = tuple[int, TrickResult, Suit]
MAX_PLAYERS = 4


def card_text(card: Card, trump: Suit | None = None) -> str:
    return card.pretty() + (TRUMP_MARK if card.suit is trump else "")


def cards_text(cards: Sequence[Card], trump: Suit | None = None) -> str:
    return " ".join(card_text(c, trump) for c in cards)


def seat_name(seat: Seat) -> Html:
    return html(seat.name)


def deep_link(bot_username: str, payload: str) -> str:
    return f"https://t.me/{bot_username}?start={payload}"


# --- lobby -------------------------------------------------------------------


def lobby_text(t: Texts, game: Game, rules_line: str | None = None) -> str:
    lines = [t("lobby.title"), *([rules_line] if rules_line else []), ""]
    for seat in game.seats:
        lines.append(f"{seat.seat + 1}. {seat_name(seat)}")
    if not game.seats:
        lines.append(t("lobby.empty"))
    lines += ["", t("lobby.hint", min=2, max=MAX_PLAYERS)]
    return "\n".join(lines)


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


def play_text(t: Texts, play: Play, seats: Sequence[Seat], trump: Suit, claimant: bool) -> Html:
    if play.declared_beat is None:
        kind = t("table.led")
    elif play.declared_beat:
        kind = t("table.beat")
    else:
        kind = t("table.discarded")
    return t(
        "table.play",
        name=seat_name(seats[play.seat]),
        kind=kind,
        # A closed discard (B1) lies face down for everyone but its owner.
        cards=" ".join(
            filter(None, (cards_text(play.cards, trump), " ".join("🂠" * play.face_down)))
        ),
        mark=" 👑" if claimant else "",
    )


def _table_lines(
    t: Texts, view: PlayerView, seats: Sequence[Seat], previous: PreviousTrick | None = None
) -> list[str]:
    """The trick in progress; else the whole last trick, until the next lead (R8: every
    card on the table is seen by all, the one that completes a trick included).
    ``previous``: the last trick of the deal before, while this one has none yet."""
    if view.table:
        lines: list[str] = [t("table.on_table")]
        for play in view.table:
            claims = play.seat == view.claimant
            lines.append("  " + play_text(t, play, seats, view.trump, claims))
        return lines
    trump = view.trump
    if view.last_trick is not None:
        trick = view.last_trick
        header = t("table.last_trick", name=seat_name(seats[trick.winner]), points=trick.points)
    elif previous is not None:
        number, trick, trump = previous
        winner = seat_name(seats[trick.winner])
        header = t("table.previous_trick", deal=number, name=winner, points=trick.points)
    else:
        return [t("table.empty")]
    lines = [header]
    for play in trick.plays:
        lines.append("  " + play_text(t, play, seats, trump, play.seat == trick.winner))
    return lines


def time_limit(t: Texts, seconds: int) -> Html:
    """A coarse upper bound ("up to 10 min"): still true however long the message stays
    unedited, unlike a countdown frozen at render time."""
    if seconds >= 90:
        return t("time.minutes", n=-(-seconds // 60))
    return t("time.seconds", n=max(1, seconds))


def previous_trick(series: Series) -> PreviousTrick | None:
    """The last trick of the deal before, while the current deal has had none."""
    deal = series.deals[-1]
    if deal.last_trick is None and len(series.deals) > 1:
        before = series.deals[-2]
        last = before.last_trick
        return None if last is None else (len(series.deals) - 1, last, before.trump)
    return None


def trump_line(t: Texts, view: PlayerView) -> str:
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


def table_text(
    t: Texts,
    game: Game,
    series: Series,
    *,
    turn_seconds: int | None,
) -> str:
    deal = series.deals[-1]
    view = deal.public_view()  # the group sees no hand and no closed discard (B1)
    totals = series.totals
    lines = [t("table.title", deal=len(series.deals)), trump_line(t, view)]
    doubled = house.stakes_line(t, deal)  # B4
    lines += [doubled, ""] if doubled else [""]
    seat_key = "table.seat_credits" if house.credits(series.rules) else "table.seat"
    for seat in game.seats:
        marker = "▶️" if view.turn == seat.seat else "▫️"
        away = " 💤" if seat.away else ""
        lines.append(
            t(
                seat_key,
                marker=marker,
                name=Html(seat_name(seat) + away + house.seat_mark(series, seat.seat)),
                cards=view.hand_sizes[seat.seat],
                points=view.points[seat.seat] if view.points is not None else "?",
                penalty=totals[seat.seat],
            )
        )
    if house.pairs(series.rules):  # B5: the pooled totals of the two pairs
        lines += house.team_lines(t, game, totals)
    lines.append("")
    lines += _table_lines(t, view, game.seats, previous_trick(series))
    if view.turn is not None:
        seat = game.seats[view.turn]
        lines.append("")
        if turn_seconds is not None and seat.bot_level is None:
            limit = time_limit(t, turn_seconds)
            lines.append(t("table.turn_timed", name=seat_name(seat), limit=limit))
        else:
            lines.append(t("table.turn", name=seat_name(seat)))
    return "\n".join(lines)


def final_table_text(t: Texts, game: Game, series: Series | None, status: str) -> str:
    lines: list[str] = [t(f"table.over_{status}")]
    if series is not None and series.results:
        totals = series.totals
        for seat in game.seats:
            lines.append(f"{seat_name(seat)}: {totals[seat.seat]}")
    return "\n".join(lines)


# --- a player's hand (private) -----------------------------------------------


def hand_text(
    t: Texts,
    game: Game,
    chat_title: str,
    deal: Deal,
    seat: int,
    *,
    deal_number: int,
    turn_seconds: int | None,
    previous: PreviousTrick | None = None,
) -> str:
    view = deal.view(seat)
    lines = [
        t("hand.title", chat=chat_title, deal=deal_number),
        trump_line(t, view),
        "",
    ]
    partner = house.partner_line(t, game, seat) if house.pairs(deal.rules) else None
    if partner:  # B5
        lines[2:2] = [partner]
    lines += _table_lines(t, view, game.seats, previous)
    if view.claimant is not None and view.table:
        lines.append(t("hand.claimant", name=seat_name(game.seats[view.claimant])))
    lines.append("")
    if view.turn == seat:
        lead = view.table[0].cards if view.table else None
        if lead is None:
            lines.append(t("hand.your_lead", max=min(3, min(view.hand_sizes))))
        else:
            lines.append(t("hand.your_answer", count=len(lead)))
        if turn_seconds is not None:
            lines.append(t("hand.deadline", limit=time_limit(t, turn_seconds)))
    elif view.turn is not None:
        lines.append(t("hand.waiting", name=seat_name(game.seats[view.turn])))
    lines.append(t("hand.your_cards", cards=cards_text(view.hand, view.trump) or "—"))
    return "\n".join(lines)


def hand_keyboard(
    t: Texts,
    game: Game,
    deal: Deal,
    seat: int,
    selection: Sequence[Card],
) -> Keyboard | None:
    view = deal.view(seat)
    if not view.hand:
        return None
    version = game.version
    card_row = [
        button(
            ("✅ " if card in selection else "") + card_text(card, view.trump),
            card_data(game.id, version, card.code()),
        )
        for card in view.hand
    ]
    rows = [card_row]
    if view.turn == seat and selection:
        rows += [[b] for b in action_buttons(t, game, deal, seat, selection)]
    for move in house.combination_moves(deal, seat):  # C1-C4, only while legal
        if move.show is not None:
            text = t(f"house.show_{move.show}")
            rows.append([button(text, play_data(game.id, version, "s", move.show))])
        else:
            codes = ".".join(c.code() for c in move.cards)
            text = t("house.stop", cards=cards_text(move.cards, view.trump))
            rows.append([button(text, play_data(game.id, version, "o", codes))])
    return keyboard(rows)


def one_tap_move(deal: Deal, seat: int, card: Card) -> Move | None:
    """The move a tap on ``card`` makes at once: when the card alone is a legal move and
    the only one it can be part of (a lead with no other card of its suit, a discard that
    cannot beat). Otherwise the tap selects it, and the player confirms with a button, so
    no choice is ever made for them."""
    if deal.turn != seat:
        return None
    moves = [m for m in deal.legal_moves() if card in m.cards]
    if len(moves) == 1 and len(moves[0].cards) == 1:
        return moves[0]
    return None


def action_buttons(
    t: Texts, game: Game, deal: Deal, seat: int, selection: Sequence[Card]
) -> list[dict[str, str]]:
    """Only the actions legal for this selection (R6, R7)."""
    chosen = tuple(sorted(selection))
    codes = ".".join(c.code() for c in chosen)
    shown = cards_text(chosen, deal.trump)
    buttons = []

    def act(kind: str, key: str) -> dict[str, str]:
        return button(t(key, cards=shown), play_data(game.id, game.version, kind, codes))

    if not deal.table:
        try:
            deal.check(Move(seat, chosen))
            buttons.append(act("l", "hand.act_lead"))
        except ValueError:
            pass
    elif deal.lead_size() == len(chosen):
        claim = next(p.cards for p in deal.table if p.seat == deal.claimant)
        if covers(chosen, claim, deal.trump):
            buttons.append(act("b", "hand.act_beat"))
        buttons.append(act("d", "hand.act_discard"))
    return buttons


def hand_over_text(t: Texts, chat_title: str, status: str) -> str:
    return t(f"hand.over_{status}", chat=chat_title)


def language_keyboard() -> Keyboard:
    """Each language named in itself, so anyone can find theirs."""
    buttons = [button(texts(code)("language.name"), LangCb(code=code).pack()) for code in LANGUAGES]
    return keyboard([buttons])


def cancel_keyboard(t: Texts, game: Game) -> Keyboard:
    def choice(key: str, confirm: bool) -> dict[str, str]:
        return button(t(key), CancelCb(game=game.id, confirm=confirm).pack())

    return keyboard([[choice("cancel.yes", True), choice("cancel.no", False)]])


# --- deal and series results ---------------------------------------------------


def deal_end_text(
    t: Texts,
    game: Game,
    number: int,
    result: DealResult,
    totals: Sequence[int],
    series: Series | None = None,
) -> str:
    lines = [t("deal.over", deal=number)]
    rules = series.rules if series is not None else None
    row_key = "deal.row_credits" if rules is not None and house.credits(rules) else "deal.row"
    for seat in game.seats:
        lines.append(
            t(
                row_key,
                name=seat_name(seat),
                points=result.points[seat.seat],
                penalty=result.penalties[seat.seat],
                total=totals[seat.seat],
            )
        )
    if series is not None and house.pairs(series.rules):  # B5
        lines += house.team_lines(t, game, totals)
    if series is not None:  # B3
        out = house.eliminated_line(t, game, series, number - 1)
        if out:
            lines.append(out)
    lines.append(t("deal.last_trick", name=seat_name(game.seats[result.last_trick])))
    return "\n".join(lines)


def again_keyboard(t: Texts, game: Game) -> Keyboard:
    data = LobbyCb(game=game.id, action="again").pack()
    return keyboard([[button(t("series.again"), data)]])


def series_end_text(
    t: Texts,
    game: Game,
    totals: Sequence[int],
    winners: Sequence[int],
    rules: RuleSet | None = None,
) -> str:
    names = html_join(", ", (seat_name(game.seats[s]) for s in winners))
    key = "series.winner" if len(winners) == 1 else "series.winners"
    lines = [t("series.over"), t(key, names=names), ""]
    if rules is not None and house.pairs(rules):  # B5: the pairs first, then each seat
        lines += [*house.team_lines(t, game, totals), ""]
    for seat in sorted(game.seats, key=lambda s: totals[s.seat]):
        lines.append(f"{seat_name(seat)}: {totals[seat.seat]}")
    return "\n".join(lines)
