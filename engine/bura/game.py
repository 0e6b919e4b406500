"""Bura behind the common game interface (``engine.game``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bura import reference
from engine.bura.actions import Action, action_from_json
from engine.bura.deal import Deal
from engine.bura.record import FORMAT, from_record, replay, to_record
from engine.bura.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, RULE_IDS, SWITCHES, Rules
from engine.bura.series import Series
from engine.game import DealState, SeriesState


class BuraReference:
    """engine/bura/reference.py for the deal states of :class:`BuraGame`."""

    def actors(self, deal: DealState[Action, Any, Any]) -> tuple[int, ...]:
        return reference.actors(_deal_of(deal))

    def legal_actions(self, deal: DealState[Action, Any, Any], seat: int) -> list[Action]:
        return reference.legal_actions(_deal_of(deal), seat)

    def position(self, deal: DealState[Action, Any, Any]) -> reference.Position:
        return reference.position(_deal_of(deal))

    def after(self, deal: DealState[Action, Any, Any], action: Action) -> reference.Position:
        return reference.after(_deal_of(deal), action)


def _deal_of(deal: DealState[Action, Any, Any]) -> Deal:
    if not isinstance(deal, Deal):
        raise TypeError("not a Bura deal")
    return deal


class BuraGame:
    name = "bura"
    record_format = FORMAT
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    aliases: tuple[str, ...] = ("бура",)
    switches: Mapping[str, tuple[object, ...]] = SWITCHES
    rule_ids: Mapping[str, str] = RULE_IDS
    presets: Mapping[str, Mapping[str, object]] = PRESETS
    reference = BuraReference()

    def rules_from_dict(self, data: Mapping[str, Any]) -> Rules:
        return Rules.from_dict(data)

    def new_series(
        self, players: int, rules: Mapping[str, Any] | None = None, first_dealer: int = 0
    ) -> Series:
        return Series(players, Rules.from_dict(rules or {}), first_dealer)

    def action_from_json(self, data: object) -> Action:
        return action_from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action.to_json()

    def from_record(self, record: object) -> Series:
        return from_record(record)

    def to_record(self, series: SeriesState[Action]) -> dict[str, Any]:
        if not isinstance(series, Series):
            raise TypeError("not a Bura series")
        return to_record(series)

    def replay_json(self, record: object) -> dict[str, Any]:
        return replay(record).to_json()


BURA = BuraGame()
