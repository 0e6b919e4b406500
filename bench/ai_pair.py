"""Paired comparison of two ``bench/ai.py --deck-log`` files played on the same decks.

    .venv/bin/python bench/ai_pair.py base.jsonl variant.jsonl

Both runs must use the same opponent, deck offset and stock mode; decks are matched
by their order in the files (``bench/ai.py`` writes them in deck order with
``--jobs 1``), and only the decks both files hold are compared. Prints, per file, A's
deal wins, point margin and penalty edge, then the variant minus the base per deck,
with a normal 95% interval: the luck of the cards cancels out of the difference.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections.abc import Sequence


def load(path: str) -> list[dict[str, list[float]]]:
    with open(path) as f:
        return [json.loads(line)[4] for line in f if line.strip()]


def per_deck(deck: dict[str, list[float]]) -> tuple[float, float, float, float]:
    """(deal wins, point margin, penalty edge, mean time of A in ms) over a deck's rotations."""
    n = len(deck["a_points"])
    wins = sum(deck["a_win"]) / n  # as bench/ai.py counts them: ties are not wins
    margin = sum(a - b for a, b in zip(deck["a_points"], deck["b_points"], strict=True)) / n
    edge = sum(b - a for a, b in zip(deck["a_pen"], deck["b_pen"], strict=True)) / n
    times = deck["a_times"]
    return wins, margin, edge, 1000 * statistics.fmean(times) if times else 0.0


def ci(values: Sequence[float]) -> str:
    m = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0
    return f"{m:+7.3f} ± {half:.3f}"


def main(argv: Sequence[str]) -> int:
    base, variant = load(argv[0]), load(argv[1])
    n = min(len(base), len(variant))
    rows = [(per_deck(b), per_deck(v)) for b, v in zip(base[:n], variant[:n], strict=True)]
    print(f"{n} paired decks")
    for label, j in (("deal wins", 0), ("point margin", 1), ("penalty edge", 2)):
        b = [r[0][j] for r in rows]
        v = [r[1][j] for r in rows]
        scale = 100.0 if j == 0 else 1.0
        print(
            f"  {label:13s} base {scale * statistics.fmean(b):7.2f}"
            f"  variant {scale * statistics.fmean(v):7.2f}"
            f"  diff {ci([scale * (y - x) for x, y in zip(b, v, strict=True)])}"
        )
    tb = statistics.fmean(r[0][3] for r in rows)
    tv = statistics.fmean(r[1][3] for r in rows)
    print(f"  mean time of A per move: base {tb:.1f} ms, variant {tv:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
