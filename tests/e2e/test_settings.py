"""Settings through the fake Telegram: the /settings menu (admins only, edited in
place), a change that survives a restart, a running series that keeps its rules, a lobby's
⚙ Rules for its creator, and Start refused for pairs (B5) without four players."""

from __future__ import annotations

from pathlib import Path

from storage import Storage
from tests.support.fake_telegram import FakeMessage, FakeUser
from tests.support.harness import (
    last_reply,
    menu_of,
    new_fake,
    open_game,
    roomy_chatter,
    running_bot,
)

TITLE = "Пики & Трефы <3"


async def stored_rules(db: Path, chat_id: int) -> tuple[dict[str, object], dict[str, object]]:
    """The chat's stored settings and its open game's rules."""
    storage = await Storage.open(db)
    try:
        chat = await storage.get_chat(chat_id)
        game = await storage.open_game(chat_id, None)
        return (chat.rules if chat else {}), (game.rules if game else {})
    finally:
        await storage.close()


async def test_settings_are_for_admins_survive_a_restart_and_never_touch_a_running_series(
    tmp_path: Path,
) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice 🂡"), fake.add_user("Bob & <Co>")
        group = fake.add_group(TITLE, members=[alice, bob])
        group.admins.add(alice.id)
        async with running_bot(fake, db) as app:
            roomy_chatter(app)
            # A series running with the base rules.
            lobby = await open_game(fake, group, [alice], start=False)
            assert "Rules: the base game" in lobby.text
            await (await alice.tap(lobby, "🤖 + easy")).wait()
            await fake.wait_for(lambda: "Computer 1" in lobby.text)
            await (await alice.tap(lobby, "▶️ Start")).wait()

            await bob.send(group, "/settings")
            menu = await menu_of(fake, group, "Chat settings")
            assert f"«{TITLE}»" in menu.text  # the title shown literally, not as HTML
            assert "Preset: Classic Burkozel" in menu.text
            # Each switch in words, its id after (no bare "(R8)").
            assert "Discards: open — everyone sees discarded cards. (B1)" in menu.text
            assert "(R8)" not in menu.text
            before = menu.text
            # A non-admin is refused politely; nothing changes.
            answer = await (await bob.tap(menu, "2×2 pairs")).wait()
            assert answer.show_alert and "administrators" in answer.text
            # Forged or out-of-range values are refused, even from an admin.
            for forged in (
                "st:0:set:teams:trios",
                "st:0:timer::45",
                "st:0:preset:chess:",
                "st:0:zz",
            ):
                answer = await (await alice.tap_raw(menu, forged)).wait()
                assert "not valid" in answer.text, forged
            assert menu.text == before
            # B3 elimination cannot go with credits (B4): said why, nothing changed.
            await (await alice.tap(menu, "Scoring: penalties")).wait()
            await fake.wait_for(lambda: "Scoring: winner takes" in menu.button_texts)
            answer = await (await alice.tap(menu, "Series end: first to 12")).wait()
            assert answer.show_alert and "elimination (B3)" in answer.text
            assert (await stored_rules(db, group.id))[0] == {
                "burkozel": {"scoring": "winner_takes"}
            }

            # An admin picks the pairs preset and no timer: the same message is edited.
            count = len(group.bot_messages())
            await (await alice.tap(menu, "2×2 pairs")).wait()
            await fake.wait_for(lambda: "Preset: 2×2 pairs" in menu.text)
            for _ in range(6):  # the timer button steps through its values to "no timer"
                if "Turn timer: no timer" in menu.text:
                    break
                label = next(b for b in menu.button_texts if b.startswith("⏱"))
                await (await alice.tap(menu, label)).wait()
                await fake.wait_for(lambda label=label: label not in menu.button_texts)
            assert "Turn timer: no timer — nobody plays for anyone" in menu.text
            assert len(group.bot_messages()) == count  # edited in place, nothing new sent
            chat_rules, game_rules = await stored_rules(db, group.id)
            assert chat_rules == {
                "burkozel": {"teams": "pairs", "combinations": "on"},
                "turn_timer": 0,
            }
            assert game_rules == {}  # the running series keeps the rules it started with
            await alice.send(group, "/rules")
            shown = await last_reply(fake, group, "Rules of this game")
            assert "Teams: each for themselves — everyone counts their own points. (B5)" in (
                shown.text
            )

        async with running_bot(fake, db) as app:
            roomy_chatter(app)
            # After a restart: the series still has its rules, the chat its settings.
            await alice.send(group, "/rules")
            await fake.wait_for(
                lambda: "Teams: each for themselves" in group.bot_messages()[-1].text
            )
            await alice.send(group, "/cancel")
            confirm = await last_reply(fake, group, "End the current game")
            await (await alice.tap(confirm, "Yes, end the game")).wait()
            await fake.wait_for(
                lambda: not any("End the current" in m.text for m in group.bot_messages())
            )
            await alice.send(group, "/rules")
            shown = await last_reply(fake, group, "This chat's rules")
            assert "Teams: 2×2 pairs — 4 players" in shown.text

            # /newgame takes the defaults; Start refuses pairs with two players, saying why.
            await alice.send(group, "/newgame")
            # The lobby says what each changed rule does, and who pairs with whom.
            lobby = await menu_of(fake, group, "• Teams: 2×2 pairs — partners sit opposite (B5)")
            assert "• Combinations: on — бура, Москва, молодка" in lobby.text
            assert "👥 Pair 1: 1. Alice 🂡 & 3. (free)" in lobby.text
            assert "👥 Pair 2: 2. (free) & 4. (free)" in lobby.text
            await (await alice.tap(lobby, "🤖 + easy")).wait()
            await fake.wait_for(lambda: "Computer 1" in lobby.text)
            answer = await (await alice.tap(lobby, "▶️ Start")).wait()
            assert answer.show_alert and "Pairs (B5) need exactly 4 players, and 2" in answer.text
            # Only the creator changes this game's rules; in their private chat.
            answer = await (await bob.tap(lobby, "⚙ Rules")).wait()
            assert answer.show_alert and "Only whoever opened this game" in answer.text
            await (await alice.tap(lobby, "⚙ Rules")).wait()
            own = await menu_of(fake, alice.dm, "Rules of this game")
            assert "Turn timer" not in own.text  # customs are the chat's, not the lobby's
            await (await alice.tap(own, "Classic Burkozel")).wait()
            await fake.wait_for(lambda: "Rules: the base game" in lobby.text)
            assert (await stored_rules(db, group.id)) == (chat_rules, {})
            await (await alice.tap(lobby, "▶️ Start")).wait()
            await fake.wait_for(
                lambda: (
                    "Your cards" in alice.dm.bot_messages()[-1].text
                    or any("Your cards" in m.text for m in alice.dm.bot_messages())
                )
            )
            # The lobby's menu goes stale once the game starts.
            answer = await (await alice.tap(own, "Home Burkozel")).wait()
            assert answer.show_alert and "no longer taking players" in answer.text

            # The language is a setting too: the menu redraws itself in Russian.
            await alice.send(group, "/settings")
            menu = await menu_of(fake, group, "Chat settings")
            await (await alice.tap(menu, "🌐 English")).wait()
            await fake.wait_for(lambda: "Настройки чата" in menu.text)
            assert "Набор: Пары 2×2" in menu.text and "без таймера" in menu.text
        assert fake.invalid_requests == []


async def test_a_private_chat_points_settings_and_language_to_the_groups(tmp_path: Path) -> None:
    """A private chat has no games and speaks its user's Telegram language: /settings
    and /language there say where a game's settings are; a forged tap of the group
    menu in it changes nothing."""
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <b>&", language_code="en")
        boris = fake.add_user("Борис", language_code="ru")
        async with running_bot(fake, db, default_language="ru"):
            await alice.start_bot()
            await boris.start_bot()

            def told(user: FakeUser, needle: str) -> list[FakeMessage]:
                return [m for m in user.dm.bot_messages() if needle in (m.text or "")]

            for count, command in enumerate(("/settings", "/language"), 1):
                await alice.send(alice.dm, command)
                await boris.send(boris.dm, command)
                await fake.wait_for(lambda: len(told(alice, "send /settings there")) == count)
                await fake.wait_for(
                    lambda: len(told(boris, "отправьте /settings в группе")) == count
                )
            said = told(alice, "send /settings there")
            assert not any(m.buttons for m in said)
            answer = await (await alice.tap_raw(said[0], "st:0:set:teams:pairs")).wait()
            assert answer.text == "This works in a group chat."
            # Language buttons name their group: without one, or naming a group
            # the tapper is not in, they are not valid.
            for forged in ("lang:ru", "lang:ru:-1002999999999", f"lang:ru:{alice.id}"):
                answer = await (await alice.tap_raw(said[0], forged)).wait()
                assert answer.text == "This button is not valid.", forged
            answer = await (
                await alice.tap_raw(said[0], "st:-1002999999999:set:teams:pairs")
            ).wait()
            assert answer.text == "Only chat administrators can do that."
        assert fake.invalid_requests == []
    chat_rules, _ = await stored_rules(db, alice.id)
    assert chat_rules == {}  # the forged tap stored no rules for the private chat
