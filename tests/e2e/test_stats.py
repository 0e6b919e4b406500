"""End-to-end: the series picture, /stats, /top, /history, /export, /resetstats,
/notify and /settings through the fake Telegram, with names and a title that need escaping."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

from PIL import Image

from engine import burkozel
from storage import Storage
from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from tests.support.harness import (
    last_reply,
    new_fake,
    open_game,
    play_until,
    roomy_chatter,
    running_bot,
)

TITLE = "Пики & Трефы <3 🃏"


def series_over(group: FakeChat) -> bool:
    return any("series is over" in (m.text or "") and m.buttons for m in group.bot_messages())


async def play_series_against_computer(
    fake: FakeTelegram, group: FakeChat, alice: FakeUser, seed: int
) -> FakeMessage:
    lobby = await open_game(fake, group, [alice], start=False)
    await (await alice.tap(lobby, "🤖 + easy")).wait()
    await fake.wait_for(lambda: "Computer 1" in lobby.text)
    await (await alice.tap(lobby, "▶️ Start")).wait()
    await play_until(fake, [alice], lambda: series_over(group), random.Random(seed))
    return await fake.wait_for(
        lambda: next(
            (m for m in group.bot_messages() if "series is over" in (m.text or "") and m.buttons),
            None,
        )
    )


async def test_a_finished_series_brings_one_picture_stats_rating_history_and_export(
    tmp_path: Path,
) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <&> 🂡")
        bob = fake.add_user("Bob")
        group = fake.add_group(TITLE, members=[alice, bob])
        async with running_bot(fake, db) as app:
            roomy_chatter(app)
            result = await play_series_against_computer(fake, group, alice, seed=5)
            # The result message itself carries the picture: one photo per series.
            assert result.photo is not None
            assert len([m for m in group.bot_messages() if m.photo is not None]) == 1
            assert len(result.photo) < 200_000
            image = Image.open(io.BytesIO(result.photo))
            assert image.format == "PNG" and image.size == (800, 460)
            assert "Alice <&> 🂡" in result.text  # the caption, unescaped by Telegram

            await alice.send(group, "/stats")
            stats = await last_reply(fake, group, "in this chat")
            assert "Alice <&> 🂡" in stats.text and "Series won:" in stats.text
            # Replying to someone shows theirs.
            await alice.send(group, "/stats", reply_to=await bob.send(group, "hi"))
            assert "No finished series yet" in (await last_reply(fake, group, "Bob")).text
            await alice.send_dm("/stats")
            dm = await fake.wait_for(
                lambda: next((m for m in alice.dm.bot_messages() if "all chats" in m.text), None)
            )
            assert "Burkozel" in dm.text

            # /stats keeps a series against a computer apart; /top ranks people's games only.
            assert "Burkozel, against computers" in stats.text
            assert "against computers" in dm.text
            await alice.send(group, "/top")
            top = await last_reply(fake, group, "Leaderboard")
            assert "Nobody is rated yet" in top.text and "Alice" not in top.text

            await alice.send(group, "/history")
            history = await last_reply(fake, group, "The last 1 series")
            assert "Alice <&> 🂡, 🤖 computer (easy)" in history.text
            # A forged button for a game of another chat (or none) fetches nothing.
            answer = await (await bob.tap_raw(history, "h:999")).wait()
            assert answer.show_alert
            await (await bob.tap(history, "📄 1")).wait()
            from_history = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if m.document), None)
            )
            await alice.send(group, "/export")
            await fake.wait_for(lambda: len([m for m in group.bot_messages() if m.document]) == 2)
        assert fake.invalid_requests == [] and fake.unsupported_requests == []

    # Both documents replay (python -m engine replay) to the announced tally.
    documents = [m.document for m in group.bot_messages() if m.document]
    assert documents[0] == from_history.document
    storage = await Storage.open(db)
    try:
        game = await storage.get_game(1)
        assert game is not None
        tallies = await storage.tallies(1)
    finally:
        await storage.close()
    # /stats as the service recorded it equals a count over the stored tallies.
    won = int(0 in (game.winners or ()))
    deals = len(tallies)
    points = sum(t.points[0] for t in tallies)
    penalties = sum(t.penalties[0] for t in tallies)
    assert f"Series won: {won} of 1" in stats.text
    assert (
        f"Deals: {deals} · average {points / deals:.1f} points a deal ·"
        f" {penalties / deals:.2f} penalties a deal · best deal"
        f" {max(t.points[0] for t in tallies)} points"
    ) in stats.text
    for name, content in documents:
        assert name.endswith("_g1.json") and name.startswith("Пики-Трефы-3")
        # The command line accepts the file as sent.
        path = tmp_path / name
        path.write_bytes(content)
        cli = subprocess.run(
            [sys.executable, "-m", "engine", "replay", str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(cli.stdout)["winners"] == list(game.winners or ())
        report = burkozel.replay(json.loads(content))
        assert report.finished and report.winners == game.winners
        for seat, total in zip(game.seats, report.totals, strict=True):
            assert f"{seat.name}: {total}" in result.text


async def test_export_during_a_deal_holds_only_finished_deals(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice")
        group = fake.add_group(TITLE, members=[alice])
        async with running_bot(fake, db) as app:
            roomy_chatter(app)
            lobby = await open_game(fake, group, [alice], start=False)
            await (await alice.tap(lobby, "🤖 + easy")).wait()
            await fake.wait_for(lambda: "Computer 1" in lobby.text)
            await (await alice.tap(lobby, "▶️ Start")).wait()
            await alice.send(group, "/export")
            await last_reply(fake, group, "no finished deal")  # deal 1 is still in play
            await play_until(
                fake,
                [alice],
                lambda: any("Deal 1 is over" in (m.text or "") for m in group.bot_messages()),
                random.Random(2),
            )
            await alice.send(group, "/export")
            message = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if m.document), None)
            )
            storage = await Storage.open(db)
            try:
                deals = await storage.deals(1)
                tallies = await storage.tallies(1)
            finally:
                await storage.close()
        assert fake.invalid_requests == []
    record = json.loads(message.document[1])
    assert len(record["deals"]) == len(tallies) >= 1
    running = [d for d in deals if d.deal_index >= len(tallies)]
    # The deal being played: its deck order (every hand) is nowhere in the file.
    for deal in running:
        assert all(d["deck"] != list(deal.deck) for d in record["deals"])
        assert ",".join(deal.deck[:8]) not in ",".join(
            c for d in record["deals"] for c in d["deck"]
        )
    report = burkozel.replay(record)
    assert list(report.totals) == [sum(t.penalties[s] for t in tallies) for s in range(2)]


async def test_resetstats_is_for_admins_with_a_confirmation_and_notify_toggles(
    tmp_path: Path,
) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob & <Co>")
        group = fake.add_group(TITLE, members=[alice, bob])
        group.admins.add(alice.id)
        async with running_bot(fake, db) as app:
            roomy_chatter(app)
            await play_series_against_computer(fake, group, alice, seed=3)
            await bob.send(group, "/resetstats")
            await last_reply(fake, group, "Only chat administrators")
            await alice.send(group, "/resetstats")
            question = await last_reply(fake, group, "Reset this chat's ratings")
            answer = await (await bob.tap(question, "🗑 Yes, reset")).wait()
            assert answer.show_alert and "administrators" in answer.text
            await alice.send(group, "/stats")
            assert "Series won" in (await last_reply(fake, group, "in this chat")).text
            await (await alice.tap(question, "🗑 Yes, reset")).wait()
            await last_reply(fake, group, "start again")
            await alice.send(group, "/stats")
            await fake.wait_for(
                lambda: "No finished series yet" in group.bot_messages()[-1].text,
                description="stats started again",
            )
            await alice.send(group, "/history")  # records are kept
            await last_reply(fake, group, "The last 1 series")

            # /notify: Bob is told in DM when the next lobby opens, once.
            await bob.send(group, "/notify")  # before Bob has opened a DM: a link to do so
            await last_reply(fake, group, "start=hi")
            await bob.start_bot()
            await fake.wait_for(lambda: bob.dm.bot_messages(), description="Bob's welcome")
            await bob.send(group, "/notify")
            await last_reply(fake, group, "I will tell you")
            await alice.send(group, "/newgame")
            told = await fake.wait_for(
                lambda: next(
                    (m for m in bob.dm.bot_messages() if "new game is open" in m.text), None
                )
            )
            assert f"«{TITLE}»" in told.text
            await alice.send(group, "/notify")
            await last_reply(fake, group, "I will tell you")
            await alice.send(group, "/notify")
            await last_reply(fake, group, "no message about the next game")

            # Pictures off (admins only): the next result comes as text.
            await bob.send(group, "/settings pictures off")
            await fake.wait_for(lambda: "Only chat administrators" in group.bot_messages()[-1].text)
            await alice.send(group, "/settings pictures off")
            await last_reply(fake, group, "without a picture")
        commands = {c["command"] for c in fake.get_commands("all_group_chats")}
        assert {"stats", "top", "history", "export", "notify", "resetstats", "settings"} <= commands
        assert fake.invalid_requests == []
    storage = await Storage.open(db)
    try:
        assert await storage.chat_pictures(group.id) is False
        assert await storage.ratings(group.id) == []
        assert len(await storage.recent_series(group.id)) == 1
    finally:
        await storage.close()


async def test_a_series_result_left_in_the_outbox_goes_out_with_its_picture_after_a_restart(
    tmp_path: Path,
) -> None:
    """The picture is drawn when the row is delivered, from stored tallies: a bot that
    stopped between finishing the series and sending the result still sends the photo."""
    from bot.views.picture import with_series_picture
    from storage import OutboxOp, Seat
    from tests.support.stats import engine_deals, play_series

    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice")
        group = fake.add_group(TITLE, members=[alice])
        storage = await Storage.open(db)
        try:
            seats = (
                Seat(0, alice.id, None, "Alice"),
                Seat(1, None, "hard", "🤖 Computer 1 (hard)"),
            )
            game_id = await play_series(storage, seats, engine_deals(2, 21), chat=group.id)
            await storage.upsert_chat(group.id, TITLE)
            op = OutboxOp(group.id, "send", {"text": "🏆 <b>The series is over!</b>"}, game_id)
            await storage.enqueue((with_series_picture(op),))
        finally:
            await storage.close()
        async with running_bot(fake, db) as app:
            roomy_chatter(app)
            photo = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if m.photo), None),
                description="the series picture",
            )
        assert photo.text == "🏆 The series is over!"
        assert Image.open(io.BytesIO(photo.photo)).format == "PNG"
        assert fake.invalid_requests == []
