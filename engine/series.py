"""A series of deals with the running penalty tally (R4, R13, R14)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.deal import Deal, DealResult, Move, TrickResult
from engine.errors import GameOverError, IllegalMoveError
from engine.rules import BASE_RULES, MAX_PLAYERS, MIN_PLAYERS, SERIES_LIMIT, RuleSet


@dataclass(frozen=True, slots=True)
class SeriesResult:
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]


class Series:
    """Deals played one after another until someone reaches 12 penalties (R14)."""

    def __init__(self, players: int, rules: RuleSet = BASE_RULES, first_dealer: int = 0) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalMoveError(f"Burkozel is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if not 0 <= first_dealer < players:
            raise IllegalMoveError(f"dealer must be a seat from 0 to {players - 1}")
        rules.require_supported()
        self.players = players
        self.rules = rules
        self.first_dealer = first_dealer
        self.deals: list[Deal] = []
        self.results: list[DealResult] = []

    @property
    def current(self) -> Deal | None:
        """The deal being played, or ``None`` between deals."""
        if self.deals and not self.deals[-1].finished:
            return self.deals[-1]
        return None

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r.penalties[s] for r in self.results) for s in range(self.players))

    @property
    def finished(self) -> bool:
        return any(t >= SERIES_LIMIT for t in self.totals)

    def result(self) -> SeriesResult:
        totals = self.totals
        finished = any(t >= SERIES_LIMIT for t in totals)
        best = min(totals)
        winners = tuple(s for s, t in enumerate(totals) if t == best) if finished else ()
        return SeriesResult(totals, finished, winners)

    def next_dealer(self) -> int:
        """R4: the first dealer, then the seat before the last trick's taker."""
        if not self.results:
            return self.first_dealer
        return (self.results[-1].last_trick - 1) % self.players

    def start_deal(self, deck: Sequence[Card], dealer: int | None = None) -> Deal:
        """Deal the next deal from ``deck``; ``dealer`` if given must agree with R4."""
        if self.finished:
            raise GameOverError("the series is over")
        if self.current is not None:
            raise GameOverError("the current deal is not finished")
        expected = self.next_dealer()
        if dealer is not None and dealer != expected:
            raise IllegalMoveError(f"dealer must be seat {expected} (R4), not {dealer}")
        deal = Deal.start(self.players, deck, expected, self.rules)
        self.deals.append(deal)
        return deal

    def apply(self, move: Move) -> TrickResult | None:
        deal = self.current
        if deal is None:
            raise GameOverError("no deal is being played")
        trick = deal.apply(move)
        if deal.finished:
            self.results.append(deal.result())
        return trick
