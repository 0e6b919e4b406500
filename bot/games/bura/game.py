"""Bura's bot side (RULES.md Part D) behind the seam (``bot.games.base.GameSide``): what
is its own beyond its screens, keyboard and codec — the computers' and the stand-in's
choices, and the draw after a trick that comes by itself (D4, D5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.games.base import ByItself, GameSide
from bot.games.bura import app, codec
from bot.games.bura.keyboard import card_actions, hand_keyboard, offers_pick, one_tap_action
from bot.games.bura.screens import deal_end_text, hand_text, move_notes, table_text
from bot.i18n import Html, Texts
from bot.json import Json
from bot.views.render import Keyboard
from engine.bura.actions import Action, Dave, DaveReply, Declare
from engine.bura.ai import make_player
from engine.bura.ai.players import GreedyPlayer
from engine.bura.deal import DAVE, DECLARE, Deal
from engine.bura.record import from_record, to_record
from engine.bura.rules import BUST_LIMIT, DECLARE_TARGET, MAX_PLAYERS, MIN_PLAYERS, Rules
from engine.bura.series import Series
from engine.bura.view import View
from engine.cards import DECK, Card
from storage import Game, PlayerRecord


def declaration_may_win(view: View, rules: Rules) -> bool:
    """Whether declaring (D5) may win, as far as the trick's taker knows: the open cards
    of their pile, and for its face-down cards (D3) the most and the least that many of
    the cards they have not seen elsewhere could hold. Judged from the view alone, so
    whether the draw waits for them (``BuraSide.by_itself``) tells nothing of those cards."""
    pile = view.piles[view.seat]
    known = sum(c.points for c in pile.open_cards)
    elsewhere = {*view.hand, *view.seen_cards()}
    if view.trump_card_in_stock:
        elsewhere.add(view.trump_card)
    unseen = sorted(c.points for c in DECK if c not in elsewhere)
    hidden = len(pile.closed_by)
    most = known + sum(unseen[len(unseen) - hidden :])
    least = known + sum(unseen[:hidden])
    return most >= DECLARE_TARGET and (rules.target == "31" or least <= BUST_LIMIT)


class BuraSide(GameSide[Series, Deal, Action]):
    name = "bura"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS

    def start_series(
        self, players: int, switches: Mapping[str, object], first_dealer: int
    ) -> Series:
        return Series(players, Rules.from_dict(switches), first_dealer)

    def from_record(self, record: Json) -> Series:
        return from_record(record)

    def record(self, series: Series) -> Json:
        return to_record(series)

    def deal_rows(self, series: Series) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        return [r.points for r in series.results], list(series.penalties)

    def trick_open(self, deal: Deal) -> bool:
        return bool(deal.plays)

    def trick_shown(self, series: Series) -> str | None:
        deal = series.deals[-1]
        if deal.plays or not deal.last_trick:
            return None
        return f"{len(series.deals)}.{deal.trick_number}"

    def could_play_together(self, deal: Deal, seat: int, cards: Sequence[Card]) -> bool:
        plays = card_actions(deal, seat)
        return not plays or any(set(cards) <= set(a.cards) for a in plays)

    def one_tap(self, deal: Deal, seat: int, card: Card) -> Action | None:
        return one_tap_action(deal, seat, card)

    def offers_pick(self, deal: Deal, seat: int) -> bool:
        return offers_pick(deal, seat)

    def parse_action(self, deal: Deal, seat: int, kind: str, cards: tuple[Card, ...]) -> Action:
        action = codec.action_of(seat, kind, cards)
        deal.check(action)
        return action

    def computer_action(self, level: str, seed: int, series: Series, seat: int) -> Action | None:
        deal = series.deals[-1]
        player = make_player(level, series.rules, seed=seed)
        return player.choose(deal.view(seat), deal.legal_actions(seat))

    def stand_in_action(self, series: Series, seat: int) -> Action:
        """For a person who let the timer run out: play on, never declare nor say даве
        (those are a player's own calls). A даве put to them is folded: the stand-in
        never raises the stakes on someone's behalf, and folding costs exactly what the
        deal was worth before the даве."""
        deal = series.deals[-1]
        legal = deal.legal_actions(seat)
        if deal.phase == DECLARE:
            return Declare(seat, False)
        if deal.phase == DAVE:
            return DaveReply(seat, False)
        plain = [a for a in legal if not isinstance(a, Dave)]
        choice = GreedyPlayer(series.rules).choose(deal.view(seat), plain)
        return choice if choice is not None else plain[0]

    def by_itself(self, series: Series) -> ByItself[Action] | None:
        """After a trick the draw (D4) comes by itself: at once where the taker cannot
        know a declaration (D5) to have a chance (``declaration_may_win``), else when
        the flows' short pause is over, «Вскрываюсь» offered meanwhile."""
        deal = series.deals[-1]
        if deal.phase != DECLARE or deal.turn is None:
            return None
        seat = deal.turn
        chance = declaration_may_win(deal.view(seat), deal.rules)
        return ByItself(Declare(seat, False), at_once=not chance)

    def table_text(self, t: Texts, game: Game, series: Series, *, turn_seconds: int | None) -> str:
        return table_text(t, game, series, turn_seconds=turn_seconds)

    def hand_text(
        self,
        t: Texts,
        game: Game,
        chat_title: str,
        series: Series,
        seat: int,
        *,
        turn_seconds: int | None,
        picking: bool = False,
    ) -> str:
        return hand_text(
            t, game, chat_title, series, seat, turn_seconds=turn_seconds, picking=picking
        )

    def hand_keyboard(
        self,
        t: Texts,
        game: Game,
        series: Series,
        seat: int,
        selection: Sequence[Card],
        picking: bool = False,
    ) -> Keyboard | None:
        return hand_keyboard(t, game, series, seat, selection, picking)

    def deal_end_text(self, t: Texts, game: Game, series: Series, index: int) -> str:
        return deal_end_text(t, game, series, index)

    def move_notes(self, t: Texts, game: Game, series: Series, action: Action) -> list[str]:
        return move_notes(t, game, series, action)

    def app_state(self, out: Json, t: Texts, series: Series, me: int, playing: bool) -> bool:
        return app.app_state(out, t, series, me, playing)

    def stats_lines(self, t: Texts, stats: PlayerRecord) -> list[Html]:
        return [
            t("stats.declarations", true=stats.declarations_true, false=stats.declarations_false)
        ]


BURA_BOT = BuraSide()
