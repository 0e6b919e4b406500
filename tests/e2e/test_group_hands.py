"""The hand inside the group: «🂠 My cards» under the table shows a seated player their
private hand as an ephemeral message in the group (only they see it), taps on it play and
edit it in place, and the private hand stays the durable copy.

Through the fake Bot API, whose ephemeral messages follow the Bot API text (a bot that
is not an administrator may send one only within 15 s of the player's tap; delivery is
not guaranteed)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import bot.service.screens
from storage import Storage
from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from tests.support.harness import (
    PLAYED,
    STALE,
    cards_in,
    current_deal,
    hand_cards,
    hand_message,
    is_pick,
    new_fake,
    open_bura,
    open_game,
    running_bot,
    whose_turn,
)

MY_CARDS = "🂠 My cards"


def table_message(group: FakeChat) -> FakeMessage:
    found = [m for m in group.bot_messages() if m.has_button(MY_CARDS)]
    assert found, "no table with «My cards»"
    return found[-1]


async def show_in_group(fake: FakeTelegram, user: FakeUser, group: FakeChat) -> str | None:
    """``user`` taps «🂠 My cards»; the answer's text (None: no text, the hand came)."""
    answer = await (await user.tap(table_message(group), MY_CARDS)).wait()
    assert not answer.show_alert, answer.text
    return answer.text


def in_step(user: FakeUser, group: FakeChat) -> bool:
    """The user's copy in the group shows exactly what their private hand shows."""
    copy, private = group.last_ephemeral(user), hand_message(user, group)
    return (
        copy is not None
        and private is not None
        and copy.text == private.text
        and copy.buttons == private.buttons
    )


async def next_mover(
    fake: FakeTelegram, players: list[FakeUser], group: FakeChat, deal: int
) -> FakeUser | None:
    """Whose turn it is in deal ``deal`` once every player's copy is in step with the game;
    None once another deal is on."""
    user = await fake.wait_for(
        lambda: current_deal(players, group) != deal or whose_turn(players, group),
        description="someone's turn",
    )
    if not isinstance(user, FakeUser):
        return None
    for player in players:
        await fake.wait_for(lambda p=player: in_step(p, group), description="copies in step")
    return user


async def one_move(
    fake: FakeTelegram, user: FakeUser, hand: FakeMessage, rng: random.Random
) -> str:
    """Tap cards and an action on ``hand`` (the private hand or its copy in the group) as
    a person would, until a tap is answered «Played.»; the button that made the move."""
    while True:
        before = len(hand.history)
        below = [b for row in hand.buttons[1:] for b in row if b.callback_data]
        actions = [b for b in below if not is_pick(b.callback_data)]
        selecting = any(b.text.startswith("✅") for b in hand.buttons[0])
        if actions and (selecting or rng.random() < 0.5):
            tapped = rng.choice(actions)
        else:
            cards = [b for b in hand.buttons[0] if not b.text.startswith("✅")]
            assert cards, hand.text
            tapped = rng.choice(cards)
        answer = await (await user.tap(hand, data=tapped.callback_data)).wait()
        assert not answer.show_alert, answer.text
        if answer.text == PLAYED:
            return tapped.text
        await fake.wait_for(lambda: len(hand.history) > before, description="the redraw")


@pytest.mark.parametrize("admin", [False, True], ids=["bot-not-admin", "bot-admin"])
async def test_a_deal_played_through_hands_in_the_group(
    tmp_path: Path, admin: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every turn pings (no «looking at their hand» grace): at each turn, with an
    # administrator bot and the chat's setting, the hand comes by itself.
    monkeypatch.setattr(bot.service.screens, "PING_AFTER_IDLE", -1.0)
    db = tmp_path / "bot.sqlite3"
    rng = random.Random(36)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <b>", username="alice")
        bob = fake.add_user("Bob & 🂡")
        carol = fake.add_user("Carol")  # watches
        group = fake.add_group("Friends <&> 🃏", members=[alice, bob, carol])
        players = [alice, bob]
        async with running_bot(fake, db) as app:
            if admin:
                fake.set_bot_admin(group)
                group.admins.add(alice.id)
                await alice.send(group, "/settings")
                menu = await fake.wait_for(
                    lambda: next(iter(group.bot_messages_containing("Cards in the group")), None)
                )
                assert "on a tap of «My cards»" in menu.text  # the default
                await (await alice.tap(menu, "🂠 on a tap of «My cards»")).wait()
                await fake.wait_for(lambda: "also by themselves at each turn" in menu.text)
            await open_game(fake, group, players)
            await fake.wait_for(
                lambda: any(m.has_button(MY_CARDS) for m in group.bot_messages()),
                description="the table with «My cards»",
            )

            # Someone not seated: a short answer, no hand.
            answer = await (await carol.tap(table_message(group), MY_CARDS)).wait()
            assert answer.text == "You are not playing in this game: no cards of yours here."
            assert group.ephemerals_for(carol) == []

            # Alice's first copy is lost on the way; tapping again brings it back.
            fake.lose_ephemeral(alice)
            assert await show_in_group(fake, alice, group) is None
            assert group.last_ephemeral(alice) is None
            assert await show_in_group(fake, alice, group) is None
            await fake.wait_for(lambda: in_step(alice, group), description="Alice's copy")
            assert await show_in_group(fake, bob, group) is None
            await fake.wait_for(lambda: in_step(bob, group), description="Bob's copy")
            # Each sees their own copy only, and nobody else does.
            assert all(m.receiver is alice for m in group.view(alice) if m.is_ephemeral)
            assert not any(m.is_ephemeral for m in group.view(carol))

            played: list[str] = []
            where: list[str] = []
            stale_checked = False
            while current_deal(players, group) == 1:
                user = await next_mover(fake, players, group, 1)
                if user is None:
                    break
                copy = group.last_ephemeral(user)
                assert copy is not None
                if rng.random() < 0.65:
                    hand, place = copy, "group"
                else:
                    hand = hand_message(user, group)  # type: ignore[assignment]
                    place = "private"
                version_before = copy.buttons[0][0].callback_data
                label = await one_move(fake, user, hand, rng)
                played.append(label)
                where.append(place)
                # The private hand shows the move before the next turn is looked for.
                gone = cards_in(label)
                await fake.wait_for(
                    lambda g=gone: (
                        not (hand_cards(user, group) & g) or current_deal(players, group) != 1
                    ),
                    description="the hand to show the move",
                )
                if not stale_checked and place == "group":
                    # The copy's keyboard from before the move: refused, nothing changes.
                    stale_checked = True
                    moves = len(played)
                    answer = await (await user.tap_raw(copy, version_before or "")).wait()
                    assert answer.show_alert
                    forged = re.sub(r":[^:]+$", ":ZZ", version_before or "")
                    answer = await (await user.tap_raw(copy, forged)).wait()
                    assert answer.show_alert
                    assert len(played) == moves

            assert "group" in where and "private" in where
            await fake.wait_for(lambda: group.bot_messages_containing("Deal 1 is over"))
            assert stale_checked
            for player in players:
                for message in group.ephemerals_for(player):
                    assert message.receiver is player
                    assert "Your cards" in (message.text or "") or "deal" in (message.text or "")
            copies = {
                user.first_name: len(
                    [
                        r
                        for r in fake.requests_for("sendMessage")
                        if r.ok
                        and (r.params.get("ephemeral_message_parameters") or {}).get(
                            "receiver_user_id"
                        )
                        == user.id
                    ]
                )
                for user in players
            }
            if admin:
                # The hand came by itself at their turns: more copies than taps on «My cards».
                assert copies["Alice <b>"] > 2 and copies["Bob & 🂡"] > 1, copies
                # One copy on screen at a time: each new one replaced the one before.
                assert len(group.ephemerals_for(alice)) == 1
            else:
                assert copies == {"Alice <b>": 2, "Bob & 🂡": 1}, copies
            assert app.service is not None
        assert fake.invalid_requests == []
    storage = await Storage.open(db)
    try:
        record = await storage.export_record(1)
    finally:
        await storage.close()
    logged = record["deals"][0]["moves"]
    assert len(logged) == len(played), (len(logged), played)


async def test_score_rules_stats_help_are_answered_to_the_asker_alone(tmp_path: Path) -> None:
    """Commands the bot marks is_ephemeral, sent so by the asker's app, are answered in the
    group to the asker alone; the same command typed as a plain message is answered as
    before (in the group, within its share)."""
    async with new_fake() as fake:
        fake.enforce_limits = False
        fake.ephemeral_commands = True
        alice = fake.add_user("Alice <b>", language_code="ru")
        bob = fake.add_user("Bob & 🂡")
        carol = fake.add_user("Carol <i> & 🃏")
        group = fake.add_group("Друзья <&> 🃏", members=[alice, bob, carol])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            listed = fake.get_commands("all_group_chats")
            alone = sorted(c["command"] for c in listed if c.get("is_ephemeral"))
            assert alone == ["help", "rules", "score", "stats"]
            await open_game(fake, group, [alice, bob])
            await fake.wait_for(lambda: any(m.has_button(MY_CARDS) for m in group.bot_messages()))
            seen_by_all = len(group.messages)
            for command in ("/score", "/rules", "/stats", "/help"):
                before = len(group.ephemerals_for(carol))
                asked = await carol.send(group, command)
                assert asked.is_ephemeral
                await fake.wait_for(
                    lambda n=before: len(group.ephemerals_for(carol)) > n,
                    description=f"the answer to {command}",
                )
            answers = [m.text or "" for m in group.ephemerals_for(carol)]
            assert "My cards" in answers[-1] and "answered to you alone" in answers[-1]
            assert answers[0] == "No games have been played here yet."  # /score, first deal
            assert "📊 Carol <i> & 🃏 in this chat" in answers[2]  # /stats, the name as typed
            assert group.ephemerals_for(alice) == group.ephemerals_for(bob) == []
            assert not any(m.is_ephemeral for m in group.view(bob))
            assert len(group.messages) == seen_by_all  # nothing the whole group sees
        assert fake.invalid_requests == []


async def test_a_copy_shown_before_a_restart_is_edited_again_once_tapped(tmp_path: Path) -> None:
    """The copies are kept in memory only: after a restart the bot does not know Alice's,
    and a move leaves it behind. Her next tap on it (a stale one, if the game moved) is
    refused as any stale tap is, and the copy is adopted and brought up to date."""
    db = tmp_path / "bot.sqlite3"
    rng = random.Random(5)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        players = [alice, bob]
        async with running_bot(fake, db):
            await open_game(fake, group, players)
            await fake.wait_for(lambda: any(m.has_button(MY_CARDS) for m in group.bot_messages()))
            assert await show_in_group(fake, alice, group) is None
            await fake.wait_for(lambda: in_step(alice, group))
        async with running_bot(fake, db):
            copy = group.last_ephemeral(alice)
            assert copy is not None
            mover = await fake.wait_for(lambda: whose_turn(players, group))
            assert isinstance(mover, FakeUser)
            before = copy.text
            private = hand_message(mover, group)
            assert private is not None
            await one_move(fake, mover, private, rng)  # in the private chat
            await fake.wait_for(lambda: hand_message(alice, group).text != before)  # type: ignore[union-attr]
            assert copy.text == before  # left behind: this bot does not know it
            answer = await (await alice.tap(copy, index=(0, 0))).wait()
            assert answer.show_alert and answer.text == STALE
            await fake.wait_for(lambda: in_step(alice, group), description="the copy adopted")
            assert group.last_ephemeral(alice) is copy
        assert fake.invalid_requests == []


async def test_a_game_ended_leaves_each_copy_saying_so_without_buttons(tmp_path: Path) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends <&> 🃏", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            await open_game(fake, group, [alice, bob])
            await fake.wait_for(lambda: any(m.has_button(MY_CARDS) for m in group.bot_messages()))
            assert await show_in_group(fake, alice, group) is None
            await fake.wait_for(lambda: in_step(alice, group))
            copy = group.last_ephemeral(alice)
            assert copy is not None
            await bob.send(group, "/cancel")
            question = await fake.wait_for(
                lambda: next(iter(group.bot_messages_containing("End the current game")), None)
            )
            await (await bob.tap(question, "Yes, end the game")).wait()
            await fake.wait_for(
                lambda: copy.text == "🛑 The game in «Friends <&> 🃏» was cancelled.",
                description="the copy's last edit",
            )
            assert copy.reply_markup is None
            await fake.wait_for(
                lambda: not any(m.has_button(MY_CARDS) for m in group.bot_messages()),
                description="the table without «My cards» once the game is over",
                timeout=30,  # behind the closing's other edits, paced under a loaded machine
            )
        assert fake.invalid_requests == []


async def test_bura_moves_played_on_the_copies_in_the_group(tmp_path: Path) -> None:
    """The copy is the game's own hand screen whatever the game: Bura's hands (its hints,
    the trick taken, its buttons) come into the group the same, and a move played on a copy
    is logged once and shown in both places."""
    db = tmp_path / "bot.sqlite3"
    rng = random.Random(362)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <b>", username="alice")
        bob = fake.add_user("Bob & 🂡")
        group = fake.add_group("Бура <&> 🃏", members=[alice, bob])
        players = [alice, bob]
        async with running_bot(fake, db) as app:
            assert app.service is not None
            await open_bura(fake, group, players)
            await fake.wait_for(
                lambda: any(m.has_button(MY_CARDS) for m in group.bot_messages()),
                description="the table with «My cards»",
            )
            for user in players:
                assert await show_in_group(fake, user, group) is None
                await fake.wait_for(lambda u=user: in_step(u, group), description="a copy")

            # A deal whose cards hold a combination is dealt again at once (D-rules): the
            # moves are played in whichever deal is on when the copies came.
            deal = current_deal(players, group)
            played = 0
            cards_played: list[set[str]] = []
            while played < 6 and current_deal(players, group) == deal:
                user = await next_mover(fake, players, group, deal)
                if user is None:
                    break
                copy = group.last_ephemeral(user)
                assert copy is not None and "Your cards" in copy.text
                label = await one_move(fake, user, copy, rng)
                played += 1
                gone = cards_in(label)
                if gone:
                    cards_played.append(gone)
                await fake.wait_for(
                    lambda g=gone, u=user: (
                        not (hand_cards(u, group) & g) or current_deal(players, group) != deal
                    ),
                    description="the private hand to show the move",
                )
            assert played >= 1
            for player in players:
                await fake.wait_for(lambda p=player: in_step(p, group), description="in step")
        assert fake.invalid_requests == []
    storage = await Storage.open(db)
    try:
        record = await storage.export_record(1)
    finally:
        await storage.close()
    # Every card move tapped on a copy is logged once, in order (the draws that come by
    # themselves are logged too, as a declaration let pass: not taps).
    suits = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
    logged = [
        {code[:-1] + suits[code[-1]] for code in move["cards"]}
        for move in record["deals"][deal - 1]["moves"]
        if "cards" in move
    ]
    assert logged == cards_played
