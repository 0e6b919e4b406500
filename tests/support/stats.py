"""Series committed deal by deal as the bot does, for the stats' tests."""

from __future__ import annotations

import random
from collections.abc import Sequence

import engine
from engine import burkozel
from stats.summary import series_end
from storage import Backend, DealStart, DealTally, GameChange, Seat

CHAT = -100


DECK = tuple(engine.card_codes(engine.shuffled_deck(3)))


async def play_series(
    db: Backend,
    seats: Sequence[Seat],
    deals: Sequence[tuple[Sequence[int], Sequence[int]]],
    rules: dict[str, object] | None = None,
    chat: int = CHAT,
) -> int:
    """Commit a series deal by deal as the bot does; the finishing commit carries the
    series result. Returns the game id."""
    rules = rules or {}
    game = await db.create_game(chat, None, rules, seats[0].user_id or 1, tuple(seats), None)
    game = await db.commit(
        game.id, 0, GameChange(status="playing", first_dealer=0, new_deal=DealStart(0, 0, DECK))
    )
    for index, (points, penalties) in enumerate(deals):
        tally = DealTally(index, tuple(points), tuple(penalties))
        if index + 1 < len(deals):
            change = GameChange(tally=tally, new_deal=DealStart(index + 1, 0, DECK))
        else:
            totals = [sum(d[1][s] for d in deals) for s in range(len(seats))]
            winners = tuple(s for s, t in enumerate(totals) if t == min(totals))  # R14
            end = series_end(rules, seats, [d[0] for d in deals], [d[1] for d in deals], winners)
            change = GameChange(tally=tally, status="finished", winners=winners, series_end=end)
        game = await db.commit(game.id, game.version, change)
    return game.id


def engine_deals(players: int, seed: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """A whole random series played by the engine (R14), as (points, penalties) per deal."""
    rng = random.Random(seed)
    series = burkozel.Series(players, first_dealer=0)
    while not series.finished:
        deal = series.start_deal(engine.shuffled_deck(rng=rng))
        while not deal.finished:
            series.apply(rng.choice(deal.legal_actions()))
    return [(r.points, r.penalties) for r in series.results]
