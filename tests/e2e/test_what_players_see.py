"""End to end: what players see and when.

Pings reach players in groups whose title holds HTML characters, forged ids of any
range are refused politely, a /cancel confirmation outlives moves, the last trick
stays on every screen until the next lead, and group chatter cannot hold up the table.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from bot.i18n import texts
from engine.burkozel import Action
from tests.support.fake_telegram import FakeUser
from tests.support.harness import (
    SLOW_GROUP,
    drained,
    hand_message,
    move_count,
    new_fake,
    open_game,
    play_one_move,
    running_bot,
    the_game,
    whose_turn,
)

TITLE = "Пики & Трефы <3 🃏"
NAME = "<b>Аня & Co</b> 😀"


async def test_pings_and_hands_reach_players_in_a_group_titled_with_html(tmp_path: Path) -> None:
    """Bug 1: the ping put the title into HTML unescaped and Telegram refused it."""
    rng = random.Random(1)
    async with new_fake() as fake:
        fake.enforce_limits = False
        anna, bob = fake.add_user(NAME), fake.add_user("Bob & <i>")
        group = fake.add_group(TITLE, members=[anna, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            assert app.delivery is not None
            await open_game(fake, group, [anna, bob])
            first = await fake.wait_for(lambda: whose_turn([anna, bob], group))
            assert isinstance(first, FakeUser)
            second = bob if first is anna else anna
            await fake.wait_for(lambda: drained(app))
            # Each hand came as a new message, which notified its player: no 🔔 on top.
            assert not any(
                (m.text or "").startswith("🔔") for u in (anna, bob) for m in u.dm.all_messages
            )
            # A minute passes before the first move: the second player, idle since the
            # start, is pinged when the turn comes to them.
            clock = app.service.settings.clock
            app.service.settings.clock = lambda: clock() + 60
            await play_one_move(fake, first, rng, group)
            await fake.wait_for(
                lambda: any(
                    (m.text or "").startswith("🔔") and TITLE in (m.text or "")
                    for m in second.dm.bot_messages()
                ),
                description="the idle player's ping, naming the group",
            )
            for _ in range(3):
                user = await fake.wait_for(lambda: whose_turn([anna, bob], group))
                await play_one_move(fake, user, rng, group)
            await fake.wait_for(lambda: drained(app))
            assert app.delivery.stats.errors == []
            # Players tapping away see their turn in the hand's edit; pings (messages that
            # notify, and cost a send and a delete) go only to someone who has been idle.
            for user in (anna, bob):
                pings = [m for m in user.dm.all_messages if (m.text or "").startswith("🔔")]
                assert len(pings) <= 1, [m.text for m in pings]
            table = next(m for m in group.bot_messages() if "Trump:" in (m.text or ""))
            assert NAME in table.text and "Bob & <i>" in table.text
        assert fake.invalid_requests == []


FORGED_IDS = ["9223372036854775808", "-1", "0", "-9223372036854775809", "1e3", "x", ""]


async def test_forged_out_of_range_ids_on_every_button_are_refused_politely(
    tmp_path: Path,
) -> None:
    """Bug 5: ``l:9223372036854775808:again`` raised OverflowError in storage."""
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            lobby = await open_game(fake, group, [alice, bob])
            game = await the_game(app, group.id)
            await fake.wait_for(lambda: drained(app))
            hand = hand_message(alice, group)
            assert hand is not None
            forged = [
                f"l:{bad}:{action}"
                for bad in FORGED_IDS
                for action in ("again", "join", "leave", "start", "bot-easy")
            ]
            forged += [f"t:{bad}:0:AS" for bad in FORGED_IDS]
            forged += [f"t:{game.id}:{bad}:AS" for bad in FORGED_IDS[:4]]
            forged += [f"p:{bad}:0:l:AS" for bad in FORGED_IDS]
            forged += [f"p:{game.id}:{bad}:l:AS" for bad in FORGED_IDS[:4]]
            forged += [f"x:{bad}:1" for bad in FORGED_IDS]
            internal = texts("en")("error.internal")
            for data in forged:
                for message in (lobby, hand):
                    answer = await (await alice.tap_raw(message, data)).wait()
                    assert answer.text != internal, data
                    assert answer.text, data  # a polite word, never silence
            after = await the_game(app, group.id)
            assert (after.version, after.status, after.seats) == (
                game.version,
                game.status,
                game.seats,
            )
        assert fake.invalid_requests == []


async def test_a_cancel_confirmation_stays_valid_after_moves(tmp_path: Path) -> None:
    """Bug 4: the confirmation carried the game version, so any move made it stale."""
    rng = random.Random(4)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            await open_game(fake, group, [alice, bob])
            game = await the_game(app, group.id)
            await alice.send(group, "/cancel")
            confirm = await fake.wait_for(
                lambda: next(
                    (m for m in group.bot_messages() if m.has_button("Yes, end the game")), None
                )
            )
            for _ in range(3):
                user = await fake.wait_for(lambda: whose_turn([alice, bob], group))
                await play_one_move(fake, user, rng, group)
            assert await move_count(app, game.id) == 3
            answer = await (await bob.tap(confirm, "Yes, end the game")).wait()
            assert not answer.show_alert, answer.text
            assert app.service is not None
            after = await app.service.storage.get_game(game.id)
            assert after is not None and after.status == "cancelled"
            await fake.wait_for(lambda: confirm.deleted, description="the question removed")
        assert fake.invalid_requests == []


async def test_every_card_played_reaches_the_group_and_every_other_player(
    tmp_path: Path,
) -> None:
    """Bug 2 (R8): the card that completed a trick was never shown to anyone else; the
    screens jumped from the trick in progress to "the table is empty"."""
    rng = random.Random(2)
    async with new_fake() as fake:
        fake.enforce_limits = False
        users = [fake.add_user(name) for name in ("Alice", "Bob", "Cat")]
        group = fake.add_group("Friends", members=users)
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            assert app.service is not None
            await open_game(fake, group, users)
            game = await the_game(app, group.id)
            for _ in range(12):  # four tricks of three
                user = await fake.wait_for(lambda: whose_turn(users, group))
                await play_one_move(fake, user, rng, group)
            await fake.wait_for(lambda: drained(app))
            names = {s.seat: s.name for s in game.seats}
            by_seat = {s.seat: next(u for u in users if u.id == s.user_id) for s in game.seats}
            logged = await app.service.storage.moves(game.id)
            assert len(logged) == 12
            for entry in logged:
                move = Action.from_json(entry.move)
                cards = " ".join(c.pretty() for c in move.cards)
                line = re.compile(
                    rf"^\s*{re.escape(names[move.seat])}: (leads|beats|discards) "
                    + r"\s*".join(re.escape(c.pretty()) + "★?" for c in move.cards)
                )
                for seat, user in by_seat.items():
                    if seat == move.seat:
                        continue
                    seen = [
                        ln
                        for t in user.dm.all_texts(False)
                        for ln in t.splitlines()
                        if line.match(ln)
                    ]
                    assert seen, f"{user.first_name} never saw {names[move.seat]} play {cards}"
                shown = [ln for t in group.all_texts(False) for ln in t.splitlines()]
                assert any(line.match(ln) for ln in shown), f"the group never saw {cards}"
            for user in users:
                texts_seen = user.dm.all_texts(False)
                tricks_taken = sum("Trick to " in t for t in texts_seen)
                assert tricks_taken, f"{user.first_name} was never told who took a trick"
        assert fake.invalid_requests == []


async def test_group_commands_during_play_do_not_hold_up_the_table(tmp_path: Path) -> None:
    """Bug 3: command answers shared the table's queue, so twenty /score from an onlooker
    delayed the table by over a minute. Answers to a chat's commands are bounded; those
    within the group's share go before the table's edits, so they hold it up
    only as long as they take to send."""
    rng = random.Random(3)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        onlooker, quiet = fake.add_user("Olga"), fake.add_user("Quentin")
        group = fake.add_group("Friends", members=[alice, bob, onlooker, quiet])
        async with running_bot(fake, tmp_path / "bot.sqlite3", limits=SLOW_GROUP) as app:
            await open_game(fake, group, [alice, bob])
            await onlooker.start_bot()
            await fake.wait_for(lambda: drained(app), timeout=20)
            table = next(m for m in group.bot_messages() if "Trump:" in (m.text or ""))
            before_flood = len(group.bot_messages())
            dm_before = len(onlooker.dm.bot_messages())
            for _ in range(10):
                await quiet.send(group, "/help")
            for _ in range(20):
                await onlooker.send(group, "/score")
            for _ in range(10):
                await onlooker.send(group, "/rules")
                await onlooker.send(group, "/help")
            await fake.wait_updates_confirmed()
            for _ in range(3):
                shown = len(table.history)
                user = await fake.wait_for(lambda: whose_turn([alice, bob], group))
                await play_one_move(fake, user, rng, group)
                # At most three answers and a pointer go first: four seconds at this pace.
                await fake.wait_for(
                    lambda s=shown: len(table.history) > s,
                    timeout=8,
                    description="the table to show the move despite the chatter",
                )
            await fake.wait_for(lambda: drained(app), timeout=30)
            answers = len(group.bot_messages()) - before_flood
            # Past the group's share, the onlooker (who has a private chat) got it there,
            # with one pointer in the group: one answer to each command, not one per repeat.
            private = len(onlooker.dm.bot_messages()) - dm_before
            assert answers <= 4 and private >= 1 and answers + private <= 6, (answers, private)
        assert fake.invalid_requests == []


async def test_pop_ups_speak_the_language_of_the_game_not_of_the_tappers_app(
    tmp_path: Path,
) -> None:
    """One screen, one language: the hand follows the group's language, so its pop-ups do
    too, whatever language the player's Telegram app is set to."""
    rng = random.Random(5)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice", language_code="ru")
        bob = fake.add_user("Bob", language_code="ru")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):  # the group speaks English
            await open_game(fake, group, [alice, bob])
            en = texts("en")
            user = await fake.wait_for(lambda: whose_turn([alice, bob], group))
            hand = hand_message(user, group)
            assert hand is not None
            answer = await (await user.tap_raw(hand, "p:1:0:q:AS")).wait()
            assert answer.text in (en.alert("error.forged"), en.alert("error.stale")), answer
            await play_one_move(fake, user, rng, group)
            other = bob if user is alice else alice
            answer = await (await other.tap_raw(hand_message(other, group), "t:1:999:AS")).wait()
            assert answer.text == en.alert("error.forged"), answer.text
        assert fake.invalid_requests == []


async def test_a_refused_tap_promises_a_new_keyboard_only_when_one_is_sent(
    tmp_path: Path,
) -> None:
    """A version the game never had is "not valid" and redraws nothing; a
    stale version forged on the current keyboard promises nothing (Telegram already shows
    the current one); a real old keyboard, whose redraw is still on its way, gets the
    promise, and the redraw comes."""
    rng = random.Random(3)
    async with new_fake() as fake:
        fake.enforce_limits = False
        anna, bob = fake.add_user(NAME, language_code="ru"), fake.add_user("Bob & <i>")
        group = fake.add_group(TITLE, members=[anna, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            assert app.delivery is not None
            await open_game(fake, group, [anna, bob])
            en = texts("en")
            await fake.wait_for(lambda: drained(app), timeout=30)
            mover = await fake.wait_for(lambda: whose_turn([anna, bob], group))
            other = bob if mover is anna else anna
            hand = hand_message(other, group)
            assert hand is not None
            game = await the_game(app, group.id)
            for version in (0, game.version + 1, 10**12):
                shown = len(hand.history)
                answer = await (await other.tap_raw(hand, f"t:{game.id}:{version}:AS")).wait()
                assert answer.text == en.alert("error.forged"), (version, answer.text)
                assert answer.show_alert
            # The other player's chat has no slot for a few seconds (as after a 429).
            clock = app.delivery.clock
            app.delivery._bucket(other.dm.id).paused_until = clock() + 6
            await play_one_move(fake, mover, rng, group)
            # The other hand's redraw waits for its chat's next slot: its old keyboard is
            # still what the player sees, so the promise is kept.
            old_button = next(b for row in hand.buttons for b in row if b.callback_data)
            assert hand_message(other, group) is hand and len(hand.history) == shown
            answer = await (await other.tap(hand, data=old_button.callback_data)).wait()
            assert answer.text == en.alert("error.stale"), answer.text
            await fake.wait_for(lambda: len(hand.history) > shown, timeout=15)
            # The same old data forged once the current keyboard is shown: no promise.
            assert old_button.callback_data not in [
                b.callback_data for row in hand.buttons for b in row
            ]
            answer = await (await other.tap_raw(hand, old_button.callback_data or "")).wait()
            assert answer.text == en.alert("error.stale_shown"), answer.text
            assert await move_count(app, game.id) == 1
        assert fake.invalid_requests == []
