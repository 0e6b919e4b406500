"""End to end: Telegram did what was asked, and the bot never learnt it.

Telegram offers no idempotency: a send it accepted whose reply was lost (a kill, a
timeout) is sent again, and a delete that failed is tried again. The damage is kept
small: a ping is taken down when the turn it was for is played, even if a delete fails
once, and an older copy of a hand message left by a re-sent one goes when it is tapped.
"""

from __future__ import annotations

import random
from pathlib import Path

from tests.support.fake_telegram import FakeMessage, FakeUser
from tests.support.harness import (
    drained,
    hand_message,
    new_fake,
    open_game,
    play_one_move,
    running_bot,
    the_game,
    whose_turn,
)


def live_pings(user: FakeUser) -> list[str]:
    return [m.text or "" for m in user.dm.bot_messages() if (m.text or "").startswith("🔔")]


async def test_a_ping_goes_when_its_turn_is_played_even_if_a_delete_fails(
    tmp_path: Path,
) -> None:
    rng = random.Random(6)
    async with new_fake() as fake:
        fake.enforce_limits = False
        anna, bob = fake.add_user("Anna"), fake.add_user("Bob")
        group = fake.add_group("Pings", members=[anna, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            await open_game(fake, group, [anna, bob])
            first = await fake.wait_for(lambda: whose_turn([anna, bob], group))
            assert isinstance(first, FakeUser)
            second = bob if first is anna else anna
            # A minute passes before the first move: the second player, idle since the
            # start, gets a ping when the turn comes to them.
            clock = app.service.settings.clock
            app.service.settings.clock = lambda: clock() + 60
            await play_one_move(fake, first, rng, group)
            await fake.wait_for(lambda: live_pings(second), description="the idle player's ping")
            await fake.wait_for(lambda: drained(app))
            # The request to take it down fails once (nothing deleted): it is tried again.
            fake.fail_next("deleteMessage", 500, chat_id=second.id)
            await play_one_move(fake, second, rng, group)
            await fake.wait_for(lambda: drained(app))
            assert live_pings(second) == [], "a 🔔 for a turn already played stays up"
            assert any(f.method == "deleteMessage" for f in fake.injected_faults)
        assert fake.invalid_requests == []


async def test_an_older_copy_of_a_hand_left_by_a_lost_reply_goes_when_tapped(
    tmp_path: Path,
) -> None:
    rng = random.Random(7)
    async with new_fake() as fake:
        fake.enforce_limits = False
        anna, bob = fake.add_user("Anna"), fake.add_user("Bob")
        group = fake.add_group("Copies", members=[anna, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            lobby = await open_game(fake, group, [anna, bob], start=False)
            # Anna's hand is sent, Telegram shows it, and the bot is told it failed: it
            # sends the hand again, so Anna sees two copies.
            fake.fail_next("sendMessage", 500, chat_id=anna.id, after_effect=True)
            await (await anna.tap(lobby, "▶️ Start")).wait()
            await fake.wait_for(lambda: drained(app))
            game = await the_game(app, group.id)

            def hands() -> list[FakeMessage]:
                return [m for m in anna.dm.bot_messages() if "\nYour cards: " in (m.text or "")]

            assert len(hands()) == 2, "the fault did not leave a second copy"
            older = hands()[0]
            # The game moves on; then Anna taps a card on the older copy.
            user = await fake.wait_for(lambda: whose_turn([anna, bob], group))
            await play_one_move(fake, user, rng, group)
            await fake.wait_for(lambda: drained(app))
            card = older.buttons[0][0]
            assert card.callback_data is not None
            await (await anna.tap(older, data=card.callback_data)).wait()
            await fake.wait_for(lambda: drained(app))
            assert hands() == [hand_message(anna, group)], "the older copy is still there"
            assert app.service is not None
            ref = await app.service.storage.get_message(game.id, f"hand:{anna.id}")
            assert ref is not None and ref.message_id == hands()[0].message_id
        assert fake.invalid_requests == []
