"""End-to-end: the real bot, real polling over HTTP, a fake Telegram, virtual players."""

from __future__ import annotations

import random
import re
from pathlib import Path

from engine import burkozel
from storage import Storage
from tests.support.fake_telegram import FakeChat, FakeTelegram
from tests.support.harness import (
    assert_no_hand_in_another_dm,
    assert_no_hidden_card_in_group,
    hand_cards,
    hand_message,
    new_fake,
    open_game,
    play_one_move,
    play_until,
    running_bot,
    whose_turn,
)


def group_texts(group: FakeChat, needle: str) -> list[str]:
    return [m.text for m in group.bot_messages() if needle in (m.text or "")]


async def replayed(db: Path) -> burkozel.ReplayReport:
    storage = await Storage.open(db)
    try:
        game = await storage.get_game(1)
        assert game is not None and game.status == "finished"
        record = await storage.export_record(1)
    finally:
        await storage.close()
    return burkozel.replay(record)


async def test_full_two_player_series_ends_with_the_right_tally(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        players = [alice, bob]
        async with running_bot(fake, db):
            await open_game(fake, group, players)
            await play_until(
                fake,
                players,
                lambda: group_texts(group, "The series is over"),
                random.Random(7),
                after_move=lambda: (
                    assert_no_hidden_card_in_group(group, players),
                    assert_no_hand_in_another_dm(players, group),
                ),
            )
            # The last deal's own result reaches the group before the series result: the
            # reader sees how the last deal went, then «🏆 …» (the edit is not queued
            # behind the result's picture).
            await fake.wait_for(lambda: _series_end_order(fake, group.id) is not None)
            last_deal_shown, series_result = _series_end_order(fake, group.id) or (0, 0)
            assert last_deal_shown < series_result, "🏆 came before the last deal's result"
            # The series result offers another series at the same table.
            # The table message's closing edit starts with the same words; the result
            # message is the one with the button (the edit may land before this runs).
            final_message = await fake.wait_for(
                lambda: next(
                    (m for m in group.bot_messages() if "Winner" in (m.text or "") and m.buttons),
                    None,
                ),
                description="the series result with its button",
            )
            await (await bob.tap(final_message, "🔁 Another series, same table")).wait()
            lobby = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if "✋ Join" in m.button_texts), None)
            )
            await fake.wait_for(lambda: "Alice" in lobby.text and "Bob" in lobby.text)
            answer = await (await alice.tap(final_message, "🔁 Another series, same table")).wait()
            assert answer.show_alert and "already open" in answer.text
        assert fake.invalid_requests == []
    report = await replayed(db)
    assert report.finished and max(report.totals) >= 12  # R14
    # The group was told each deal's result and the final tally, matching the move log.
    deal_messages = group_texts(group, "is over</b>") or group_texts(group, "Deal ")
    assert len([t for t in deal_messages if re.search(r"Deal \d+ is over", t)]) == len(report.deals)
    final = group_texts(group, "Winner")[-1]
    for user, total in zip(players, report.totals, strict=True):
        assert f"{user.first_name}: {total}" in final
    winners = ", ".join(players[s].first_name for s in report.winners)
    assert winners in final


def _series_end_order(fake: FakeTelegram, group_id: int) -> tuple[int, int] | None:
    """Where, among the calls Telegram carried out, the group's table first showed the
    last deal's result, and where the series result was sent."""
    table_done = result_sent = None
    for index, call in enumerate(fake.requests):
        if not call.ok or call.params.get("chat_id") not in (group_id, str(group_id)):
            continue
        text = str(call.params.get("text") or call.params.get("caption") or "")
        if call.method == "editMessageText" and "The series is over" in text:
            table_done = index if table_done is None else table_done
        elif call.method != "editMessageText" and "The series is over" in text:
            result_sent = index if result_sent is None else result_sent
    return None if table_done is None or result_sent is None else (table_done, result_sent)


async def test_three_and_four_player_deals_play_to_the_deal_result(tmp_path: Path) -> None:
    for count in (3, 4):
        db = tmp_path / f"bot{count}.sqlite3"
        async with new_fake() as fake:
            fake.enforce_limits = False
            users = [fake.add_user(name) for name in ("Ann", "Ben", "Cat", "Dan")[:count]]
            group = fake.add_group("Table", members=users)
            async with running_bot(fake, db):
                await open_game(fake, group, users)
                await play_until(
                    fake,
                    users,
                    lambda: group_texts(group, "Deal 1 is over"),
                    random.Random(count),
                    after_move=lambda: (
                        assert_no_hidden_card_in_group(group, users),
                        assert_no_hand_in_another_dm(users, group),
                    ),
                )
                result = group_texts(group, "Deal 1 is over")[0]
                # Deal scores add up to 120 (R12), one row per player.
                points = [int(p) for p in re.findall(r": (\d+) pts", result)]
                assert len(points) == count and sum(points) == 120
            assert fake.invalid_requests == []


async def test_joining_without_having_started_the_bot_goes_through_a_deep_link(
    tmp_path: Path,
) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, carol = fake.add_user("Alice"), fake.add_user("Carol")
        group = fake.add_group("Friends", members=[alice, carol])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            lobby = await open_game(fake, group, [alice], start=False)
            answer = await (await carol.tap(lobby, "✋ Join")).wait()
            assert answer.url and "start=j" in answer.url
            assert "Carol" not in lobby.text  # nobody is seated without a DM
            await carol.open_link(answer.url)  # opens the DM and presses Start
            await fake.wait_for(lambda: "Carol" in lobby.text, description="Carol seated")
            await fake.wait_for(lambda: carol.dm.bot_messages(), description="welcome in DM")
            await (await alice.tap(lobby, "▶️ Start")).wait()
            await fake.wait_for(lambda: hand_message(carol) is not None)
            assert len(hand_cards(carol)) == 4  # R3
        assert fake.invalid_requests == []


async def test_stale_keyboards_and_taps_by_others_change_nothing(tmp_path: Path) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob, eve = fake.add_user("Alice"), fake.add_user("Bob"), fake.add_user("Eve")
        group = fake.add_group("Friends", members=[alice, bob, eve])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            lobby = await open_game(fake, group, [alice, bob])
            first = whose_turn([alice, bob])
            assert first is not None
            other = bob if first is alice else alice
            old_hand = hand_message(first)
            assert old_hand is not None
            old_buttons = old_hand.buttons
            # Eve, not seated, forges a tap on the lobby and the table: polite refusals.
            answer = await (await eve.tap_raw(lobby, "l:1:start")).wait()
            assert answer.text
            # The player not to act taps a card: allowed to select, but cannot play.
            other_hand = hand_message(other)
            assert other_hand is not None
            await play_one_move(fake, first, random.Random(1))
            # First's old keyboard is stale now: tapping it changes nothing.
            stale_data = old_buttons[0][0].callback_data
            assert stale_data is not None
            cards_before = hand_cards(first)
            answer = await (await first.tap_raw(old_hand, stale_data)).wait()
            assert answer.show_alert and "out of date" in answer.text
            assert hand_cards(first) == cards_before
            # A forged play for someone else's game / out of turn is refused.
            answer = await (await first.tap_raw(old_hand, "p:1:1:l:AS")).wait()
            assert answer.show_alert
            answer = await (await eve.tap_raw(other_hand, "p:1:2:l:AS")).wait()
            assert answer.show_alert and "not playing" in answer.text
        assert fake.invalid_requests == []


async def test_stopping_mid_trick_and_restarting_goes_on_from_the_same_state(
    tmp_path: Path,
) -> None:
    db = tmp_path / "bot.sqlite3"
    rng = random.Random(3)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, db):
            await open_game(fake, group, [alice, bob])
            for _ in range(3):  # a lead, an answer, a lead: stops mid-trick
                user = await fake.wait_for(lambda: whose_turn([alice, bob]))
                await play_one_move(fake, user, rng)
            await fake.wait_for(lambda: "On the table" in group.bot_messages()[-1].text or True)
        before = {u.first_name: hand_cards(u) for u in (alice, bob)}
        to_act = whose_turn([alice, bob])
        table_before = [m for m in group.bot_messages() if "Burkozel" in m.text][-1].text
        async with running_bot(fake, db):
            # Same hands, same player to act, same table: the game goes on where it was.
            assert {u.first_name: hand_cards(u) for u in (alice, bob)} == before
            assert to_act is not None
            await play_one_move(fake, to_act, rng)
            await play_until(fake, [alice, bob], lambda: group_texts(group, "Deal 1 is over"), rng)
        assert "On the table" in table_before
        assert fake.invalid_requests == []
