"""Series picture: render time and PNG size (goal: under 50 ms, under 200 KB).

Run with ``python bench/picture.py`` (``--runs`` renders per case, default 30). Each case
is a finished series played by the engine with random moves (2, 3 and 4 players), drawn
with Russian and English labels; the first render (font loading) is reported apart.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.i18n import texts
from bot.views import picture
from engine import shuffled_deck
from engine.burkozel import Series

NAMES = ("Алиса <b>", "Bob & Co 🍺", "🤖 Компьютер 1 (сложный)", "Ёжик ♠♥♦♣")


def series_penalties(players: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    series = Series(players, first_dealer=0)
    while not series.finished:
        deal = series.start_deal(shuffled_deck(rng=rng))
        while not deal.finished:
            series.apply(rng.choice(deal.legal_actions()))
    return [r.penalties for r in series.results]


def case(players: int, language: str, seed: int) -> picture.PictureData:
    t = texts(language)
    deals = series_penalties(players, seed)
    names = NAMES[:players]
    totals = [sum(d[s] for d in deals) for s in range(players)]
    best = min(totals)
    ranked = sorted(set(totals))
    return picture.PictureData(
        title="Пики & Трефы <3 🃏",
        game=t("game.burkozel"),
        subtitle=t("picture.subtitle", deals=len(deals), date="30.11.2026 18:00"),
        axis=t("picture.axis"),
        standings_title=t("picture.standings"),
        names=names,
        deals=tuple(deals),
        standings=picture.standings(
            names, totals, [ranked.index(x) for x in totals], [x == best for x in totals]
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    started = time.perf_counter()
    picture.render(case(2, "ru", 0))
    print(f"first render (loads the fonts): {(time.perf_counter() - started) * 1000:.1f} ms")
    print("players lang deals   p50 ms   p95 ms   max ms   PNG bytes")
    for players in (2, 3, 4):
        for language in ("ru", "en"):
            data = case(players, language, players)
            times = []
            for _ in range(args.runs):
                png, seconds = picture.timed_render(data)
                times.append(seconds * 1000)
            times.sort()
            p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
            print(
                f"{players:>7} {language:>4} {len(data.deals):>5} {statistics.median(times):>8.1f}"
                f" {p95:>8.1f} {times[-1]:>8.1f} {len(png):>11}"
            )


if __name__ == "__main__":
    main()
