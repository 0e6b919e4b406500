"""bot/middlewares/message_screen.py: while a flood presses the bot for room, each person
gets a message through every two seconds and the rest is shed; what a person means (a
/start, a command in a game's group, anything a seated player writes) gets through."""

from __future__ import annotations

from aiogram.types import Chat, Message, Update, User

from bot.middlewares.message_screen import PRESSED, RATE, MessageScreen
from bot.middlewares.tap_screen import TokenBuckets

FLOODER, NEWCOMER, PLAYER = 21, 22, 23
GROUP = -1001


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def message(n: int, user: int, text: str | None, chat: int | None = None, **more: object) -> Update:
    chat_id = user if chat is None else chat
    kind = "private" if chat_id > 0 else "supergroup"
    sent = Message(
        message_id=n,
        date=0,
        chat=Chat(id=chat_id, type=kind),
        from_user=User(id=user, is_bot=False, first_name="x"),
        text=text,
        **more,
    )
    return Update(update_id=n, message=sent)


def screen_at(
    clock: Clock, held: int = PRESSED, seated: frozenset[int] = frozenset()
) -> MessageScreen:
    return MessageScreen(
        held=lambda: held, seated=seated.__contains__, buckets=TokenBuckets(1, RATE, clock)
    )


async def test_one_persons_flood_is_shed_across_chats_and_the_others_get_through() -> None:
    clock = Clock()
    screen = screen_at(clock)
    # A script writes 200 texts, half in its private chat and half in the game's group.
    shed = [
        await screen(message(n, FLOODER, "spam <&> 😀", chat=GROUP if n % 2 else None))
        for n in range(200)
    ]
    assert shed == [False] + [True] * 199
    # Meanwhile a newcomer's /start and someone's command in the game's group go through.
    assert await screen(message(1000, NEWCOMER, "/start")) is False
    assert await screen(message(1001, PLAYER, "/score", chat=GROUP)) is False
    # Whoever writes again after a pause gets through (one every 1 / RATE s).
    clock.now += 1 / RATE
    assert await screen(message(2000, FLOODER, "/start")) is False
    assert await screen(message(2001, FLOODER, "/start")) is True
    assert await screen(message(2002, PLAYER, "/cancel", chat=GROUP)) is False


async def test_a_seated_players_messages_are_never_shed() -> None:
    clock = Clock()
    screen = screen_at(clock, seated=frozenset({PLAYER}))
    commands = ["/score", "/cancel", "/leave", "/score", "/rules"] * 4
    for n, command in enumerate(commands):
        assert await screen(message(n, PLAYER, command, chat=GROUP)) is False


async def test_when_two_hundred_strangers_flood_each_gets_one_message_through() -> None:
    """A budget per person with a burst let 200 strangers fill the room together; now,
    while the flood presses, each gets one message every two seconds, no more."""
    clock = Clock()
    screen = screen_at(clock)
    strangers = range(1000, 1200)
    first = [await screen(message(s, s, "/start")) for s in strangers]
    again = [await screen(message(s + 1000, s, "/help")) for s in strangers]
    assert not any(first) and all(again)


async def test_nothing_is_shed_while_the_bot_has_room() -> None:
    """A quiet bot has room for someone typing faster than the rate (the tests type as
    fast as the bot answers); the count goes on, so a flood is shed once it presses."""
    clock = Clock()
    held = [0]
    screen = MessageScreen(held=lambda: held[0], buckets=TokenBuckets(1, RATE, clock))
    assert [await screen(message(n, FLOODER, "/help")) for n in range(50)] == [False] * 50
    held[0] = PRESSED
    assert await screen(message(50, FLOODER, "/help")) is True


async def test_telegrams_own_notices_and_other_updates_are_never_shed() -> None:
    clock = Clock()
    screen = screen_at(clock)
    for n in range(10):
        await screen(message(n, FLOODER, "spam"))
    # The flooder upgrades the group to a supergroup: the bot must learn the new id.
    upgraded = message(100, FLOODER, None, chat=GROUP, migrate_to_chat_id=-1002)
    assert await screen(upgraded) is False
    assert await screen(Update(update_id=101)) is False
