"""Scoring a finished deal: R13 penalties, B3 seats still in, B4 credits, B5 pairs,
and the Part C combination outcomes."""

from __future__ import annotations

from collections.abc import Sequence

from engine.burkozel.combinations import MOSCOW_SHOW
from engine.burkozel.rules import Rules

PLAYED = "played"


def penalties_for(points: Sequence[int]) -> tuple[int, ...]:
    """R13: 0 for every holder of the top score; else 2 / 4 / 6 by the threshold."""
    top = max(points)
    threshold = Rules.threshold(len(points))

    def penalty(score: int) -> int:
        if score == top:
            return 0
        if score >= threshold:
            return 2
        return 4 if score > 0 else 6

    return tuple(penalty(p) for p in points)


def sides(rules: Rules, seats_in: Sequence[int]) -> list[tuple[int, ...]]:
    """The scoring sides: the B5 pairs (0+2, 1+3), otherwise every seat still in (B3)."""
    if rules.teams == "pairs":
        return [(0, 2), (1, 3)]
    return [(s,) for s in seats_in]


def score_deal(
    points: Sequence[int],
    rules: Rules,
    seats_in: Sequence[int],
    outcome: str = PLAYED,
    shown_by: int | None = None,
    stakes: int = 1,
) -> tuple[tuple[int, ...], bool]:
    """Each seat's penalty (R13) or credit (B4) for a deal, and whether its top was shared.

    ``outcome`` is ``"played"`` or the combination that ended it (C1 ``"bura"``,
    C2 ``"moscow"``, won by ``shown_by``); ``stakes`` doubles B4 credits after a tie.
    Seats that are out (B3) get 0; partners (B5) get their pair's figure.
    """
    teams = sides(rules, seats_in)
    per_side: list[int]
    tied = False
    if outcome != PLAYED:
        assert shown_by is not None
        per_other = 6 if outcome == MOSCOW_SHOW else 4  # C1, C2
        won = [shown_by in side for side in teams]
        if rules.scoring == "winner_takes":  # B4: the holder is credited per other side
            per_side = [per_other * (len(teams) - 1) * stakes if w else 0 for w in won]
        else:
            per_side = [0 if w else per_other for w in won]
    else:
        scores = [sum(points[s] for s in side) for side in teams]
        if rules.scoring == "winner_takes":  # B4
            top = max(scores)
            tied = scores.count(top) > 1
            owed = penalties_for(scores)
            credit = 0 if tied else sum(owed) * stakes
            per_side = [credit if score == top else 0 for score in scores]
        else:
            per_side = list(penalties_for(scores))
            tied = scores.count(max(scores)) > 1
    result = [0] * len(points)
    for side, value in zip(teams, per_side, strict=True):
        for seat in side:
            result[seat] = value
    return tuple(result), tied
