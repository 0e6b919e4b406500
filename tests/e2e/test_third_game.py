"""A game is files. Duel exists only in the test tree (tests/support/duel/: its
engine side, its bot side, its texts); registered through the same two registries as
Burkozel and Bura, it is opened by name, listed by /settings, played by tapping through
a whole series, and /score, /stats, /history and /export work for it, the exported
record replaying through the engine's registry."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine import Card
from engine.registry import replay_json
from storage import Storage
from tests.support.duel import duel_registered
from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from tests.support.harness import PLAYED, new_fake, roomy_chatter, running_bot

TITLE = "Duel <&> 🃏 club"


def duel_hand(user: FakeUser) -> FakeMessage | None:
    for message in reversed(user.dm.messages):
        if message.is_from_bot and "⚔️ Duel in «" in (message.text or ""):
            return message
    return None


def card_buttons(message: FakeMessage) -> list[tuple[str, str]]:
    """Each card button's label and engine code (the last part of its callback data)."""
    return [
        (b.text, b.callback_data.rsplit(":", 1)[1])
        for row in message.buttons
        for b in row
        if b.callback_data and b.callback_data.startswith("t:")
    ]


def legal_code(message: FakeMessage) -> str:
    """A card the hand may play: of the led suit when it holds one (the hand text shows
    the table as the group sees it)."""
    codes = [code for _, code in card_buttons(message)]
    table = re.search(r"On the table: (.*)", message.text)
    led = table.group(1).split()[0] if table else None
    same = [c for c in codes if led is not None and Card.parse(c).suit.symbol in led]
    return (same or codes)[0]


async def play_a_move(fake: FakeTelegram, players: list[FakeUser]) -> bool:
    """Whoever's hand says it is their turn taps a card; False if nobody's turn shows."""
    for user in players:
        hand = duel_hand(user)
        if hand is not None and "Your turn" in hand.text:
            version = hand.text, hand.buttons
            answer = await (await user.tap(hand, data=f"{_prefix(hand)}:{legal_code(hand)}")).wait()
            assert answer.text == PLAYED, answer.text
            await fake.wait_for(
                lambda: (hand.text, hand.buttons) != version or duel_hand(user) is not hand
            )
            return True
    return False


def _prefix(hand: FakeMessage) -> str:
    data = next(b.callback_data for row in hand.buttons for b in row if b.callback_data)
    assert data is not None
    return data.rsplit(":", 1)[0]


def series_over(group: FakeChat) -> bool:
    return any("The series is over" in (m.text or "") for m in group.bot_messages())


async def test_a_third_game_from_the_test_tree_plays_end_to_end(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    with duel_registered():
        async with new_fake() as fake:
            fake.enforce_limits = False
            alice, bob = fake.add_user("Alice <b>&"), fake.add_user("Bob 🃏")
            group = fake.add_group(TITLE, members=[alice, bob])
            group.admins.add(alice.id)
            players = [alice, bob]
            async with running_bot(fake, db) as app:
                roomy_chatter(app)
                for user in players:
                    await user.start_bot()
                # /settings lists the game with its switches, named in words, ids after.
                await alice.send(group, "/settings")
                menu = await fake.wait_for(
                    lambda: next(
                        (m for m in group.bot_messages() if "Duel" in m.button_texts), None
                    )
                )
                await (await alice.tap(menu, "Duel")).wait()
                await fake.wait_for(lambda: "Hand: 3 cards" in menu.text)
                assert "Series: to 2" in menu.text and "(T1)" in menu.text
                assert "Quick duel" in " ".join(menu.button_texts)

                # The lobby opens it by one of its names.
                await alice.send(group, "/newgame дуэль")
                lobby = await fake.wait_for(
                    lambda: next(
                        (m for m in group.bot_messages() if "✋ Join" in m.button_texts), None
                    )
                )
                assert "Duel" in lobby.text and "Alice &lt;b&gt;&amp;" not in lobby.text
                await (await bob.tap(lobby, "✋ Join")).wait()
                await fake.wait_for(lambda: "Bob 🃏" in lobby.text)
                await (await alice.tap(lobby, "▶️ Start")).wait()
                await fake.wait_for(lambda: all(duel_hand(u) for u in players))
                # The group table names the seats and whose turn it is.
                table = await fake.wait_for(
                    lambda: next(
                        (m for m in group.bot_messages() if "⚔️ Duel — deal 1" in m.text), None
                    )
                )
                assert "Alice <b>&" in table.text and "Turn:" in table.text

                moves = 0
                score_seen = False
                while not series_over(group):
                    await fake.wait_for(
                        lambda: (
                            series_over(group)
                            or any("Your turn" in (duel_hand(u) or lobby).text for u in players)
                        ),
                        description="someone's turn or the series' end",
                    )
                    if series_over(group):
                        break
                    assert await play_a_move(fake, players)
                    moves += 1
                    assert moves < 200
                    if not score_seen and any(
                        "Deal 1:" in (m.text or "") for m in group.bot_messages()
                    ):
                        await bob.send(group, "/score")
                        score = await fake.wait_for(
                            lambda: next(
                                (m for m in group.bot_messages() if "Penalties after" in m.text),
                                None,
                            )
                        )
                        assert "Alice <b>&: " in score.text and "Bob 🃏: " in score.text
                        score_seen = True
                assert score_seen
                result = next(m for m in group.bot_messages() if "The series is over" in m.text)

                await alice.send(group, "/stats")
                stats = await fake.wait_for(
                    lambda: next((m for m in group.bot_messages() if "Series won:" in m.text), None)
                )
                assert "Alice <b>&" in stats.text and "Duel" in stats.text
                await alice.send(group, "/history")
                history = await fake.wait_for(
                    lambda: next(
                        (m for m in group.bot_messages() if "The last 1 series" in m.text), None
                    )
                )
                assert "Duel" in history.text
                await alice.send(group, "/export")
                exported = await fake.wait_for(
                    lambda: next((m for m in group.bot_messages() if m.document), None)
                )
            assert fake.invalid_requests == [] and fake.unsupported_requests == []

        record = json.loads(exported.document[1])
        assert record["format"] == "duel-record/1"
        report = replay_json(record)
        assert report["finished"]
        storage = await Storage.open(db)
        try:
            game = await storage.get_game(1)
        finally:
            await storage.close()
        assert game is not None and game.status == "finished"
        assert report["winners"] == list(game.winners or ())
        for seat, total in zip(game.seats, report["totals"], strict=True):
            assert f"{seat.name}: {total}" in result.text
