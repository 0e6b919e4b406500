"""Telegram down for a while, as it goes down: calls that hang until the client gives up
and nginx's HTML 502 pages. The bot loses and doubles nothing, its tables move again
within seconds of Telegram answering again, it logs each failure as one line, and a
player whose move went in is never told it failed."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from pathlib import Path

import pytest

from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from tests.support.final_state import assert_final_state
from tests.support.harness import (
    group_texts,
    hand_message,
    is_pick,
    move_count,
    new_fake,
    open_game,
    play_until,
    running_bot,
    the_game,
    whose_turn,
)

SENDING = {"sendMessage", "editMessageText", "deleteMessage", "sendPhoto"}
# Telegram's goal for coming back: the tables move again within this many seconds.
BACK_WITHIN = 10.0


async def an_action_button(
    fake: FakeTelegram, players: list[FakeUser], group: FakeChat, rng: random.Random
) -> tuple[FakeUser, FakeMessage, str]:
    """Cards selected until the hand of whoever's turn it is offers a move button: that
    player, the hand, and the button's data. (A card that is a whole move on its own is
    played, and the next turn tried.)"""
    while True:
        user = await fake.wait_for(lambda: whose_turn(players, group), description="a turn")
        assert isinstance(user, FakeUser)
        hand = hand_message(user, group)
        assert hand is not None
        below = [b for row in hand.buttons[1:] for b in row if b.callback_data]
        actions = [b.callback_data for b in below if not is_pick(b.callback_data)]
        if actions and actions[0] is not None:
            return user, hand, actions[0]
        cards = [b for b in hand.buttons[0] if not b.text.startswith("✅")]
        before = len(hand.history)
        answer = await (await user.tap(hand, data=rng.choice(cards).callback_data)).wait()
        assert not answer.show_alert, answer.text
        # A selection or a move (PLAYED) redraws the hand. After a move the turn may stay
        # with the same player (it took the trick and leads next: R11), so waiting for the
        # turn to pass could wait forever (it did once in a fresh clone).
        await fake.wait_for(
            lambda h=hand, b=before: len(h.history) > b or hand_message(user, group) is not h,
            description="the hand to show the selection or the move",
        )


async def test_an_outage_of_hung_calls_and_html_502s_loses_nothing_and_ends_fast(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        players = [alice, bob]
        rng = random.Random(34)
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            await open_game(fake, group, players)
            game = await the_game(app, group.id)
            user, hand, move = await an_action_button(fake, players, group, rng)
            moves = await move_count(app, game.id)
            # Telegram goes down for what the bot sends (its updates still come, so the
            # taps of the outage are read): first nginx's HTML 502 pages, half the calls
            # hanging; the tap's own answer is one of the pages.
            fake.faults.methods = SENDING
            fake.faults.html_5xx = True
            fake.faults.p_5xx, fake.faults.p_hang = 0.5, 0.5
            fake.fail_next("answerCallbackQuery", 502, html=True)
            tap = await user.tap(hand, data=move)

            async def committed() -> bool:
                return await move_count(app, game.id) > moves

            await fake.wait_for(committed, description="the move committed")
            await asyncio.sleep(12)
            # At its end every call hangs (the sender's tries meet a dead connection).
            fake.faults.p_5xx, fake.faults.p_hang = 0.0, 1.0
            await asyncio.sleep(4)
            calls_before = len(fake.requests)
            fake.faults.clear()
            back = time.monotonic()
            # The group's table moves again soon: the move made during the outage shows.
            await fake.wait_for(
                lambda: any(
                    r.ok
                    and r.method in ("editMessageText", "sendMessage")
                    and r.params.get("chat_id") == group.id
                    for r in fake.requests[calls_before:]
                ),
                timeout=60,
                description="the table edited again",
            )
            late = time.monotonic() - back
            assert late < BACK_WITHIN, f"the table moved again {late:.1f} s after the outage"
            # The player whose move went in was never told it failed.
            assert tap.answer is None or "went wrong" not in tap.answer.text, tap.answer
            await assert_final_state(fake, app, game.id, "Friends")
            # The game goes on: the deal is played to its end, nothing lost or doubled.
            await play_until(fake, players, lambda: group_texts(group, "Deal 1 is over"), rng)
            await assert_final_state(fake, app, game.id, "Friends")
        assert fake.invalid_requests == []
    assert len(group_texts(group, "Deal 1 is over")) == 1
    assert any("failed" in r.getMessage() for r in caplog.records)
    # A record carries a traceback when its exc_info is an exception's; asyncio's reports
    # of a session some earlier test left for the garbage collector carry exc_info=False.
    tracebacks = [r.getMessage() for r in caplog.records if r.exc_info]
    assert tracebacks == [], "a Telegram failure was logged with a traceback"
