"""The turn timer's reminder comes at two thirds of a person's turn, never sooner."""

from __future__ import annotations

from pathlib import Path

from bot.service import GameService, UserInfo
from storage import OutboxItem, open_storage

ALICE, BOB = UserInfo(1, "Alice"), UserInfo(2, "Bob")


async def _drain(service: GameService) -> list[OutboxItem]:
    items = await service.storage.pending(1e12, limit=10_000)
    for item in items:
        await service.storage.outbox_done(item.id)
    return items


def _pings(items: list[OutboxItem]) -> list[OutboxItem]:
    return [i for i in items if i.method == "send" and (i.role or "").startswith("ping:")]


async def test_a_tick_that_read_a_deadline_since_moved_on_does_not_hurry_the_next_player(
    tmp_path: Path,
) -> None:
    """A tick reads the due deadlines, then waits for each game's lock; meanwhile the move
    that was due may be made another way (the player's tap, another instance's tick).
    Under the lock it finds the next player's fresh deadline: that player must not get
    «hurry up, N seconds left» at the start of their turn."""
    storage = await open_storage(f"sqlite:{tmp_path / 'bot.sqlite3'}")
    try:
        now = [1_800_000_000.0]
        service = GameService(
            storage, bot_username="cards_bot", computer_pause=0, clock=lambda: now[0]
        )
        for user in (ALICE, BOB):
            await storage.upsert_user(user.id, user.name, None, None)
            await storage.set_user_started(user.id, True)
        game = await service.new_game(-100, "Group", None, ALICE)
        await service.join(game.id, BOB)
        started = await service.start(game.id, ALICE.id)
        deadline = started.deadline
        assert deadline is not None and deadline.remind_at is not None
        await _drain(service)

        await service.timers.on_deadline(game.id)  # the stale tick's turn at the lock
        after = await storage.get_game(game.id)
        assert after is not None and after.version == started.version
        assert after.deadline == deadline and not after.deadline.reminded
        assert _pings(await _drain(service)) == []

        now[0] = deadline.remind_at  # two thirds of the turn gone: now it is time
        await service.tick()
        reminded = await storage.get_game(game.id)
        assert reminded is not None and reminded.deadline is not None
        assert reminded.deadline.reminded
        assert len(_pings(await _drain(service))) == 1
    finally:
        await storage.close()
