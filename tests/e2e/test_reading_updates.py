"""Reading updates: one the bot cannot parse never stalls it, and after an outage it
reads again within seconds of Telegram answering. Both through the fake Bot API."""

from __future__ import annotations

import logging
import random
import socket
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot import metrics
from tests.support.fake_telegram import METHODS, FakeChat, FakeTelegram, FakeUser
from tests.support.harness import (
    hand_message,
    new_fake,
    open_game,
    play_until,
    running_bot,
    whose_turn,
)

# In the names and texts of the updates the bot cannot read: none of it may reach a log.
MARKER = "Zq7-private-words"
SECRET = "test-secret_34"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def unreadable_updates(fake: FakeTelegram, group: FakeChat) -> dict[str, dict[str, Any]]:
    """Updates aiogram's models refuse (and one of a kind they do not know), as Telegram
    may send them: what the bot must pass over without losing the rest."""
    bot_member = fake.bot_user_api()
    person = {"id": 31337, "is_bot": False, "first_name": f"{MARKER} admin"}
    return {
        # Seen for real: a ChatMemberBanned without the until_date aiogram requires.
        "kicked": fake.raw_update(
            "my_chat_member",
            {
                "chat": {"id": group.id, "type": "group", "title": f"{MARKER} group"},
                "from": person,
                "date": int(time.time()),
                "old_chat_member": {"status": "kicked", "user": bot_member},
                "new_chat_member": {"status": "member", "user": bot_member},
            },
        ),
        "wrong type": fake.raw_update(
            "message",
            {
                "message_id": 7,
                "date": int(time.time()),
                "chat": {"id": f"{MARKER} chat", "type": "group", "title": MARKER},
                "from": person,
                "text": f"/newgame {MARKER}",
            },
        ),
        "unknown kind": fake.raw_update(
            "hologram_call", {"from": person, "text": f"{MARKER} hologram"}
        ),
    }


def skipped_count(kind: str) -> float:
    return float(metrics.UPDATES_UNREADABLE.labels(kind)._value.get())


async def play_on_behind_unreadable_updates(
    fake: FakeTelegram, group: FakeChat, players: list[FakeUser], caplog: pytest.LogCaptureFixture
) -> dict[str, dict[str, Any]]:
    """Unreadable updates arrive in a game, the turn's tap right behind them: the tap and
    the moves after it are played at once; returns the unreadable updates."""
    rng = random.Random(34)
    await open_game(fake, group, players)
    before = {kind: skipped_count(kind) for kind in ("my_chat_member", "message", "other")}
    caplog.clear()
    poison = unreadable_updates(fake, group)
    moves = [0]

    def one_more() -> None:
        moves[0] += 1

    # Each tap is answered within play_one_move's 5 s, or the test fails.
    await play_until(fake, players, lambda: moves[0] >= 4, rng, group, after_move=one_more)
    await fake.wait_for(lambda: not [u for u in fake.pending_updates if u in poison.values()])
    assert skipped_count("my_chat_member") == before["my_chat_member"] + 1
    assert skipped_count("message") == before["message"] + 1
    assert skipped_count("other") == before["other"]  # an unknown kind parses; passed over
    return poison


def assert_logged_by_id_and_kind_only(
    caplog: pytest.LogCaptureFixture, poison: dict[str, dict[str, Any]]
) -> None:
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    kicked, wrong = poison["kicked"]["update_id"], poison["wrong type"]["update_id"]
    assert (
        f"update {kicked} (my_chat_member) skipped: it does not parse "
        "(my_chat_member.old_chat_member.kicked.until_date: missing)"
    ) in lines, lines
    assert (
        f"update {wrong} (message) skipped: it does not parse (message.chat.id: int_parsing)"
        in (lines)
    ), lines
    assert MARKER not in caplog.text  # no name, no text, no pydantic input_value
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]


async def test_polling_skips_an_update_it_cannot_read_and_the_game_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            poison = await play_on_behind_unreadable_updates(fake, group, [alice, bob], caplog)
            # The offset moved past them: Telegram holds nothing for the bot any more.
            await fake.wait_updates_confirmed()
        assert_logged_by_id_and_kind_only(caplog, poison)


async def test_a_webhook_update_it_cannot_read_is_answered_once_and_the_game_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    port = free_port()
    webhook = {
        "webhook_url": f"http://127.0.0.1:{port}/hook",
        "webhook_listen": f"127.0.0.1:{port}",
        "webhook_secret": SECRET,
    }
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3", **webhook):
            poison = await play_on_behind_unreadable_updates(fake, group, [alice, bob], caplog)
            others = skipped_count("other")
            headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
            async with (
                aiohttp.ClientSession() as session,
                session.post(webhook["webhook_url"], data=MARKER, headers=headers) as answer,
            ):
                assert answer.status == 200  # not even JSON: answered, not asked again
            assert skipped_count("other") == others + 1
        for update in poison.values():  # answered 200 the first time: never sent again
            deliveries = [d for d in fake.webhook.deliveries if d.update_id == update["update_id"]]
            assert [d.outcome for d in deliveries] == ["200"]
        assert_logged_by_id_and_kind_only(caplog, poison)


async def test_after_an_outage_a_tap_made_during_it_is_read_within_seconds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram out: every call hangs (a dead connection) or gets nginx's HTML 502 page.
    A hung getUpdates used to be held for the session's 60 s + the long poll's 10 s, so a
    tap made during the outage waited up to 70 s after Telegram answered again."""
    caplog.set_level(logging.INFO)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            await open_game(fake, group, [alice, bob])
            player = whose_turn([alice, bob], group)
            assert player is not None
            hand = hand_message(player, group)
            assert hand is not None

            def failed_polls(how: str) -> int:
                return sum(
                    1
                    for f in fake.injected_faults
                    if f.method == "getUpdates" and how in f.description
                )

            faults = fake.faults
            faults.methods = set(METHODS)  # every call, getUpdates too
            faults.p_5xx, faults.statuses_5xx, faults.html_5xx = 1.0, (502,), True
            # Ends the long poll under way, as the outage's dropped connection would.
            fake.future_update("outage_begins", {})
            await fake.wait_for(lambda: failed_polls("Bad Gateway") >= 2, timeout=30)
            faults.p_5xx, faults.p_hang = 0.0, 1.0  # then calls hang: dead connections
            await fake.wait_for(lambda: failed_polls("hung") >= 1, timeout=30)
            tap = await player.tap(hand, index=(0, 0))
            faults.clear()  # Telegram answers again; the call hung meanwhile never will
            await tap.wait(timeout=10)  # the old bot held the hung call for 70 s
        lines = [r for r in caplog.records if r.name == "bot.app" and "getUpdates" in r.message]
        assert len(lines) >= 3
        assert not [r for r in lines if r.exc_info or "<" in r.getMessage()]  # one line, no page
