"""bot/middlewares/message_screen.py: while a flood presses the bot for room, each person
gets a few messages through, then one every two seconds, and the rest is shed; what a person means (a
/start, a command in a game's group, anything a seated player writes) gets through."""

from __future__ import annotations

from aiogram.types import Chat, Message, Update, User

from bot.middlewares.message_screen import BURST, PRESSED, RATE, MessageScreen
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
        held=lambda: held, seated=seated.__contains__, buckets=TokenBuckets(BURST, RATE, clock)
    )


async def test_one_persons_flood_is_shed_across_chats_and_the_others_get_through() -> None:
    clock = Clock()
    screen = screen_at(clock)
    # A script writes 200 texts, half in its private chat and half in the game's group.
    shed = [
        await screen(message(n, FLOODER, "spam <&> 😀", chat=GROUP if n % 2 else None))
        for n in range(200)
    ]
    assert shed == [False] * BURST + [True] * (200 - BURST)
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


async def test_what_a_person_wrote_while_the_bot_was_away_gets_through() -> None:
    """After a restart, a /start and a /newgame written meanwhile arrive together, while
    the bot is busy with everyone's backlog: both are taken."""
    clock = Clock()
    screen = screen_at(clock)
    assert await screen(message(1, NEWCOMER, "/start")) is False
    assert await screen(message(2, NEWCOMER, "/newgame", chat=GROUP)) is False


async def test_nothing_is_shed_while_the_bot_has_room() -> None:
    """A quiet bot has room for someone typing faster than the rate (the tests type as
    fast as the bot answers); the count goes on, so a flood is shed once it presses."""
    clock = Clock()
    held = [0]
    screen = MessageScreen(held=lambda: held[0], buckets=TokenBuckets(BURST, RATE, clock))
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
