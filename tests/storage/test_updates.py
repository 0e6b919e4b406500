"""Storage contract (both backends): a move's commit, and exactly-once updates.

PostgreSQL makes a plain change (no status, tally or rules: a move, a deadline, the seats)
and most small writes as one statement each, with the update being handled recorded by
that same statement (storage/postgres/writes.py); these check that such writes keep the
contract: all or nothing, version-checked, and a re-delivered update never applied twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import engine
from storage import (
    CURRENT_UPDATE,
    Backend,
    Deadline,
    DealStart,
    DuplicateUpdateError,
    GameChange,
    LoggedMove,
    OutboxOp,
    Seat,
    StaleVersionError,
    StorageError,
    UpdateClaim,
)

SEATS = (Seat(0, 11, None, "Ann"), Seat(1, None, "easy", "Bot"), Seat(2, 12, None, "Bob"))
DECK = tuple(engine.card_codes(engine.shuffled_deck(7)))


@contextmanager
def handling(update_id: int) -> Iterator[UpdateClaim]:
    """As the bot's middleware: writes made inside record ``update_id`` (bot/middlewares/updates.py)."""
    claim = UpdateClaim(update_id)
    token = CURRENT_UPDATE.set(claim)
    try:
        yield claim
    finally:
        CURRENT_UPDATE.reset(token)


async def _playing(db: Backend) -> int:
    game = await db.create_game(-5, None, {}, 11, SEATS, None)
    await db.commit(game.id, 0, GameChange(status="playing", new_deal=DealStart(0, 0, DECK)))
    return game.id


async def test_a_change_without_a_status_writes_every_part_and_returns_the_game(
    db: Backend,
) -> None:
    game_id = await _playing(db)
    seats = (Seat(0, 11, None, "Ann", away=True, autoplayed=1), Seat(1, 12, None, "Bob"))
    move = {"seat": 0, "cards": [DECK[0]]}
    ops = tuple(OutboxOp(-5, "send", {"text": str(n)}) for n in range(3))
    game = await db.commit(
        game_id,
        1,
        GameChange(
            seats=seats,
            new_deal=DealStart(1, 1, DECK),
            move=LoggedMove(1, move),
            deadline=Deadline(1, 50.0, 40.0),
            first_dealer=1,
            outbox=ops,
        ),
    )
    assert (game.version, game.status, game.seats, game.first_dealer) == (2, "playing", seats, 1)
    assert game.deadline == Deadline(1, 50.0, 40.0)
    assert await db.get_game(game_id) == game  # the returned game is the stored one
    assert await db.deals(game_id) == [DealStart(0, 0, DECK), DealStart(1, 1, DECK)]
    assert await db.moves(game_id) == [LoggedMove(1, move)]
    # Queued in order, under the game.
    pending = await db.pending(now=10**10)
    assert [(i.payload["text"], i.game_id) for i in pending] == [
        (str(n), game_id) for n in range(3)
    ]

    # Without seats the stored ones come back; no seats at all is a valid change too.
    game = await db.commit(game_id, 2, GameChange(deadline=None))
    assert (game.version, game.seats, game.deadline) == (3, seats, None)
    game = await db.commit(game_id, 3, GameChange(seats=()))
    assert game.seats == () and await db.get_game(game_id) == game


async def test_a_stale_or_failing_move_writes_nothing(db: Backend) -> None:
    game_id = await _playing(db)
    before = await db.get_game(game_id)
    change = GameChange(
        seats=SEATS[:1],
        move=LoggedMove(0, {"seat": 0, "cards": [DECK[0]]}),
        outbox=(OutboxOp(-5, "send", {"text": "x"}),),
    )
    with pytest.raises(StaleVersionError, match="version 1, not 0"):
        await db.commit(game_id, 0, change)
    with pytest.raises(StorageError, match="constraint"):
        # deal 5 was never started: the move log's foreign key refuses the whole change
        await db.commit(game_id, 1, GameChange(seats=(), move=LoggedMove(5, {"seat": 0})))
    assert await db.get_game(game_id) == before
    assert await db.moves(game_id) == []
    assert await db.outbox_size() == 0


async def test_an_update_is_applied_once_however_often_it_is_delivered(db: Backend) -> None:
    game_id = await _playing(db)
    move = LoggedMove(0, {"seat": 0, "cards": [DECK[0]]})
    with handling(7):
        game = await db.commit(game_id, 1, GameChange(move=move))
    # Re-delivered: whether its version check passes or not, it changes nothing.
    for version in (1, 2):
        with handling(7), pytest.raises(DuplicateUpdateError):
            await db.commit(game_id, version, GameChange(move=move))
    assert await db.get_game(game_id) == game
    assert await db.moves(game_id) == [move]

    with handling(8):
        await db.enqueue((OutboxOp(-5, "send", {"text": "once"}),))
    with handling(8), pytest.raises(DuplicateUpdateError):
        await db.enqueue((OutboxOp(-5, "send", {"text": "once"}),))
    assert await db.outbox_size() == 1

    # An update refused as stale recorded nothing: its next delivery is applied.
    with handling(9), pytest.raises(StaleVersionError):
        await db.commit(game_id, 1, GameChange(move=move))
    with handling(9) as claim:
        await db.set_message(game_id, "table", -5, 42)
    assert claim.claimed
    # One claim per update: later writes of the same handling go through.
    with handling(10):
        await db.set_message(game_id, "table", -5, 43)
        await db.forget_message(game_id, "table")
    assert await db.get_message(game_id, "table") is None


async def test_catch_up_returns_the_moves_logged_after_a_version(db: Backend) -> None:
    game_id = await _playing(db)  # version 1: dealt, no move logged
    moves = [LoggedMove(0, {"seat": n % 2, "cards": [DECK[n]]}) for n in range(3)]
    for n, move in enumerate(moves):
        game = await db.commit(game_id, 1 + n, GameChange(move=move))
    assert await db.catch_up(game_id, 1) == (game, moves)
    assert await db.catch_up(game_id, 3) == (game, moves[2:])
    assert await db.catch_up(game_id, 4) == (game, [])
    assert await db.catch_up(game_id, 0) is None  # version 1 logged no move
    assert await db.catch_up(game_id + 1, 0) is None
