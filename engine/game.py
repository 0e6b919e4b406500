"""The one small interface every game implements (OpenSpiel style: a static game apart
from the states it starts), so the bot, storage and AI can play any registered game.

- :class:`Game`: the rules of one game: parse a rule set, start a series, read and
  write records.
- :class:`SeriesState`: deals one after another, with the tally.
- :class:`DealState`: one deal from a deck order: which seats may act now (several at
  once in Bura), their legal actions, applying an action (a refusal raises
  :class:`~engine.errors.IllegalMoveError` and changes nothing), a seat's view and the
  typed result.

The registry (``engine.registry``) finds a game by name or by a record's ``format``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from engine.cards import Card

# The seat of the public view (``DealState.public_view``): what everyone sees.
PUBLIC = -1

# The computer players' levels every game offers at a table (a game may have more).
COMPUTER_LEVELS = ("easy", "normal", "hard")

ActionT = TypeVar("ActionT")
ViewT_co = TypeVar("ViewT_co", covariant=True)
ResultT_co = TypeVar("ResultT_co", covariant=True)


class DealState(Protocol[ActionT, ViewT_co, ResultT_co]):
    @property
    def players(self) -> int: ...

    @property
    def finished(self) -> bool: ...

    def actors(self) -> tuple[int, ...]:
        """The seats that have a legal action now; empty once the deal is over."""
        ...

    def legal_actions(self, seat: int) -> list[ActionT]: ...

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds (what every other seat's view must hide)."""
        ...

    def apply(self, action: ActionT) -> object:
        """Play ``action`` or raise ``IllegalMoveError`` (nothing changes then)."""
        ...

    def view(self, seat: int) -> ViewT_co:
        """What ``seat`` may know, and nothing more."""
        ...

    def public_view(self) -> ViewT_co:
        """What everyone at and around the table sees (seat ``PUBLIC``): no hand."""
        ...

    def result(self) -> ResultT_co:
        """The typed deal result; raises ``GameOverError`` while the deal is played."""
        ...


class SeriesResultLike(Protocol):
    @property
    def totals(self) -> tuple[int, ...]: ...

    @property
    def finished(self) -> bool: ...

    @property
    def winners(self) -> tuple[int, ...]: ...


class SeriesState(Protocol[ActionT]):
    @property
    def players(self) -> int: ...

    @property
    def finished(self) -> bool: ...

    @property
    def totals(self) -> tuple[int, ...]: ...

    def current_deal(self) -> DealState[ActionT, Any, Any] | None: ...

    def start_deal(
        self, deck: Sequence[Card], dealer: int | None = None
    ) -> DealState[ActionT, Any, Any]:
        """Deal the next deal; ``dealer``, if given, must be the one the rules name."""
        ...

    def apply(self, action: ActionT) -> object: ...

    def result(self) -> SeriesResultLike: ...


class RulesLike(Protocol):
    """A game's rule set: one value per switch, the base game by default."""

    def to_dict(self) -> Mapping[str, object]:
        """The switches that differ from the base, as a record writes them."""
        ...

    def check_players(self, players: int) -> None:
        """Raise ``RuleSetError`` when these rules cannot be played by ``players``."""
        ...


class Reference(Protocol[ActionT]):
    """A game's rules as docs/RULES.md reads them (``engine/<game>/reference.py``): slow
    and plain, for tests/engine/test_reference.py to hold the game's own deal to. For any
    position of a deal state of the game: the same actors, the same legal actions in the
    same order, and after any legal action the same :meth:`position`."""

    def actors(self, deal: DealState[ActionT, Any, Any]) -> tuple[int, ...]: ...

    def legal_actions(self, deal: DealState[ActionT, Any, Any], seat: int) -> list[ActionT]: ...

    def position(self, deal: DealState[ActionT, Any, Any]) -> object:
        """What a move changes, as a value to compare (hands, stock, table, turn...)."""
        ...

    def after(self, deal: DealState[ActionT, Any, Any], action: ActionT) -> object:
        """The :meth:`position` that playing ``action`` (a legal one) leaves."""
        ...


class Game(Protocol[ActionT]):
    """A game's static description and entry points."""

    name: str
    record_format: str
    min_players: int
    max_players: int
    # Other names ``/newgame`` takes for it (``/newgame бура``).
    aliases: tuple[str, ...]
    # Each rule switch with its values, the base value first, in rule-book order, and
    # the RULES.md id of each.
    switches: Mapping[str, tuple[object, ...]]
    rule_ids: Mapping[str, str]
    # Named choices of switches (``/settings`` presets), in the order offered.
    presets: Mapping[str, Mapping[str, object]]

    @property
    def reference(self) -> Reference[ActionT]:
        """The rules as the rule book reads them, which the game's deal is held equal to."""
        ...

    def rules_from_dict(self, data: Mapping[str, Any]) -> RulesLike:
        """A rule set from its switches (``RuleSetError`` if one cannot be)."""
        ...

    def new_series(
        self, players: int, rules: Mapping[str, Any] | None = None, first_dealer: int = 0
    ) -> SeriesState[ActionT]:
        """A fresh series; ``rules`` as a record writes them (unknown switches refused)."""
        ...

    def action_from_json(self, data: object) -> ActionT: ...

    def action_to_json(self, action: ActionT) -> dict[str, Any]: ...

    def from_record(self, record: object) -> SeriesState[ActionT]: ...

    def to_record(self, series: SeriesState[ActionT]) -> dict[str, Any]:
        """The record of everything ``series`` (one of this game's) played so far."""
        ...

    def replay_json(self, record: object) -> dict[str, Any]:
        """Replay a record and return the CLI's JSON report (``RecordError`` if broken)."""
        ...
