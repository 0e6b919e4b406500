"""A series of deals with the running tally (R4, R13, R14; B3 elimination, B4 credits)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.burkozel.deal import Action, Deal, DealResult, TrickResult
from engine.burkozel.rules import BASE_RULES, MAX_PLAYERS, MIN_PLAYERS, SERIES_LIMIT, Rules
from engine.cards import Card
from engine.errors import GameOverError, IllegalMoveError


@dataclass(frozen=True, slots=True)
class SeriesResult:
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]


class Series:
    """Deals played one after another until someone reaches 12 (R14), or under B3 until
    one seat is left; under B4 the totals are credits and the most credits win."""

    def __init__(self, players: int, rules: Rules = BASE_RULES, first_dealer: int = 0) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalMoveError(f"Burkozel is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if not 0 <= first_dealer < players:
            raise IllegalMoveError(f"dealer must be a seat from 0 to {players - 1}")
        rules.require_supported()
        rules.check_players(players)
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
    def elimination(self) -> bool:
        return self.rules.series_end == "elimination"

    def seats_in(self, after: int | None = None) -> tuple[int, ...]:
        """B3: the seats still playing after the first ``after`` deals (default: all so far)."""
        results = self.results if after is None else self.results[:after]
        if not self.elimination:
            return tuple(range(self.players))
        totals = [sum(r.penalties[s] for r in results) for s in range(self.players)]
        return tuple(s for s, t in enumerate(totals) if t < SERIES_LIMIT)

    def eliminated_after(self, index: int) -> tuple[int, ...]:
        """B3: the seats that dropped out after deal ``index`` (0-based, finished)."""
        before, after = self.seats_in(index), set(self.seats_in(index + 1))
        return tuple(s for s in before if s not in after)

    @property
    def finished(self) -> bool:
        if self.elimination:
            return len(self.seats_in()) <= 1
        return any(t >= SERIES_LIMIT for t in self.totals)

    def result(self) -> SeriesResult:
        totals = self.totals
        finished = self.finished
        if not finished:
            winners: tuple[int, ...] = ()
        elif self.elimination:
            winners = self.seats_in()  # B3: the last one left
        else:
            # R14: the fewest penalties win; B4: the most credits (ties share).
            best = max(totals) if self.rules.scoring == "winner_takes" else min(totals)
            winners = tuple(s for s, t in enumerate(totals) if t == best)
        return SeriesResult(totals, finished, winners)

    def next_dealer(self) -> int:
        """R4: the first dealer, then the seat before the last trick's taker; B3: the
        leader is the taker or the first seat still in after them, the dealer the seat
        still in before the leader."""
        if not self.results:
            return self.first_dealer
        taker = self.results[-1].last_trick
        seats = self.seats_in()
        if not seats:
            return taker  # pragma: no cover - a deal always leaves someone in
        leader = next(
            (taker + k) % self.players
            for k in range(self.players)
            if (taker + k) % self.players in seats
        )
        return seats[(seats.index(leader) - 1) % len(seats)]

    def next_stakes(self) -> int:
        """B4: after a deal tied for first place the next deal's credits are doubled."""
        if self.rules.scoring == "winner_takes" and self.results and self.results[-1].tied:
            return 2
        return 1

    def start_deal(self, deck: Sequence[Card], dealer: int | None = None) -> Deal:
        """Deal the next deal from ``deck``; ``dealer`` if given must agree with R4."""
        if self.finished:
            raise GameOverError("the series is over")
        if self.current is not None:
            raise GameOverError("the current deal is not finished")
        expected = self.next_dealer()
        if dealer is not None and dealer != expected:
            raise IllegalMoveError(f"dealer must be seat {expected} (R4), not {dealer}")
        deal = Deal.start(
            self.players,
            deck,
            expected,
            self.rules,
            seats_in=self.seats_in(),
            stakes=self.next_stakes(),
        )
        self.deals.append(deal)
        return deal

    def apply(self, move: Action) -> TrickResult | None:
        deal = self.current
        if deal is None:
            raise GameOverError("no deal is being played")
        trick = deal.apply(move)
        if deal.finished:
            self.results.append(deal.result())
        return trick
