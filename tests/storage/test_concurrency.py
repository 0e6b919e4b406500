"""Concurrent commits at the same version: exactly one wins, in one process or two."""

from __future__ import annotations

import asyncio
from pathlib import Path

from storage import GameChange, LoggedMove, OutboxOp, Seat, StaleVersionError, Storage
from storage.models import DealStart

SEATS = (Seat(0, 1, None, "A"), Seat(1, 2, None, "B"))
DECK = tuple(f"{r}{s}" for s in "SHDC" for r in ("6", "7", "8", "9", "J", "Q", "K", "10", "A"))


def _change(tag: str) -> GameChange:
    return GameChange(
        move=LoggedMove(0, {"seat": 1, "cards": [tag]}),
        outbox=(OutboxOp(-5, "send", {"by": tag}), OutboxOp(-5, "edit", {"by": tag}, role="t")),
    )


async def _race(a: Storage, b: Storage, game_id: int, version: int, round_: int) -> str:
    tags = (f"a{round_}", f"b{round_}")
    results = await asyncio.gather(
        a.commit(game_id, version, _change(tags[0])),
        b.commit(game_id, version, _change(tags[1])),
        return_exceptions=True,
    )
    winners = [t for t, r in zip(tags, results, strict=True) if not isinstance(r, Exception)]
    losers = [r for r in results if isinstance(r, Exception)]
    assert len(winners) == 1, results
    assert len(losers) == 1 and isinstance(losers[0], StaleVersionError), results
    return winners[0]


async def _check(storage: Storage, game_id: int, winners: list[str]) -> None:
    game = await storage.get_game(game_id)
    assert game is not None and game.version == 1 + len(winners)
    assert [m.move["cards"][0] for m in await storage.moves(game_id)] == winners
    # Only the winners' outbox rows exist: a loser wrote nothing at all.
    assert sorted(i.payload["by"] for i in await storage.pending(10**10)) == sorted(winners * 2)


async def _setup(storage: Storage) -> int:
    game = await storage.create_game(-5, None, {}, 1, SEATS, None)
    game = await storage.commit(game.id, 0, GameChange(new_deal=DealStart(0, 0, DECK)))
    return game.id


async def test_two_concurrent_commits_on_one_storage_exactly_one_wins(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "race.sqlite3")
    try:
        game_id = await _setup(storage)
        winners = [await _race(storage, storage, game_id, 1 + i, i) for i in range(20)]
        await _check(storage, game_id, winners)
    finally:
        await storage.close()


async def test_two_storage_instances_on_one_file_exactly_one_wins(tmp_path: Path) -> None:
    path = tmp_path / "race2.sqlite3"
    a = await Storage.open(path)
    b = await Storage.open(path)
    try:
        game_id = await _setup(a)
        winners = [await _race(a, b, game_id, 1 + i, i) for i in range(20)]
        assert {w[0] for w in winners} <= {"a", "b"}
        await _check(a, game_id, winners)
        await _check(b, game_id, winners)
    finally:
        await a.close()
        await b.close()


async def test_many_concurrent_commits_serialise_without_interleaving(tmp_path: Path) -> None:
    """Each coroutine retries on a stale version; the log ends with every move exactly once."""
    storage = await Storage.open(tmp_path / "many.sqlite3")
    try:
        game_id = await _setup(storage)

        async def player(tag: str) -> None:
            while True:
                game = await storage.get_game(game_id)
                assert game is not None
                try:
                    await storage.commit(game_id, game.version, _change(tag))
                    return
                except StaleVersionError:
                    await asyncio.sleep(0)

        tags = [f"p{i}" for i in range(30)]
        await asyncio.gather(*(player(t) for t in tags))
        moves = [m.move["cards"][0] for m in await storage.moves(game_id)]
        assert sorted(moves) == sorted(tags)
        assert await storage.outbox_size() == 2 * len(tags)
    finally:
        await storage.close()
