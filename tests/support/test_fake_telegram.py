"""The fake Telegram behaves like the real Bot API, as seen through a real aiogram Bot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramConflictError,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from aiogram.methods import GetUpdates, SendMessage
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)

from tests.support.fake_telegram import CallbackNotAnswered, FakeTelegram, RateLimits


def kb(*rows: list[tuple[str, str]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text=t, callback_data=d) for t, d in row] for row in rows
        ]
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


async def test_get_me_and_unknown_method_and_bad_token(fake: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert me.username == "burkozel_test_bot"
    assert me.is_bot
    assert await bot.delete_webhook(drop_pending_updates=True)

    class Bogus(SendMessage):
        __api_method__ = "sendBogus"

    with pytest.raises(TelegramNotFound):
        await bot(Bogus(chat_id=1, text="x"))
    wrong = Bot("999:WRONG", session=AiohttpSession(api=TelegramAPIServer.from_base(fake.api_url)))
    with pytest.raises(TelegramUnauthorizedError):
        await wrong.get_me()
    await wrong.session.close()
    assert fake.invalid_requests == []


async def test_send_edit_delete_in_group(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.add_user("Alice", username="alice")
    group = fake.add_group("Friends", members=[alice])
    sent = await bot.send_message(
        group.id, "<b>Table</b> &lt;1&gt;", reply_markup=kb([("Join", "j")])
    )
    assert sent.text == "Table <1>"
    assert sent.entities is not None and sent.entities[0].type == "bold"
    msg = group.last_bot_message()
    assert msg is not None and msg.text == "Table <1>"
    assert msg.buttons == [[("Join", "j")]]

    edited = await bot.edit_message_text(
        text="Table 2", chat_id=group.id, message_id=sent.message_id, reply_markup=kb([("Go", "g")])
    )
    assert not isinstance(edited, bool) and edited.text == "Table 2"
    assert msg.buttons == [[("Go", "g")]]

    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await bot.edit_message_text(
            text="Table 2",
            chat_id=group.id,
            message_id=sent.message_id,
            reply_markup=kb([("Go", "g")]),
        )
    # editMessageText without reply_markup drops the keyboard, like Telegram
    await bot.edit_message_text(text="Table 2", chat_id=group.id, message_id=sent.message_id)
    assert msg.buttons == []
    await bot.edit_message_reply_markup(
        chat_id=group.id, message_id=sent.message_id, reply_markup=kb([("X", "x")])
    )
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await bot.edit_message_reply_markup(
            chat_id=group.id, message_id=sent.message_id, reply_markup=kb([("X", "x")])
        )

    assert await bot.delete_message(group.id, sent.message_id)
    assert group.messages == []
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await bot.delete_message(group.id, sent.message_id)
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await bot.edit_message_text(text="again", chat_id=group.id, message_id=sent.message_id)
    assert group.all_texts() == ["Table <1>", "Join", "Table 2", "Go", "Table 2", "Table 2", "X"]
    assert fake.invalid_requests == []


async def test_refusals(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.add_user("Alice")
    group = fake.add_group("G", members=[alice])
    with pytest.raises(TelegramBadRequest, match="message is too long"):
        await bot.send_message(group.id, "x" * 4097)
    await bot.send_message(group.id, "x" * 4096)
    with pytest.raises(TelegramBadRequest, match="BUTTON_DATA_INVALID"):
        await bot.send_message(group.id, "t", reply_markup=kb([("b", "d" * 65)]))
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await bot.send_message(-42, "t")
    with pytest.raises(TelegramBadRequest, match="can't parse entities"):
        await bot.send_message(group.id, "a <3 b")
    with pytest.raises(TelegramForbiddenError, match="can't initiate conversation"):
        await bot.send_message(alice.id, "hi")
    await alice.start_bot()
    await bot.send_message(alice.id, "hi")
    fake.block(alice)
    with pytest.raises(TelegramForbiddenError, match="bot was blocked by the user"):
        await bot.send_message(alice.id, "hi")
    await alice.start_bot("again")
    await bot.send_message(alice.id, "welcome back")
    assert [m.text for m in alice.dm.messages] == ["/start", "hi", "/start again", "welcome back"]
    assert fake.invalid_requests == []


async def test_invalid_request_is_recorded(fake: FakeTelegram, bot: Bot) -> None:
    class Broken(SendMessage):
        pass

    method = Broken.model_construct(chat_id=1)  # no text: aiogram's model refuses it
    with pytest.raises(TelegramBadRequest, match="invalid request"):
        await bot(method)
    assert len(fake.invalid_requests) == 1
    assert fake.invalid_requests[0].method == "sendMessage"


async def test_callback_answer_once_and_too_old(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.add_user("Alice")
    group = fake.add_group("G", members=[alice])
    await bot.send_message(group.id, "Lobby", reply_markup=kb([("Join", "join:1"), ("Leave", "l")]))
    msg = group.last_bot_message()
    assert msg is not None
    tap = await alice.tap(msg, "Join")
    updates = await bot.get_updates(timeout=0)
    query = updates[-1].callback_query
    assert query is not None and query.data == "join:1" and query.from_user.id == alice.id
    assert await bot.answer_callback_query(query.id, text="Joined", show_alert=True)
    answer = await tap(timeout=1)
    assert answer.text == "Joined" and answer.show_alert
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await bot.answer_callback_query(query.id, text="twice")

    fake.callback_answer_timeout = 0.05
    late = await alice.tap(msg, index=(0, 1))
    await asyncio.sleep(0.1)
    with pytest.raises(TelegramBadRequest, match="query is too old"):
        await bot.answer_callback_query(late.id)
    with pytest.raises(CallbackNotAnswered):
        await late.wait(timeout=0.05)
    forged = await alice.tap_raw(msg, b"\xff\x00junk")
    assert forged.data.endswith("junk")


async def test_get_updates_offsets_and_long_poll(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.add_user("Alice")
    group = fake.add_group("G", members=[alice])
    await alice.send(group, "hello")  # privacy mode: plain text is not delivered
    await alice.send(group, "/newgame@burkozel_test_bot")
    await alice.send(group, "/newgame@other_bot")
    await alice.send(group, "/join")
    first = await bot.get_updates(timeout=0)
    assert [u.message.text for u in first if u.message] == ["/newgame@burkozel_test_bot", "/join"]
    again = await bot.get_updates(timeout=0)
    assert [u.update_id for u in again] == [u.update_id for u in first]  # not confirmed yet
    rest = await bot.get_updates(offset=first[0].update_id + 1, timeout=0)
    assert [u.update_id for u in rest] == [first[1].update_id]
    assert await bot.get_updates(offset=first[1].update_id + 1, timeout=0) == []
    assert fake.pending_updates == []

    poll = asyncio.create_task(bot.get_updates(timeout=10))
    await asyncio.sleep(0.1)
    await alice.send(group, "/score")
    woke = await asyncio.wait_for(poll, 5)  # well before the poll's own 10 s: the message woke it
    assert woke[0].message is not None and woke[0].message.text == "/score"

    older = asyncio.create_task(bot(GetUpdates(offset=woke[0].update_id + 1, timeout=5)))
    await asyncio.sleep(0.1)
    newer = asyncio.create_task(bot.get_updates(timeout=0))
    with pytest.raises(TelegramConflictError):
        await asyncio.wait_for(older, 2)
    assert await newer == []


async def test_flood_limits_raise_retry_after(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.add_user("Alice")
    group = fake.add_group("G", members=[alice])
    fake.limits = RateLimits(group_max=3, group_window=60.0, private_burst=2)
    for i in range(3):
        await bot.send_message(group.id, f"m{i}")
    with pytest.raises(TelegramRetryAfter) as info:
        await bot.send_message(group.id, "too many")
    assert info.value.retry_after >= 1
    assert [v.kind for v in fake.flood_violations] == ["group"]
    # answerCallbackQuery does not count
    msg = group.last_bot_message()
    assert msg is not None
    tap = await alice.tap_raw(msg, "x")
    assert await bot.answer_callback_query(tap.id)

    await alice.start_bot()
    await bot.send_message(alice.id, "1")
    await bot.send_message(alice.id, "2")
    with pytest.raises(TelegramRetryAfter):
        await bot.send_message(alice.id, "3")
    fake.enforce_limits = False
    await bot.send_message(alice.id, "3")
    assert [v.enforced for v in fake.flood_violations] == [True, True, False]


async def test_faults_are_deterministic(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.add_user("Alice")
    group = fake.add_group("G", members=[alice])
    fake.fail_next("sendMessage", 502)
    with pytest.raises(TelegramServerError):
        await bot.send_message(group.id, "a")
    fake.fail_next("sendMessage", 429, retry_after=3)
    with pytest.raises(TelegramRetryAfter) as info:
        await bot.send_message(group.id, "a")
    assert info.value.retry_after == 3
    assert group.messages == []

    def run(seed: int) -> list[int]:
        fake.faults.seed = seed
        fake.faults.p_429 = 0.3
        fake.faults.p_5xx = 0.3
        return [
            0 if r < 0.3 else 1 if r < 0.6 else 2
            for r in (fake.faults.rng.random() for _ in range(20))
        ]

    assert run(7) == run(7)
    fake.faults.seed = 1
    fake.enforce_limits = False
    outcomes = []
    for i in range(10):
        try:
            await bot.send_message(group.id, f"m{i}")
            outcomes.append("ok")
        except TelegramRetryAfter:
            outcomes.append("429")
        except TelegramServerError:
            outcomes.append("5xx")
    assert {"ok", "429", "5xx"} <= set(outcomes)
    assert len(group.messages) == outcomes.count("ok")
    fake.faults.clear()


async def test_migration_raises_migrate_to_chat(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.add_user("Alice")
    bob = fake.add_user("Bob")
    group = fake.add_group("G", members=[alice, bob])
    new = fake.migrate(group)
    assert new.id < -1_000_000_000_000 and new.members == [alice, bob]
    with pytest.raises(TelegramMigrateToChat) as info:
        await bot.send_message(group.id, "hi")
    assert info.value.migrate_to_chat_id == new.id
    updates = await bot.get_updates(timeout=0)
    assert updates[0].message is not None and updates[0].message.migrate_to_chat_id == new.id
    assert updates[1].message is not None and updates[1].message.migrate_from_chat_id == group.id
    await bot.send_message(new.id, "moved")
    assert new.last_bot_message() is not None


async def test_forum_topics_and_commands(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.add_user("Alice")
    forum = fake.add_group("Forum", members=[alice], forum=True)
    topic = forum.create_topic("Game")
    await alice.send(forum, "/newgame", topic=topic)
    [update] = await bot.get_updates(timeout=0)
    assert (
        update.message is not None and update.message.message_thread_id == topic.message_thread_id
    )
    await bot.send_message(forum.id, "lobby", message_thread_id=topic.message_thread_id)
    with pytest.raises(TelegramBadRequest, match="thread not found"):
        await bot.send_message(forum.id, "x", message_thread_id=99999)
    assert forum.last_bot_message(topic.message_thread_id) is not None

    cmds = [BotCommand(command="newgame", description="Новая игра")]
    await bot.set_my_commands(cmds, language_code="ru")
    await bot.set_my_commands(cmds, scope=BotCommandScopeAllGroupChats())
    assert fake.get_commands("default", "ru")[0]["command"] == "newgame"
    assert fake.get_commands("all_group_chats") != []
    assert [c.command for c in await bot.get_my_commands(language_code="ru")] == ["newgame"]
    await bot.delete_my_commands(language_code="ru")
    assert fake.get_commands("default", "ru") == []
    assert fake.invalid_requests == []


async def test_wait_for_and_deep_link(fake: FakeTelegram, bot: Bot) -> None:
    bob = fake.add_user("Bob")
    with pytest.raises(AssertionError, match="timed out"):
        await fake.wait_for(lambda: bob.started, timeout=0.05)
    await bob.open_link("https://t.me/burkozel_test_bot?start=join_42")
    assert bob.started
    assert await fake.wait_for(lambda: bob.dm.last_message(), timeout=1)
    assert bob.dm.messages[-1].text == "/start join_42"


async def test_real_dispatcher_polling_round_trip(fake: FakeTelegram, bot: Bot) -> None:
    from aiogram import Dispatcher, F
    from aiogram.filters import Command, CommandStart
    from aiogram.types import CallbackQuery, Message

    dp = Dispatcher()

    @dp.message(CommandStart())
    async def on_start(message: Message) -> None:
        await message.answer("Hi!", reply_markup=kb([("Ping", "ping")]))

    @dp.message(Command("newgame"))
    async def on_newgame(message: Message) -> None:
        await message.answer("Lobby")

    @dp.callback_query(F.data == "ping")
    async def on_ping(query: CallbackQuery) -> None:
        await query.answer("pong")

    alice = fake.add_user("Alice")
    group = fake.add_group("G", members=[alice])
    polling = asyncio.create_task(dp.start_polling(bot, polling_timeout=2, handle_signals=False))
    try:
        await alice.start_bot()
        hi = await fake.wait_for(lambda: alice.dm.last_bot_message(), timeout=5)
        answer = await (await alice.tap(hi, "Ping"))(timeout=5)
        assert answer.text == "pong"
        await alice.send(group, "/newgame@burkozel_test_bot")
        await fake.wait_for(lambda: group.last_bot_message(), timeout=5)
        await fake.wait_updates_confirmed(timeout=5)
    finally:
        await dp.stop_polling()
        await polling
    assert fake.invalid_requests == [] and fake.flood_violations == []


async def test_dropped_connection_and_html_5xx(fake: FakeTelegram, bot: Bot) -> None:
    from aiogram.exceptions import ClientDecodeError, TelegramNetworkError

    alice = fake.add_user("Alice")
    group = fake.add_group("G", members=[alice])
    fake.faults.p_disconnect = 1.0
    with pytest.raises(TelegramNetworkError):
        await bot.send_message(group.id, "a")
    fake.faults.clear()
    fake.faults.p_5xx = 1.0
    fake.faults.html_5xx = True
    with pytest.raises(ClientDecodeError):
        await bot.send_message(group.id, "a")
    fake.faults.clear()
    fake.fail_next("sendMessage", 502, html=True)
    with pytest.raises(ClientDecodeError):
        await bot.send_message(group.id, "a")
    fake.faults.p_hang = 1.0
    with pytest.raises(TelegramNetworkError):  # the client gives up; nothing was sent
        await bot.send_message(group.id, "a", request_timeout=1)
    assert fake.injected_faults[-1].description == "hung"
    fake.faults.clear()
    fake.faults.latency = (0.05, 0.05)
    started = time.monotonic()
    await bot.send_message(group.id, "slow")
    assert time.monotonic() - started >= 0.05
    assert [m.text for m in group.messages] == ["slow"]
