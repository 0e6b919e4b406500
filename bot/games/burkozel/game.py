"""Burkozel's bot side (RULES.md Parts A-C) behind the seam (``bot.games.base.GameSide``):
what is its own beyond its screens, keyboard and codec — the computers' and the
stand-in's choices, and which show a button without cards means."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeGuard

from bot.games.base import GameSide, SeatAction
from bot.games.burkozel import app, codec, house, keyboard, screens
from bot.i18n import Html, Texts
from bot.views.render import Keyboard
from engine import Card, burkozel
from engine.burkozel import Action, Deal, Rules, Series
from engine.burkozel.ai import make_player, safe_move
from engine.burkozel.ai.house import house_move
from engine.burkozel.rules import MAX_PLAYERS, MIN_PLAYERS
from storage import Game


class BurkozelSide(GameSide[Series, Deal, Action]):
    name = "burkozel"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    # The engine's records, the game's table, taps and Mini App state, as they are.
    from_record = staticmethod(burkozel.from_record)
    record = staticmethod(burkozel.to_record)
    action_from_json = staticmethod(Action.from_json)
    apply = staticmethod(Series.apply)
    one_tap = staticmethod(keyboard.one_tap_move)
    offers_pick = staticmethod(keyboard.offers_pick)
    table_text = staticmethod(screens.table_text)
    app_state = staticmethod(app.app_state)

    def start_series(
        self, players: int, switches: Mapping[str, object], first_dealer: int
    ) -> Series:
        return Series(players, Rules.from_dict(switches), first_dealer=first_dealer)

    def owns(self, action: SeatAction) -> TypeGuard[Action]:
        return isinstance(action, Action)

    def deal(self, series: Series) -> Deal:
        return series.deals[-1]

    def deal_rows(self, series: Series) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        return [r.points for r in series.results], [r.penalties for r in series.results]

    def trick_open(self, deal: Deal) -> bool:
        return bool(deal.table)

    def trick_shown(self, series: Series) -> str | None:
        deal = series.deals[-1]
        if deal.table:
            return None
        if deal.last_trick is not None:
            return f"{len(series.deals)}.{deal.trick_number}"
        if (
            screens.previous_trick(series) is not None
        ):  # the deal before's last, until the first lead
            return f"{len(series.deals) - 1}.{series.deals[-2].trick_number}"
        return None

    def could_play_together(self, deal: Deal, seat: int, cards: Sequence[Card]) -> bool:
        if deal.turn != seat:
            return True
        return any(set(cards) <= set(m.cards) for m in deal.legal_actions())

    def parse_action(self, deal: Deal, seat: int, kind: str, cards: tuple[Card, ...]) -> Action:
        # C1/C2: the engine knows which combination the hand shows.
        shows = [m.show for m in house.combination_moves(deal, seat) if m.show is not None]
        move = codec.move_of(seat, kind, cards, shows[0] if shows else None)
        if move.show is None:
            deal.check(move)
        return move

    def computer_action(self, level: str, seed: int, series: Series, seat: int) -> Action:
        deal = series.deals[-1]
        view, legal = deal.view(seat), deal.legal_actions(seat)
        if seat != deal.turn:
            return house_move(view, legal)  # a C3/C4 stopper off turn: takes its lead
        return make_player(level, seed=seed).choose(view, legal)

    def stand_in_action(self, series: Series, seat: int) -> Action:
        """Never a show or an out-of-turn lead: those are the player's own call."""
        deal = series.deals[-1]
        return safe_move(deal.view(seat), house.ordinary(deal.legal_actions(seat)))

    def lobby_title(self, t: Texts) -> str:
        return t("lobby.title")

    def lobby_seat_lines(self, t: Texts, game: Game) -> list[Html]:
        return house.lobby_pair_lines(t, game)

    def lobby_hint(self, t: Texts, game: Game) -> str:
        if house.lobby_pair_lines(t, game):
            return t("lobby.hint_pairs")
        return super().lobby_hint(t, game)

    def score_lines(self, t: Texts, game: Game, series: Series) -> list[Html]:
        # B5: the pooled totals
        return house.team_lines(t, game, series.totals) if house.pairs(series.rules) else []

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
        return screens.hand_text(
            t,
            game,
            chat_title,
            series.deals[-1],
            seat,
            deal_number=len(series.deals),
            turn_seconds=turn_seconds,
            previous=screens.previous_trick(series),
            picking=picking,
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
        return keyboard.hand_keyboard(t, game, series.deals[-1], seat, selection, picking)

    def deal_end_text(self, t: Texts, game: Game, series: Series, index: int) -> str:
        result = series.deals[index].result()
        totals = [
            sum(r.penalties[s] for r in series.results[: index + 1]) for s in range(series.players)
        ]
        return screens.deal_end_text(t, game, index + 1, result, totals, series)


BURKOZEL_BOT = BurkozelSide()
