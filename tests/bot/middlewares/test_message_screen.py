"""bot/middlewares/message_screen.py: while the bot is pressed for room, one person's
flood of messages is shed and nobody else's; what a person means always gets through."""

from __future__ import annotations

from aiogram.types import Chat, Message, Update, User

from bot.middlewares.message_screen import BURST, CROWDED, PRESSED, RATE, MessageScreen
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


def screen_at(clock: Clock, held: int = PRESSED) -> MessageScreen:
    return MessageScreen(held=lambda: held, buckets=TokenBuckets(BURST, RATE, clock))


async def test_one_persons_flood_is_shed_across_chats_and_the_others_get_through() -> None:
    clock = Clock()
    screen = screen_at(clock)
    # A script writes 200 texts, half in its private chat and half in the game's group.
    shed = [
        await screen(message(n, FLOODER, "spam <&> 😀", chat=GROUP if n % 2 else None))
        for n in range(200)
    ]
    assert shed == [False] * BURST + [True] * (200 - BURST)
    # Meanwhile a newcomer's /start, and a player's commands in the game's group, a few
    # in a row: none is shed.
    assert await screen(message(1000, NEWCOMER, "/start")) is False
    for n, command in enumerate(["/score", "/rules", "/join", "/leave", "/help"]):
        assert await screen(message(1100 + n, PLAYER, command, chat=GROUP)) is False
    # The flooder who stops for a while writes again like anyone (one every 1 / RATE s).
    clock.now += 1 / RATE
    assert await screen(message(2000, FLOODER, "/start")) is False
    assert await screen(message(2001, FLOODER, "/start")) is True


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
    for n in range(3 * BURST):
        await screen(message(n, FLOODER, "spam"))
    # The flooder upgrades the group to a supergroup: the bot must learn the new id.
    upgraded = message(100, FLOODER, None, chat=GROUP, migrate_to_chat_id=-1002)
    assert await screen(upgraded) is False
    assert await screen(Update(update_id=101)) is False


async def test_when_crowded_each_persons_first_message_in_a_while_still_gets_through() -> None:
    """Two hundred strangers, each within their rate, fill the room as one flooder would:
    when crowded, each person gets their first message in a while through (a newcomer's
    /start, a player's command), and what else they write is shed."""
    clock = Clock()
    screen = screen_at(clock, held=CROWDED)
    strangers = range(1000, 1200)
    assert all([await screen(message(s, s, "/start")) is False for s in strangers])
    assert all([await screen(message(s + 1000, s, "/help")) is True for s in strangers])
    assert await screen(message(5000, NEWCOMER, "/start")) is False
    assert await screen(message(5001, PLAYER, "/score", chat=GROUP)) is False
    assert await screen(message(5002, PLAYER, "/score", chat=GROUP)) is True
    clock.now += BURST / RATE  # nothing written for a while: the next goes through
    assert await screen(message(5003, PLAYER, "/score", chat=GROUP)) is False
