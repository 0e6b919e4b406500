"""Duel's bot side (``bot.games.base.GameSide``): a tap on a card plays it; the group
table lists the seats, the table and the last trick; each hand its cards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeGuard

from bot.games.base import ForgedAction, GameSide, SeatAction
from bot.i18n import Texts
from bot.json import Json
from bot.views.callbacks import card_data
from bot.views.render import (
    Keyboard,
    button,
    card_text,
    cards_text,
    keyboard,
    seat_name,
    time_limit,
)
from engine import Card
from storage import Game
from tests.support.duel.game import DuelDeal, DuelRules, DuelSeries, Play, from_record, to_record


def _table_lines(t: Texts, game: Game, deal: DuelDeal) -> list[str]:
    lines: list[str] = []
    if deal.table:
        lines.append(t("duel.table", cards=" ".join(card_text(p.card) for p in deal.table)))
    else:
        lines.append(t("duel.table_empty"))
    if deal.last_trick:
        lead, answer = deal.last_trick
        higher = answer.card.suit is lead.card.suit and answer.card.rank > lead.card.rank
        taker = answer.seat if higher else lead.seat
        cards = " ".join(card_text(p.card) for p in deal.last_trick)
        lines.append(t("duel.last_trick", name=seat_name(game.seats[taker]), cards=cards))
    return lines


class DuelSide(GameSide[DuelSeries, DuelDeal, Play]):
    name = "duel"
    min_players = max_players = 2
    action_from_json = staticmethod(Play.from_json)
    apply = staticmethod(DuelSeries.apply)

    def start_series(
        self, players: int, switches: Mapping[str, object], first_dealer: int
    ) -> DuelSeries:
        return DuelSeries(players, DuelRules.from_dict(switches), first_dealer)

    def from_record(self, record: Json) -> DuelSeries:
        return from_record(record)

    def record(self, series: DuelSeries) -> Json:
        return to_record(series)

    def owns(self, action: SeatAction) -> TypeGuard[Play]:
        return isinstance(action, Play)

    def deal(self, series: DuelSeries) -> DuelDeal:
        return series.deals[-1]

    def deal_rows(self, series: DuelSeries) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        return [r.points for r in series.results], [r.penalties for r in series.results]

    def trick_open(self, deal: DuelDeal) -> bool:
        return bool(deal.table)

    def trick_shown(self, series: DuelSeries) -> str | None:
        deal = series.deals[-1]
        if deal.table or not deal.last_trick:
            return None
        return f"{len(series.deals)}.{deal.trick_number}"

    def could_play_together(self, deal: DuelDeal, seat: int, cards: Sequence[Card]) -> bool:
        return len(cards) <= 1

    def one_tap(self, deal: DuelDeal, seat: int, card: Card) -> Play | None:
        play = Play(seat, card)
        return play if play in deal.legal_actions(seat) else None

    def parse_action(self, deal: DuelDeal, seat: int, kind: str, cards: tuple[Card, ...]) -> Play:
        if kind != "p" or len(cards) != 1:
            raise ForgedAction(kind)
        play = Play(seat, cards[0])
        if play not in deal.legal_actions(seat):
            raise ForgedAction(kind)
        return play

    def computer_action(self, level: str, seed: int, series: DuelSeries, seat: int) -> Play:
        return self.stand_in_action(series, seat)

    def stand_in_action(self, series: DuelSeries, seat: int) -> Play:
        return min(series.deals[-1].legal_actions(seat), key=lambda p: p.card.rank)

    def table_text(
        self,
        t: Texts,
        game: Game,
        series: DuelSeries,
        *,
        turn_seconds: int | None,
        viewer: int | None = None,  # no hidden cards on a duel's table
    ) -> str:
        deal = series.deals[-1]
        totals = series.totals
        lines = [t("duel.title", deal=len(series.deals)), ""]
        for seat in game.seats:
            lines.append(
                t(
                    "duel.seat",
                    marker="▶️" if deal.turn == seat.seat else "▫️",
                    name=seat_name(seat),
                    cards=len(deal.hands[seat.seat]),
                    tricks=deal.tricks[seat.seat],
                    total=totals[seat.seat],
                )
            )
        lines += ["", *_table_lines(t, game, deal)]
        if deal.turn is not None:
            seat = game.seats[deal.turn]
            if turn_seconds is not None and seat.bot_level is None:
                turn = t(
                    "table.turn_timed", name=seat_name(seat), limit=time_limit(t, turn_seconds)
                )
            else:
                turn = t("table.turn", name=seat_name(seat))
            lines += ["", turn]
        return "\n".join(lines)

    def hand_text(
        self,
        t: Texts,
        game: Game,
        chat_title: str,
        series: DuelSeries,
        seat: int,
        *,
        turn_seconds: int | None,
        picking: bool = False,
    ) -> str:
        deal = series.deals[-1]
        view = deal.view(seat)
        lines = [t("duel.hand_title", chat=chat_title, deal=len(series.deals)), ""]
        lines += _table_lines(t, game, deal)
        lines.append(t("duel.your_cards", cards=cards_text(view.hand) or "—"))
        if view.turn == seat:
            lines += ["", t("duel.your_turn")]
        return "\n".join(lines)

    def hand_keyboard(
        self,
        t: Texts,
        game: Game,
        series: DuelSeries,
        seat: int,
        selection: Sequence[Card],
        picking: bool = False,
    ) -> Keyboard | None:
        hand = series.deals[-1].view(seat).hand
        if not hand:
            return None
        row = [button(card_text(c), card_data(game.id, game.version, c.code())) for c in hand]
        return keyboard([row])

    def deal_end_text(self, t: Texts, game: Game, series: DuelSeries, index: int) -> str:
        result = series.results[index]
        if not any(result.penalties):
            return t("duel.deal_even", deal=index + 1)
        loser = result.penalties.index(1)
        return t("duel.deal_end", deal=index + 1, name=seat_name(game.seats[loser]))

    def app_state(self, out: Json, t: Texts, series: DuelSeries, me: int, playing: bool) -> bool:
        return False  # the Mini App shows Duel's tally only; it is played by text


DUEL_BOT = DuelSide()
