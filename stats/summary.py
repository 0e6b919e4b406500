"""A finished series as per-seat results: places, teams and the numbers /stats adds up,
and the series' rating step (stats.ratings).

The bot hands the :class:`SeriesEnd` this builds to storage with the change that finishes
the game; storage records it and rates it (:meth:`SeriesEnd.rate`) in that transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.registry import BY_FORMAT, game_of_rules
from stats import ratings


class Seat(Protocol):
    """Who sat where (a stored game's seat)."""

    @property
    def seat(self) -> int: ...
    @property
    def user_id(self) -> int | None: ...
    @property
    def bot_level(self) -> str | None: ...
    @property
    def name(self) -> str: ...


@dataclass(frozen=True)
class SeatResult:
    """One seat's part in a finished series (what /stats adds up and /top rates)."""

    seat: int
    user_id: int | None
    bot_level: str | None
    name: str
    team: int  # seats with the same team are rated together (B5 pairs)
    place: int  # 0 = the winners; ties share a place
    won: bool
    deals: int
    points: int  # trick points over all deals
    penalties: int  # the series total (R13; deal wins in a Bura robber series)
    best_deal: int  # most trick points in one deal
    declarations_true: int = 0  # Bura D5
    declarations_false: int = 0
    combinations: int = 0  # Part C / D6-D8 shown

    @property
    def player(self) -> str:
        """The rating key: a person by id, a computer player by level."""
        return f"u{self.user_id}" if self.user_id is not None else f"ai:{self.bot_level}"


@dataclass(frozen=True)
class SeriesEnd:
    """A finished series: its game (``engine.registry``), deals and per-seat results."""

    game: str
    deals: int
    seats: tuple[SeatResult, ...]
    teams: str = "none"  # B5: 'none' | 'pairs'

    def rate(self, current: Mapping[str, ratings.Rated]) -> dict[str, ratings.Skill]:
        """The players' new ratings after this series: one openskill match, teams
        ranked by place (``current``: their ratings so far; a missing key starts afresh)."""
        entrants = [ratings.Entrant(r.player, r.team, r.place) for r in self.seats]
        return ratings.rate(entrants, current)


def _game_played(rules: Mapping[str, Any], record_format: str | None) -> str:
    played = BY_FORMAT.get(record_format) if record_format is not None else None
    return played.name if played is not None else game_of_rules(rules)


def higher_is_better(rules: Mapping[str, Any]) -> bool:
    """Whether a bigger series total wins: B4 credits and Bura robber series count wins."""
    return rules.get("scoring") == "winner_takes" or str(rules.get("series", "")).startswith(
        "robber"
    )


def teams_of(rules: Mapping[str, Any], players: int) -> tuple[int, ...]:
    """Each seat's team: B5 pairs sit opposite (0+2, 1+3); otherwise every seat alone."""
    if rules.get("teams") == "pairs" and players == 4:
        return (0, 1, 0, 1)
    return tuple(range(players))


def places(
    team_of: Sequence[int], totals: Sequence[int], winners: Sequence[int], higher: bool
) -> tuple[int, ...]:
    """Each seat's place: the winners 0, the rest by their team's total, ties sharing a
    place (dense ranking). Partners share their pair's total (B5), so one member speaks
    for the team."""
    won = set(winners)
    scores = {team_of[s]: totals[s] for s in range(len(totals))}
    rest = sorted({scores[team_of[s]] for s in range(len(totals)) if s not in won}, reverse=higher)
    return tuple(0 if s in won else 1 + rest.index(scores[team_of[s]]) for s in range(len(totals)))


def series_end(
    rules: Mapping[str, Any],
    seats: Sequence[Seat],
    deal_points: Sequence[Sequence[int]],
    deal_penalties: Sequence[Sequence[int]],
    winners: Sequence[int],
    moves: Sequence[Sequence[Mapping[str, Any]]] = (),
    record_format: str | None = None,
) -> SeriesEnd:
    """Per-seat results of a finished series from its deals' points and penalties; its
    game is the one whose record ``format`` is ``record_format``, else the one ``rules``
    names (``engine.registry.game_of_rules``).

    ``moves`` (each deal's move list, as recorded) count combinations shown (a move with
    ``"show"``) and Bura declarations (``"declare"``): a declaration is true when the
    declarer's deal did not go against them (no penalty, or a deal won in a robber
    series). Burkozel with base rules has neither, so they stay 0.
    """
    players = len(seats)
    higher = higher_is_better(rules)
    totals = [sum(p[s] for p in deal_penalties) for s in range(players)]
    team_of = teams_of(rules, players)
    place = places(team_of, totals, winners, higher)
    shown = [0] * players
    true_decl = [0] * players
    false_decl = [0] * players
    for d, deal_moves in enumerate(moves):
        for move in deal_moves:
            seat = move.get("seat")
            if type(seat) is not int or not 0 <= seat < players:
                continue
            if move.get("show"):
                shown[seat] += 1
            if move.get("declare") and d < len(deal_penalties):
                got = deal_penalties[d][seat]
                if (got > 0) if higher else (got == 0):
                    true_decl[seat] += 1
                else:
                    false_decl[seat] += 1
    won = set(winners)
    return SeriesEnd(
        game=_game_played(rules, record_format),
        deals=len(deal_penalties),
        teams="pairs" if len(set(team_of)) < players else "none",
        seats=tuple(
            SeatResult(
                seat=s.seat,
                user_id=s.user_id,
                bot_level=s.bot_level,
                name=s.name,
                team=team_of[s.seat],
                place=place[s.seat],
                won=s.seat in won,
                deals=len(deal_penalties),
                points=sum(p[s.seat] for p in deal_points),
                penalties=totals[s.seat],
                best_deal=max((p[s.seat] for p in deal_points), default=0),
                declarations_true=true_decl[s.seat],
                declarations_false=false_decl[s.seat],
                combinations=shown[s.seat],
            )
            for s in seats
        ),
    )
