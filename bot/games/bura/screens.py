"""Bura's screens (RULES.md Part D) as text: the group's table with face-down discards
(🂠), a player's hand, a deal's result in words and the notes a call gets in the group.
Pure: state in, text out.

The group is drawn from public facts only: hand sizes, cards face up on the table, how
many cards each trick pile holds. A closed discard (D3) is 🂠 for everyone but its owner,
whose hand message lists it; a pile is turned up only on a declaration (D5).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.bura.keyboard import card_actions, offers_pick
from bot.games.taps import listed_plays, turn_hint
from bot.i18n import Html, Texts
from bot.views.render import (
    Shown,
    cards_text,
    combinations_in,
    dealt_lines,
    seat_name,
    shown_lines,
    time_limit,
    trump_line,
)
from engine.bura.actions import Action, Dave, DaveReply, Lead, TablePlay
from engine.bura.combinations import dealt_combination, show_kind
from engine.bura.deal import DAVE, DECLARE, LEAD, Deal
from engine.bura.series import Series, deal_penalties
from storage import Game, Seat

FACE_DOWN = "🂠"


def closed_text(count: int) -> str:
    return " ".join([FACE_DOWN] * count)


def robber(series: Series) -> bool:
    return series.rules.series != "penalty_12"


# --- the table (public) ---------------------------------------------------------


def _play_line(
    t: Texts, play: TablePlay, seats: Sequence[Seat], deal: Deal, me: int, crown: int
) -> str:
    """One play on the table; a closed discard shows its cards only to its owner ``me``;
    👑 marks the play of ``crown``, the seat that holds (or took) the trick."""
    if play.beat is None:
        kind = t("bura.stopped") if play.stop else t("table.led")
    else:
        kind = t("table.beat") if play.beat else t("table.discarded")
    if play.closed and play.seat != me:
        cards = closed_text(len(play.cards))
    elif play.closed:
        cards = f"{cards_text(play.cards, deal.trump)} ({FACE_DOWN})"
    else:
        cards = cards_text(play.cards, deal.trump)
    mark = " 👑" if play.seat == crown and play.beat is not False else ""
    return "  " + t(
        "table.play", name=seat_name(seats[play.seat]), kind=kind, cards=cards, mark=mark
    )


def _table_lines(t: Texts, deal: Deal, seats: Sequence[Seat], me: int = -1) -> list[str]:
    """The trick in progress; else the whole trick taken last, until the next lead, so
    the card that completed it reaches everyone. No points: D3 shows no running total."""
    if deal.plays:
        plays = [_play_line(t, p, seats, deal, me, deal.claimant) for p in deal.plays]
        return [t("table.on_table"), *plays]
    taker = deal.last_taker
    if deal.last_trick and taker is not None:
        plays = [_play_line(t, p, seats, deal, me, taker) for p in deal.last_trick]
        return [t("bura.last_trick", name=seat_name(seats[taker])), *plays]
    return [t("table.empty")]


def _waiting_line(t: Texts, deal: Deal, seats: Sequence[Seat]) -> str | None:
    if deal.turn is None:
        return None
    name = seat_name(seats[deal.turn])
    if deal.phase == DECLARE:
        last = deal.last_trick_taken()
        return t("bura.turn_declare_last" if last else "bura.turn_declare", name=name)
    if deal.phase == DAVE:
        assert deal.dave_by is not None
        return t("bura.turn_dave", name=name, by=seat_name(seats[deal.dave_by]))
    return None


def table_text(
    t: Texts,
    game: Game,
    series: Series,
    *,
    turn_seconds: int | None,
    viewer: int | None = None,
) -> str:
    deal = series.deals[-1]
    view = deal.view(0)  # only its public parts are used below (trump, stock)
    totals = series.totals
    total_key = "bura.seat_wins" if robber(series) else "bura.seat_penalty"
    lines = [t("bura.title", deal=len(series.deals)), trump_line(t, view)]
    if deal.stakes > 1:
        lines.append(t("bura.stakes", n=deal.stakes))
    lines.append("")
    for seat in game.seats:
        marker = "▶️" if deal.turn == seat.seat else "▫️"
        away = " 💤" if seat.away else ""
        lines.append(
            t(
                total_key,
                marker=marker,
                name=Html(seat_name(seat) + away),
                cards=len(deal.hands[seat.seat]),
                pile=len(deal.piles[seat.seat]),
                total=totals[seat.seat],
            )
        )
    lines.append("")
    lines += _table_lines(t, deal, game.seats, me=-1 if viewer is None else viewer)
    if deal.turn is not None:
        lines.append("")
        special = _waiting_line(t, deal, game.seats)
        seat = game.seats[deal.turn]
        if special is not None:
            lines.append(special)
        elif turn_seconds is not None and seat.bot_level is None:
            lines.append(
                t("table.turn_timed", name=seat_name(seat), limit=time_limit(t, turn_seconds))
            )
        else:
            lines.append(t("table.turn", name=seat_name(seat)))
    return "\n".join(lines)


# --- a player's hand (private) --------------------------------------------------


def hand_text(
    t: Texts,
    game: Game,
    chat_title: str,
    series: Series,
    seat: int,
    *,
    turn_seconds: int | None,
    picking: bool = False,
) -> str:
    deal = series.deals[-1]
    view = deal.view(seat)
    lines = [t("bura.hand_title", chat=chat_title, deal=len(series.deals)), trump_line(t, view)]
    if deal.stakes > 1:
        lines.append(t("bura.stakes", n=deal.stakes))
    lines.append("")
    lines += _table_lines(t, deal, game.seats, me=seat)
    pile = view.piles[seat]
    if pile.open_cards or pile.closed_by:
        shown = cards_text(pile.open_cards, view.trump)
        lines.append(
            t("bura.your_pile", cards=shown or "—", closed=closed_text(len(pile.closed_by)) or "—")
        )
    mine = [card for card, owner in view.my_closed if owner >= 0]
    if mine:
        lines.append(t("bura.your_closed", cards=cards_text(mine, view.trump)))
    lines.append("")
    actors = deal.actors()
    if deal.turn == seat and deal.phase == DECLARE and turn_seconds is not None:
        # The draw comes by itself when the time is up (``BuraSide.by_itself``): no tap.
        key = "bura.your_declare_last" if deal.last_trick_taken() else "bura.your_declare"
        lines.append(t(key, limit=time_limit(t, turn_seconds)))
    elif deal.turn == seat:
        lines.append(_your_turn_line(t, deal, seat, picking))
        if turn_seconds is not None:
            lines.append(t("hand.deadline", limit=time_limit(t, turn_seconds)))
    elif seat in actors:
        lines.append(t("bura.you_may_stop", name=seat_name(game.seats[deal.leader])))
    else:
        special = _waiting_line(t, deal, game.seats)
        if special is not None:
            lines.append(special)
        elif deal.turn is not None:
            lines.append(t("hand.waiting", name=seat_name(game.seats[deal.turn])))
    lines.append(t("hand.your_cards", cards=cards_text(view.hand, view.trump) or "—"))
    return "\n".join(lines)


def _your_turn_line(t: Texts, deal: Deal, seat: int, picking: bool) -> str:
    if deal.phase == DECLARE:  # no time given (the draw then waits for a tap)
        return t("bura.your_declare_untimed")
    if deal.phase == DAVE:
        return t("bura.your_dave", n=deal.stakes * 2)
    return turn_hint(
        t,
        lead=deal.phase == LEAD,
        most=deal._lead_limit(seat),
        count=len(deal.claim),
        picking=picking,
        offered=offers_pick(deal, seat),
        listed=bool(listed_plays(card_actions(deal, seat))),
    )


# --- results in words --------------------------------------------------------------


def shown_of(deal: Deal) -> Shown | None:
    """The бура or Москва that ended ``deal`` (D6/D8): the cards stay in the hands."""
    result = deal.result()
    if result.outcome not in ("bura", "moscow"):
        return None
    assert result.by is not None and result.winner is not None
    found = combinations_in(deal.hands, result.by, lambda h: show_kind(h, deal.trump, deal.rules))
    return Shown(result.by, result.winner, found, deal.trump)


def deal_end_text(t: Texts, game: Game, series: Series, index: int) -> str:
    deal = series.deals[index]
    result = deal.result()
    seats = game.seats
    by = seat_name(seats[result.by]) if result.by is not None else ""
    winner = seat_name(seats[result.winner]) if result.winner is not None else ""
    lines = [t("deal.over", deal=index + 1)]
    outcome = result.outcome
    if outcome == "void" and result.run_out:
        lines.append(t("bura.void_run_out"))
    elif outcome == "void":  # D9: which combination, whose, and its cards
        lines.append(t("bura.void_dealt"))
        first = (deal.dealer + 1) % deal.players  # the first hand dealt (D1)
        dealt = combinations_in(
            deal.hands, first, lambda h: dealt_combination(h, deal.trump, deal.rules)
        )
        lines += dealt_lines(t, seats, dealt, deal.trump)
    elif outcome == "declared":
        lines.append(t("bura.declared", name=by, points=result.points[result.by or 0]))
    elif outcome == "false_declaration":
        lines.append(t("bura.false_declaration", name=by, points=result.points[result.by or 0]))
    elif outcome in ("bura", "moscow"):
        shown = shown_of(deal)
        assert shown is not None
        lines += shown_lines(t, seats, shown)
    elif outcome == "fold":
        loser = next(s for s in range(deal.players) if s != result.winner)
        lines.append(t("bura.folded", name=seat_name(seats[loser]), winner=winner))
    if outcome in ("declared", "false_declaration") and result.by is not None:
        pile = [pc.card for pc in deal.piles[result.by]]
        lines.append(t("bura.pile_turned", cards=cards_text(pile, deal.trump) or "—"))
    if result.stakes > 1 and outcome != "void":
        lines.append(t("bura.stakes", n=result.stakes))
    added = deal_penalties(result, deal.players, series.rules)
    totals = [sum(p[s] for p in series.penalties[: index + 1]) for s in range(deal.players)]
    key = "bura.row_wins" if robber(series) else "bura.row_penalty"
    if outcome != "void":
        for seat in seats:
            lines.append(
                t(key, name=seat_name(seat), add=added[seat.seat], total=totals[seat.seat])
            )
    return "\n".join(lines)


def move_notes(t: Texts, game: Game, series: Series, action: Action) -> list[str]:
    name = seat_name(game.seats[action.seat])
    if isinstance(action, Lead) and action.stop:
        return [t("bura.note_stop", name=name)]
    if isinstance(action, Dave):
        return [t("bura.note_dave", name=name)]
    if isinstance(action, DaveReply) and action.accept:
        return [t("bura.note_accept", name=name, n=series.deals[-1].stakes)]
    return []
