"""Bura's bot side (RULES.md Part D) behind the seam (``bot.games.base.GameSide``): what
is its own beyond its screens, keyboard and codec — the computers' and the stand-in's
choices, and the draw after a trick that comes by itself (D4, D5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeGuard

from bot.games.base import ByItself, GameSide, SeatAction
from bot.games.bura import app, codec, keyboard, screens
from bot.i18n import Html, Texts
from engine import bura
from engine.bura.actions import Action, Dave, DaveReply, Declare, action_from_json
from engine.bura.ai import make_player
from engine.bura.ai.players import GreedyPlayer
from engine.bura.deal import DAVE, DECLARE, Deal
from engine.bura.rules import BUST_LIMIT, DECLARE_TARGET, MAX_PLAYERS, MIN_PLAYERS, Rules
from engine.bura.series import Series
from engine.bura.view import View
from engine.cards import DECK, Card
from storage import PlayerRecord


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
    # The engine's records, the game's screens, keyboard and Mini App state, as they are.
    from_record = staticmethod(bura.from_record)
    record = staticmethod(bura.to_record)
    action_from_json = staticmethod(action_from_json)
    apply = staticmethod(Series.apply)
    one_tap = staticmethod(keyboard.one_tap_action)
    offers_pick = staticmethod(keyboard.offers_pick)
    hand_keyboard = staticmethod(keyboard.hand_keyboard)
    table_text = staticmethod(screens.table_text)
    hand_text = staticmethod(screens.hand_text)
    deal_end_text = staticmethod(screens.deal_end_text)
    move_notes = staticmethod(screens.move_notes)
    app_state = staticmethod(app.app_state)

    def start_series(
        self, players: int, switches: Mapping[str, object], first_dealer: int
    ) -> Series:
        return Series(players, Rules.from_dict(switches), first_dealer)

    def owns(self, action: SeatAction) -> TypeGuard[Action]:
        return isinstance(action, Action)

    def deal(self, series: Series) -> Deal:
        return series.deals[-1]

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
        plays = keyboard.card_actions(deal, seat)
        return not plays or any(set(cards) <= set(a.cards) for a in plays)

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

    def stats_lines(self, t: Texts, stats: PlayerRecord) -> list[Html]:
        return [
            t("stats.declarations", true=stats.declarations_true, false=stats.declarations_false)
        ]


BURA_BOT = BuraSide()
