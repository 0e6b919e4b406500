"""A Bura series: dealers and leaders from deal to deal (D1, D9), stakes carried by
run-out void deals (D9), penalties or deal wins and the end of the series (D10)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.bura.actions import Action, DealResult
from engine.bura.deal import Deal
from engine.bura.rules import (
    BASE_RULES,
    PENALTY_LIMIT,
    ROBBER_MARGIN,
    ROBBER_TARGETS,
    Rules,
)
from engine.cards import Card
from engine.errors import GameOverError, IllegalMoveError


@dataclass(frozen=True, slots=True)
class SeriesResult:
    totals: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]


def deal_penalties(result: DealResult, players: int, rules: Rules) -> tuple[int, ...]:
    """D10: a deal's addition to the totals, multiplied by its stakes (zeros when void)."""
    add = [0] * players
    stakes = result.stakes
    if result.outcome == "void":
        return tuple(add)
    if result.outcome == "false_declaration":
        assert result.by is not None
        if rules.series == "penalty_12":
            add[result.by] = 4 * stakes
        else:
            add = [0 if s == result.by else stakes for s in range(players)]
        return tuple(add)
    assert result.winner is not None
    if rules.series == "penalty_12":
        return tuple(0 if s == result.winner else 2 * stakes for s in range(players))
    add[result.winner] = stakes
    return tuple(add)


def series_over(totals: Sequence[int], rules: Rules) -> tuple[bool, tuple[int, ...]]:
    """D10: (finished, winners) for a tally."""
    if rules.series == "penalty_12":
        if max(totals) < PENALTY_LIMIT:
            return False, ()
        best = min(totals)
        return True, tuple(s for s, t in enumerate(totals) if t == best)
    target = ROBBER_TARGETS[rules.series]
    for seat, total in enumerate(totals):
        rivals = [t for s, t in enumerate(totals) if s != seat]
        if total >= target and all(total - t >= ROBBER_MARGIN for t in rivals):
            return True, (seat,)
    return False, ()


class Series:
    """Deals one after another until D10 ends the series."""

    def __init__(self, players: int, rules: Rules = BASE_RULES, first_dealer: int = 0) -> None:
        rules.check_players(players)
        if not 0 <= first_dealer < players:
            raise IllegalMoveError(f"dealer must be a seat from 0 to {players - 1}")
        self.players = players
        self.rules = rules
        self.first_dealer = first_dealer
        self.deals: list[Deal] = []

    @property
    def current(self) -> Deal | None:
        if self.deals and not self.deals[-1].finished:
            return self.deals[-1]
        return None

    @property
    def results(self) -> list[DealResult]:
        """The finished deals' results (a deal may be played directly or through :meth:`apply`)."""
        return [d.result() for d in self.deals if d.finished]

    @property
    def penalties(self) -> list[tuple[int, ...]]:
        """Each finished deal's addition to the totals (D10)."""
        return [deal_penalties(r, self.players, self.rules) for r in self.results]

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(p[s] for p in self.penalties) for s in range(self.players))

    @property
    def finished(self) -> bool:
        return series_over(self.totals, self.rules)[0]

    def result(self) -> SeriesResult:
        totals = self.totals
        finished, winners = series_over(totals, self.rules)
        return SeriesResult(totals, finished, winners)

    def next_dealer(self) -> int:
        """D1/D9/D10: the first dealer; the same dealer after a void deal; the declarer
        after a false declaration; otherwise the seat before the deal's winner."""
        if not self.results:
            return self.first_dealer
        last = self.results[-1]
        if last.outcome == "void":
            return self.deals[-1].dealer
        if last.outcome == "false_declaration":
            assert last.by is not None
            return last.by
        assert last.winner is not None
        return (last.winner - 1) % self.players

    def next_stakes(self) -> int:
        """D9: each run-out void doubles the carried stakes until a counted deal; a deal
        void from the deal leaves them; даве doublings (D11) never carry."""
        stakes = 1
        for res in self.results:
            if res.outcome != "void":
                stakes = 1
            elif res.run_out:
                stakes *= 2
        return stakes

    def start_deal(self, deck: Sequence[Card], dealer: int | None = None) -> Deal:
        """Deal the next deal from ``deck``; ``dealer`` if given must agree with D1/D9."""
        if self.finished:
            raise GameOverError("the series is over")
        if self.current is not None:
            raise GameOverError("the current deal is not finished")
        expected = self.next_dealer()
        if dealer is not None and dealer != expected:
            raise IllegalMoveError(f"dealer must be seat {expected} (D1, D9), not {dealer}")
        deal = Deal.start(self.players, deck, expected, self.rules, self.next_stakes())
        self.deals.append(deal)
        return deal

    def apply(self, action: Action) -> None:
        deal = self.current
        if deal is None:
            raise GameOverError("no deal is being played")
        deal.apply(action)

    def current_deal(self) -> Deal | None:
        return self.current

    def close_record_deal(self) -> None:
        """End of a record's deal: a last trick with no declaration passed (D5)."""
        deal = self.current
        if deal is not None:
            deal.finish_record()
