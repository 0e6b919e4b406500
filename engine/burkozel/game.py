"""Burkozel behind the common game interface (``engine.game``): a thin adapter over
:class:`~engine.burkozel.deal.Deal` and :class:`~engine.burkozel.series.Series`, which stay as they are."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.burkozel import reference
from engine.burkozel.deal import Action, Deal, DealResult, View
from engine.burkozel.record import FORMAT, from_record, replay, to_record
from engine.burkozel.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, RULE_IDS, SWITCHES, Rules
from engine.burkozel.series import Series, SeriesResult
from engine.cards import Card
from engine.game import DealState, SeriesState


class BurkozelDealState:
    """One Burkozel deal: exactly one seat acts at a time (R7, R11)."""

    def __init__(self, deal: Deal, series: Series | None = None) -> None:
        self.deal = deal
        self._series = series

    @property
    def players(self) -> int:
        return self.deal.players

    @property
    def finished(self) -> bool:
        return self.deal.finished

    def actors(self) -> tuple[int, ...]:
        # The seat to play and, under B6, a C3/C4 stopper who may lead out of turn.
        return self.deal.actors()

    def hand(self, seat: int) -> tuple[Card, ...]:
        return self.deal.hand(seat)

    def legal_actions(self, seat: int) -> list[Action]:
        return self.deal.legal_actions(seat) if seat in self.deal.actors() else []

    def apply(self, action: Action) -> object:
        # Through the series when there is one, so it records the deal's result.
        if self._series is not None and self._series.current is self.deal:
            return self._series.apply(action)
        return self.deal.apply(action)

    def view(self, seat: int) -> View:
        return self.deal.view(seat)

    def public_view(self) -> View:
        return self.deal.public_view()

    def result(self) -> DealResult:
        return self.deal.result()


class BurkozelSeriesState:
    def __init__(self, series: Series) -> None:
        self.series = series

    @property
    def players(self) -> int:
        return self.series.players

    @property
    def finished(self) -> bool:
        return self.series.finished

    @property
    def totals(self) -> tuple[int, ...]:
        return self.series.totals

    def current_deal(self) -> BurkozelDealState | None:
        deal = self.series.current
        return None if deal is None else BurkozelDealState(deal, self.series)

    def start_deal(self, deck: Sequence[Card], dealer: int | None = None) -> BurkozelDealState:
        return BurkozelDealState(self.series.start_deal(deck, dealer), self.series)

    def apply(self, action: Action) -> object:
        return self.series.apply(action)

    def result(self) -> SeriesResult:
        return self.series.result()


class BurkozelReference:
    """engine/burkozel/reference.py for the deal states of :class:`BurkozelGame`."""

    def actors(self, deal: DealState[Action, Any, Any]) -> tuple[int, ...]:
        inner = _deal_of(deal)
        if inner.turn is None:
            return ()
        stopper = inner.stopper()
        return (inner.turn,) if stopper is None else (inner.turn, stopper)

    def legal_actions(self, deal: DealState[Action, Any, Any], seat: int) -> list[Action]:
        return reference.legal_actions(_deal_of(deal), seat)

    def position(self, deal: DealState[Action, Any, Any]) -> reference.Position:
        return reference.position(_deal_of(deal))

    def after(self, deal: DealState[Action, Any, Any], action: Action) -> reference.Position:
        return reference.after(_deal_of(deal), action)


def _deal_of(deal: DealState[Action, Any, Any]) -> Deal:
    if not isinstance(deal, BurkozelDealState):
        raise TypeError("not a Burkozel deal")
    return deal.deal


class BurkozelGame:
    name = "burkozel"
    record_format = FORMAT
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    aliases: tuple[str, ...] = ("буркозёл", "буркозел")
    switches: Mapping[str, tuple[object, ...]] = SWITCHES
    rule_ids: Mapping[str, str] = RULE_IDS
    presets: Mapping[str, Mapping[str, object]] = PRESETS
    reference = BurkozelReference()

    def rules_from_dict(self, data: Mapping[str, Any]) -> Rules:
        return Rules.from_dict(data)

    def new_series(
        self, players: int, rules: Mapping[str, Any] | None = None, first_dealer: int = 0
    ) -> BurkozelSeriesState:
        return BurkozelSeriesState(Series(players, Rules.from_dict(rules or {}), first_dealer))

    def action_from_json(self, data: object) -> Action:
        return Action.from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action.to_json()

    def from_record(self, record: object) -> BurkozelSeriesState:
        return BurkozelSeriesState(from_record(record))

    def to_record(self, series: SeriesState[Action]) -> dict[str, Any]:
        if not isinstance(series, BurkozelSeriesState):
            raise TypeError("not a Burkozel series")
        return to_record(series.series)

    def replay_json(self, record: object) -> dict[str, Any]:
        return replay(record).to_json()


BURKOZEL = BurkozelGame()
