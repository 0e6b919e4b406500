"""Players who stop playing: reminded, auto-played, marked away, game abandoned."""

from __future__ import annotations

import random
from pathlib import Path

from storage import Storage
from tests.support.harness import (
    PLAYED,
    cards_in,
    hand_cards,
    hand_message,
    is_my_turn,
    new_fake,
    open_game,
    play_one_move,
    running_bot,
    whose_turn,
)


async def test_an_idle_player_is_reminded_autoplayed_then_marked_away(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        rng = random.Random(5)
        async with running_bot(fake, db, turn_timeout_seconds=2, away_after_autoplays=2):
            await open_game(fake, group, [alice, bob])

            def texts() -> list[str]:
                return [m.text for m in group.bot_messages()]

            def alice_to_act() -> bool:
                message = hand_message(alice)
                return message is not None and is_my_turn(message)

            # Alice plays whenever it is her turn; Bob never taps anything.
            while not any("marked away" in t for t in texts()):
                if alice_to_act():
                    await play_one_move(fake, alice, rng, strict=False)
                else:
                    await fake.wait_for(
                        lambda: alice_to_act() or any("marked away" in t for t in texts()),
                        timeout=15,
                    )
            assert any("Bob ran out of time" in t for t in texts())
            # Bob was reminded in his DM before his time ran out.
            assert any("left for your move" in t for t in bob.dm.all_texts())
        storage = await Storage.open(db)
        try:
            game = await storage.get_game(1)
            assert game is not None and game.status == "playing"
            bob_seat = next(s for s in game.seats if s.name == "Bob")
            assert bob_seat.away and bob_seat.autoplayed >= 2
            assert not next(s for s in game.seats if s.name == "Alice").away
        finally:
            await storage.close()


async def test_a_reminder_leaves_the_hand_the_player_is_looking_at_playable(
    tmp_path: Path,
) -> None:
    """A reminder changes nothing in the game: a card tapped on the keyboard drawn before
    it plays (or selects), instead of «This keyboard is out of date» and a second tap.
    (The tap is sent with the old button's data, as it is when the player taps before
    any redraw could reach them.)"""
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3", turn_timeout_seconds=9):
            await open_game(fake, group, [alice, bob])
            player = await fake.wait_for(lambda: whose_turn([alice, bob], group))
            hand = hand_message(player, group)
            assert hand is not None
            card = hand.buttons[0][0]
            await fake.wait_for(
                lambda: any("left for your move" in t for t in player.dm.all_texts()),
                timeout=15,
                description="the reminder (at two thirds of the turn's 9 s)",
            )
            assert card.callback_data is not None
            answer = await (await player.tap_raw(hand, card.callback_data)).wait(timeout=5)
            assert not answer.show_alert, answer.text
            if answer.text == PLAYED:
                await fake.wait_for(
                    lambda: not hand_cards(player, group) & cards_in(card.text),
                    description="the card to leave the hand",
                )
            else:
                await fake.wait_for(
                    lambda: any(
                        b.text.startswith("✅")
                        for b in (hand_message(player, group) or hand).buttons[0]
                    ),
                    description="the card to be selected",
                )


async def test_a_game_where_every_human_is_away_is_abandoned(tmp_path: Path) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice")
        group = fake.add_group("Solo", members=[alice])
        async with running_bot(fake, tmp_path / "bot.sqlite3", turn_timeout_seconds=2):
            lobby = await open_game(fake, group, [alice], start=False)
            await (await alice.tap(lobby, "🤖 + easy")).wait()
            await fake.wait_for(lambda: "Computer 1" in lobby.text)
            await (await alice.tap(lobby, "▶️ Start")).wait()
            await fake.wait_for(
                lambda: any("abandoned" in (m.text or "") for m in group.bot_messages()),
                timeout=30,
                description="the game to be abandoned",
            )
            # Her hand message now says the game is over, with no keyboard left.
            hand = next(m for m in alice.dm.bot_messages() if "deal 1" in m.history[0].text)
            await fake.wait_for(lambda: "abandoned" in hand.text and hand.buttons == [])
            assert any("abandoned" in t for t in alice.dm.all_texts())
