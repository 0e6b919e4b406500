"""A human plays a whole series alone against computer players."""

from __future__ import annotations

import random
from pathlib import Path

from engine import burkozel
from storage import Storage
from tests.support.harness import new_fake, open_game, play_until, running_bot


async def test_one_human_plays_a_whole_series_against_three_computers(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice")
        group = fake.add_group("Solo", members=[alice])
        async with running_bot(fake, db):
            lobby = await open_game(fake, group, [alice], start=False)
            await (await alice.tap(lobby, "🤖 + easy")).wait()
            await alice.send(group, "/addbot normal")
            await fake.wait_for(lambda: "Computer 2 (normal)" in lobby.text)
            # A lobby holds at most four: a fourth and fifth seat is refused politely.
            await (await alice.tap(lobby, "🤖 + hard")).wait()
            answer = await (await alice.tap(lobby, "🤖 + hard")).wait()
            assert answer.show_alert and "full" in answer.text
            await (await alice.tap(lobby, "▶️ Start")).wait()

            def over() -> bool:
                return any("series is over" in (m.text or "") for m in group.bot_messages())

            await play_until(fake, [alice], over, random.Random(11))
        assert fake.invalid_requests == []
    storage = await Storage.open(db)
    try:
        game = await storage.get_game(1)
        assert game is not None and game.status == "finished"
        assert [s.bot_level for s in game.seats] == [None, "easy", "normal", "hard"]
        report = burkozel.replay(await storage.export_record(1))
        assert report.finished and report.winners == game.winners
    finally:
        await storage.close()
