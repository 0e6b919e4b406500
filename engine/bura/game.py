"""Bura behind the common game interface (``engine.game``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bura.actions import Action, action_from_json
from engine.bura.record import FORMAT, from_record, replay, to_record
from engine.bura.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, RULE_IDS, SWITCHES, BuraRules
from engine.bura.series import BuraSeries
from engine.game import SeriesState


class BuraGame:
    name = "bura"
    record_format = FORMAT
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    aliases: tuple[str, ...] = ("бура",)
    switches: Mapping[str, tuple[object, ...]] = SWITCHES
    rule_ids: Mapping[str, str] = RULE_IDS
    presets: Mapping[str, Mapping[str, object]] = PRESETS

    def rules_from_dict(self, data: Mapping[str, Any]) -> BuraRules:
        return BuraRules.from_dict(data)

    def new_series(
        self, players: int, rules: Mapping[str, Any] | None = None, first_dealer: int = 0
    ) -> BuraSeries:
        return BuraSeries(players, BuraRules.from_dict(rules or {}), first_dealer)

    def action_from_json(self, data: object) -> Action:
        return action_from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action.to_json()

    def from_record(self, record: object) -> BuraSeries:
        return from_record(record)

    def to_record(self, series: SeriesState[Action]) -> dict[str, Any]:
        if not isinstance(series, BuraSeries):
            raise TypeError("not a Bura series")
        return to_record(series)

    def replay_json(self, record: object) -> dict[str, Any]:
        return replay(record).to_json()


BURA = BuraGame()
