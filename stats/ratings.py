"""Skill ratings with openskill's Plackett-Luce model.

Each finished series is one match: teams (single seats, or B5 pairs) ranked by their
series result, ties allowed. /top ranks people's games: storage rates no series with a
computer player (a computer would be keyed by its level, ``ai:hard``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from openskill.models import PlackettLuce

MODEL: Final = PlackettLuce()
INITIAL_MU: Final = MODEL.mu
INITIAL_SIGMA: Final = MODEL.sigma
SHOWN_AFTER: Final = 3
"""A player's rating is shown once they have this many rated series."""


@dataclass(frozen=True)
class Skill:
    mu: float = INITIAL_MU
    sigma: float = INITIAL_SIGMA
    series: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate /top shows: mu - 3 sigma (starts at 0)."""
        return self.mu - 3 * self.sigma


class Rated(Protocol):
    """A rating as the caller keeps it (a :class:`Skill`, or a stored rating)."""

    @property
    def mu(self) -> float: ...
    @property
    def sigma(self) -> float: ...
    @property
    def series(self) -> int: ...


@dataclass(frozen=True)
class Entrant:
    """One seat in a rated series: its rating key, team and place (0 = best)."""

    player: str
    team: int
    place: int


def rate(entrants: Sequence[Entrant], current: Mapping[str, Rated]) -> dict[str, Skill]:
    """The new rating of every player in the series.

    Teams are ranked by the place of their first member (partners share a place).
    A key that sits twice (two computer players of one level) is rated as two
    players starting from the same rating; it keeps the mean of their results.
    """
    teams: dict[int, list[int]] = {}
    for index, entrant in enumerate(entrants):
        teams.setdefault(entrant.team, []).append(index)
    if len(teams) < 2:
        raise ValueError("a rated series needs at least two teams")
    order = sorted(teams)
    prior = [current.get(e.player, Skill()) for e in entrants]
    match = [[MODEL.create_rating([prior[i].mu, prior[i].sigma]) for i in teams[t]] for t in order]
    ranks = [float(entrants[teams[t][0]].place) for t in order]
    rated = MODEL.rate(match, ranks=ranks)
    results: dict[str, list[tuple[float, float]]] = {}
    for t, team in zip(order, rated, strict=True):
        for i, after in zip(teams[t], team, strict=True):
            results.setdefault(entrants[i].player, []).append((after.mu, after.sigma))
    new: dict[str, Skill] = {}
    for player, values in results.items():
        before = current.get(player, Skill())
        new[player] = Skill(
            mu=sum(v[0] for v in values) / len(values),
            sigma=sum(v[1] for v in values) / len(values),
            series=before.series + 1,
        )
    return new
