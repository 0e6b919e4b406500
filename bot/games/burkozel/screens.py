"""Burkozel's screens (RULES.md Parts A-C) as text: the group's table, a player's hand
and a deal's result in words. Pure: state in, text out. The group's table is drawn from
the public view alone (no hand, and no closed discard before the deal is scored, B1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from bot.games.burkozel import house
from bot.games.burkozel.keyboard import card_plays, offers_pick
from bot.games.taps import listed_plays, turn_hint
from bot.i18n import Html, Texts
from bot.views.render import (
    Shown,
    cards_text,
    combinations_in,
    seat_name,
    shown_lines,
    time_limit,
    trump_line,
)
from engine import Suit
from engine.burkozel import Deal, DealResult, Play, Series, View
from engine.burkozel.combinations import SHOWS, show_kind
from engine.burkozel.deal import TrickResult
from storage import Game, Seat


class PreviousTrick(NamedTuple):
    """The deal before, while the current one has had no trick: its number, its last
    trick, its trump (★ marks that deal's trumps, not this one's) and the бура or Москва
    that ended it, if one did (C1/C2)."""

    number: int
    trick: TrickResult
    trump: Suit
    shown: Shown | None = None


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
    t: Texts, view: View, seats: Sequence[Seat], previous: PreviousTrick | None = None
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
    lines = []
    if view.last_trick is not None:
        trick = view.last_trick
        # B1: a view counts only the cards it sees; face-down ones are not counted yet.
        closed = any(play.face_down for play in trick.plays)
        header = t(
            "table.last_trick_closed" if closed else "table.last_trick",
            name=seat_name(seats[trick.winner]),
            points=trick.points,
        )
    elif previous is not None:
        number, trick, trump, shown = previous
        if shown is not None:  # C1/C2: how the deal before ended, with the cards shown
            lines += [t("table.previous_show", deal=number), *shown_lines(t, seats, shown), ""]
        winner = seat_name(seats[trick.winner])
        header = t("table.previous_trick", deal=number, name=winner, points=trick.points)
    else:
        return [t("table.empty")]
    lines.append(header)
    for play in trick.plays:
        lines.append("  " + play_text(t, play, seats, trump, play.seat == trick.winner))
    return lines


def previous_trick(series: Series) -> PreviousTrick | None:
    """The last trick of the deal before, while the current deal has had none."""
    deal = series.deals[-1]
    if deal.last_trick is None and len(series.deals) > 1:
        before = series.deals[-2]
        last = before.last_trick
        if last is None:
            return None
        return PreviousTrick(len(series.deals) - 1, last, before.trump, shown_of(before))
    return None


def shown_of(deal: Deal) -> Shown | None:
    """The бура or Москва that ended ``deal`` (C1/C2): the cards stay in the hands."""
    if deal.outcome not in SHOWS or deal.shown_by is None:
        return None
    by = deal.history[-1].seat  # the show; the deal ended with it
    hands = [deal.hand(seat) for seat in range(deal.players)]
    found = combinations_in(hands, by, lambda hand: show_kind(hand, deal.trump))
    return Shown(by, deal.shown_by, found, deal.trump)


def table_text(
    t: Texts,
    game: Game,
    series: Series,
    *,
    turn_seconds: int | None,
    viewer: int | None = None,
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
    seen = view if viewer is None else deal.view(viewer)  # its own closed discards too
    lines += _table_lines(t, seen, game.seats, previous_trick(series))
    if view.turn is not None:
        seat = game.seats[view.turn]
        lines.append("")
        if turn_seconds is not None and seat.bot_level is None:
            limit = time_limit(t, turn_seconds)
            lines.append(t("table.turn_timed", name=seat_name(seat), limit=limit))
        else:
            lines.append(t("table.turn", name=seat_name(seat)))
    return "\n".join(lines)


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
    picking: bool = False,
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
        most = min(3, min(view.hand_sizes))
        lines.append(
            turn_hint(
                t,
                lead=lead is None,
                most=most,
                count=len(lead or ()),
                picking=picking,
                offered=offers_pick(deal, seat),
                listed=bool(listed_plays(card_plays(deal, seat))),
            )
        )
        if turn_seconds is not None:
            lines.append(t("hand.deadline", limit=time_limit(t, turn_seconds)))
    elif view.turn is not None:
        lines.append(t("hand.waiting", name=seat_name(game.seats[view.turn])))
    lines.append(t("hand.your_cards", cards=cards_text(view.hand, view.trump) or "—"))
    return "\n".join(lines)


def deal_end_text(
    t: Texts,
    game: Game,
    number: int,
    result: DealResult,
    totals: Sequence[int],
    series: Series | None = None,
) -> str:
    lines = [t("deal.over", deal=number)]
    shown = shown_of(series.deals[number - 1]) if series is not None else None
    if shown is not None:
        lines += shown_lines(t, game.seats, shown)
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
