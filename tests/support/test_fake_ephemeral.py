"""The fake Telegram's ephemeral messages behave as the Bot API text says (aiogram 3.31's
docstrings of EphemeralMessageParameters, editEphemeralMessage…, deleteEphemeralMessage,
Message.ephemeral_message_id, BotCommand.is_ephemeral), seen through a real aiogram Bot."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    EphemeralMessageParameters,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)

from tests.support.fake_telegram import FakeTelegram


def kb(label: str, data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=label, callback_data=data)]]
    )


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake.api_url))
    b = Bot(fake.token, session=session, default=DefaultBotProperties(parse_mode="HTML"))
    yield b
    await b.session.close()


async def _tap_table(fake: FakeTelegram, bot: Bot):  # type: ignore[no-untyped-def]
    alice = fake.add_user("Alice <&> 🃏", username="alice")
    bob = fake.add_user("Bob")
    group = fake.add_group("Friends", members=[alice, bob])
    table = await bot.send_message(group.id, "Table", reply_markup=kb("My cards", "mine"))
    tap = await alice.tap(group.get_message(table.message_id), "My cards")  # type: ignore[arg-type]
    return alice, bob, group, tap


async def test_ephemeral_after_a_tap_is_seen_by_its_receiver_only(
    fake: FakeTelegram, bot: Bot
) -> None:
    alice, bob, group, tap = await _tap_table(fake, bot)
    sent = await bot.send_message(
        group.id,
        "Your hand &lt;3&gt;",
        reply_markup=kb("7♠", "card"),
        ephemeral_message_parameters=EphemeralMessageParameters(
            receiver_user_id=alice.id, callback_query_id=tap.id
        ),
    )
    assert sent.message_id == 0 and sent.ephemeral_message_id == 1
    assert sent.receiver_user is not None and sent.receiver_user.id == alice.id
    shown = group.last_ephemeral(alice)
    assert shown is not None and shown.text == "Your hand <3>"
    assert shown in group.view(alice) and shown not in group.view(bob)
    assert group.last_ephemeral(bob) is None
    assert "Your hand <3>" in alice.visible_texts()
    assert "Your hand <3>" not in bob.visible_texts()
    assert "Your hand <3>" not in group.all_texts()  # what everyone sees
    with pytest.raises(AssertionError):
        await bob.tap(shown, "7♠")


async def test_a_bot_not_admin_has_15_seconds_after_the_users_tap(
    fake: FakeTelegram, bot: Bot
) -> None:
    alice, bob, group, tap = await _tap_table(fake, bot)
    for_bob = EphemeralMessageParameters(receiver_user_id=bob.id)  # Bob never tapped
    with pytest.raises(TelegramBadRequest, match="ephemeral"):
        await bot.send_message(group.id, "hi", ephemeral_message_parameters=for_bob)
    with pytest.raises(TelegramBadRequest, match="QUERY_ID_INVALID"):  # Alice's tap, for Bob
        await bot.send_message(
            group.id,
            "hi",
            ephemeral_message_parameters=EphemeralMessageParameters(
                receiver_user_id=bob.id, callback_query_id=tap.id
            ),
        )
    tap.created = time.monotonic() - 16  # the window is over
    group.last_interaction[alice.id] = tap.created
    for_alice = EphemeralMessageParameters(receiver_user_id=alice.id, callback_query_id=tap.id)
    with pytest.raises(TelegramBadRequest, match="15 seconds"):
        await bot.send_message(group.id, "late", ephemeral_message_parameters=for_alice)
    # An administrator may send one at any time; getChatMember says which it is.
    me = await bot.get_chat_member(group.id, fake.bot_id)
    assert me.status == "member"
    fake.set_bot_admin(group)
    me = await bot.get_chat_member(group.id, fake.bot_id)
    assert me.status == "administrator"
    sent = await bot.send_message(group.id, "now", ephemeral_message_parameters=for_bob)
    assert sent.message_id == 0 and group.last_ephemeral(bob) is not None
    assert any("my_chat_member" in u for u in fake.all_updates)
    with pytest.raises(TelegramBadRequest):  # never in a private chat
        await alice.start_bot()
        await bot.send_message(alice.id, "x", ephemeral_message_parameters=for_alice)


async def test_edit_and_delete_by_ephemeral_id_and_a_tap_on_it(
    fake: FakeTelegram, bot: Bot
) -> None:
    alice, bob, group, tap = await _tap_table(fake, bot)
    params = EphemeralMessageParameters(receiver_user_id=alice.id, callback_query_id=tap.id)
    sent = await bot.send_message(
        group.id, "hand v1", reply_markup=kb("Play", "p1"), ephemeral_message_parameters=params
    )
    eid = sent.ephemeral_message_id
    assert eid is not None
    shown = group.last_ephemeral(alice)
    assert shown is not None
    # A tap on it: the update carries the ephemeral message (message_id 0, its id, receiver).
    press = await alice.tap(shown, "Play")
    update = Update.model_validate(fake.all_updates[-1])
    assert update.callback_query is not None and update.callback_query.id == press.id
    message = update.callback_query.message
    assert message is not None and message.message_id == 0
    assert message.ephemeral_message_id == eid  # type: ignore[union-attr]
    assert await bot.edit_ephemeral_message_text(
        chat_id=group.id,
        receiver_user_id=alice.id,
        ephemeral_message_id=eid,
        text="hand <b>v2</b>",
        reply_markup=kb("Play", "p2"),
    )
    assert shown.text == "hand v2" and shown.find_button("Play").callback_data == "p2"
    assert await bot.edit_ephemeral_message_reply_markup(
        chat_id=group.id, receiver_user_id=alice.id, ephemeral_message_id=eid
    )
    assert shown.reply_markup is None
    with pytest.raises(TelegramBadRequest, match="not found"):  # Bob has no such message
        await bot.edit_ephemeral_message_text(
            chat_id=group.id, receiver_user_id=bob.id, ephemeral_message_id=eid, text="x"
        )
    assert await bot.delete_ephemeral_message(
        chat_id=group.id, receiver_user_id=alice.id, ephemeral_message_id=eid
    )
    assert group.last_ephemeral(alice) is None
    with pytest.raises(TelegramBadRequest, match="not found"):
        await bot.edit_ephemeral_message_text(
            chat_id=group.id, receiver_user_id=alice.id, ephemeral_message_id=eid, text="x"
        )


async def test_a_lost_ephemeral_is_answered_as_sent_and_never_seen(
    fake: FakeTelegram, bot: Bot
) -> None:
    alice, _, group, tap = await _tap_table(fake, bot)
    fake.lose_ephemeral(alice)
    params = EphemeralMessageParameters(receiver_user_id=alice.id, callback_query_id=tap.id)
    sent = await bot.send_message(group.id, "lost hand", ephemeral_message_parameters=params)
    assert sent.ephemeral_message_id is not None
    assert await bot.edit_ephemeral_message_text(
        chat_id=group.id,
        receiver_user_id=alice.id,
        ephemeral_message_id=sent.ephemeral_message_id,
        text="lost hand, edited",
    )
    assert group.last_ephemeral(alice) is None
    assert "lost hand, edited" not in alice.visible_texts()
    again = await bot.send_message(group.id, "hand again", ephemeral_message_parameters=params)
    assert again.ephemeral_message_id != sent.ephemeral_message_id
    assert group.last_ephemeral(alice).text == "hand again"  # type: ignore[union-attr]


async def test_ephemeral_sends_count_against_the_receivers_budget_or_the_groups(
    fake: FakeTelegram, bot: Bot
) -> None:
    alice, _, group, tap = await _tap_table(fake, bot)
    params = EphemeralMessageParameters(receiver_user_id=alice.id, callback_query_id=tap.id)
    for n in range(fake.limits.private_burst):
        await bot.send_message(group.id, f"hand {n}", ephemeral_message_parameters=params)
    with pytest.raises(TelegramRetryAfter):
        await bot.send_message(group.id, "one too many", ephemeral_message_parameters=params)
    assert fake.flood_violations[-1].kind == "private"
    fake.reset_limits()
    fake.ephemeral_counts_in_group = True
    fake.limits.group_max = 2
    for n in range(2):
        await bot.send_message(group.id, f"again {n}", ephemeral_message_parameters=params)
    with pytest.raises(TelegramRetryAfter):
        await bot.send_message(group.id, "over the group's", ephemeral_message_parameters=params)
    assert fake.flood_violations[-1].kind == "group"


async def test_an_ephemeral_command_is_seen_by_its_sender_and_the_bot(
    fake: FakeTelegram, bot: Bot
) -> None:
    fake.ephemeral_commands = True
    alice = fake.add_user("Alice")
    bob = fake.add_user("Bob")
    group = fake.add_group("Friends", members=[alice, bob])
    await bot.set_my_commands(
        [
            BotCommand(command="score", description="Score", is_ephemeral=True),
            BotCommand(command="newgame", description="New game"),
        ],
        BotCommandScopeAllGroupChats(),
    )
    asked = await alice.send(group, "/score")
    assert asked.is_ephemeral and asked in group.view(alice) and asked not in group.view(bob)
    update = Update.model_validate(fake.all_updates[-1])
    assert update.message is not None and update.message.ephemeral_message_id is not None
    assert update.message.message_id == 0
    # The answer goes to the asker alone, within the window their command opened.
    answer = update.message.as_ephemeral_message_parameters()
    assert answer is not None and answer.receiver_user_id == alice.id
    await bot.send_message(group.id, "Score: 0", ephemeral_message_parameters=answer)
    assert group.last_ephemeral(alice).text == "Score: 0"  # type: ignore[union-attr]
    plain = await alice.send(group, "/newgame")
    assert not plain.is_ephemeral and plain in group.view(bob)
