"""Run the real bot against the fake Bot API and drive it as people would."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bot.app import App
from bot.config import Settings
from bot.delivery.chatter import ChatterLimit
from bot.delivery.worker import Limits
from storage import Game
from tests.support.fake_telegram import (
    CallbackAnswer,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
)

TOKEN = "123456:TEST-token"


def new_fake() -> FakeTelegram:
    return FakeTelegram(token=TOKEN)


# Fast pacing for tests that are about game logic, not flood limits.
FAST = Limits(
    group_capacity=1000,
    group_rate=1000,
    private_capacity=1000,
    private_rate=1000,
    global_capacity=1000,
    global_rate=1000,
)

# The group paced at one message a second (Telegram's real pace is one in three), the
# private chats not: a game's table edits keep the group's queue full.
SLOW_GROUP = Limits(
    group_capacity=1,
    group_rate=1,
    private_capacity=1000,
    private_rate=1000,
    global_capacity=1000,
    global_rate=1000,
)


def settings_for(fake: FakeTelegram, db: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": fake.token,
        "database_path": db,
        "telegram_api_url": fake.api_url,
        "default_language": "en",
        "turn_timeout_seconds": 300,
        "computer_pause_seconds": 0.05,
        "log_level": "INFO",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeTelegram, db: Path, limits: Limits | None = FAST, **overrides: Any
) -> AsyncIterator[App]:
    app = App(settings_for(fake, db, **overrides), limits=limits, handle_signals=False)
    task = asyncio.create_task(app.run())
    ready = asyncio.create_task(app.ready.wait())
    done, _ = await asyncio.wait({task, ready}, timeout=15, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        task.result()  # re-raise a start-up failure
    assert ready in done, "the bot did not start"
    try:
        yield app
    finally:
        await app.stop()
        await asyncio.wait_for(task, timeout=15)


def hand_message(user: FakeUser, group: FakeChat | None = None) -> FakeMessage | None:
    """The user's hand message: the bot message in their DM that shows cards as buttons."""
    for message in reversed(user.dm.messages):
        text = message.text or ""
        if (
            message.is_from_bot
            and "\nYour cards: " in text
            and (group is None or (group.title or "") in text)
        ):
            return message
    return None


def is_my_turn(message: FakeMessage) -> bool:
    return "Your lead" in message.text or "Your answer" in message.text


PLAYED = "Played."  # the answer to a tap that made a move (English texts)
STALE = "This keyboard is out of date; I have sent you the current one."


def is_pick(data: str | None) -> bool:
    """The hand's «➕ Several cards» / «🗑 Discard, don't beat» / «↩ Back» switch."""
    return data is not None and data.startswith("t:") and data.endswith(":+")


async def play_one_move(
    fake: FakeTelegram,
    user: FakeUser,
    rng: random.Random,
    group: FakeChat | None = None,
    *,
    strict: bool = True,
) -> str:
    """Tap cards and a legal action, as a person would (now and then through «➕ Several
    cards» / «🗑 Discard, don't beat» first). Returns the action label."""
    message = await fake.wait_for(
        lambda: (m := hand_message(user, group)) is not None and is_my_turn(m) and m,
        description=f"{user.first_name}'s turn",
    )
    switched = False
    while True:
        message = hand_message(user, group)
        assert message is not None
        before, shown = len(message.history), message.text
        below = [b for row in message.buttons[1:] for b in row if b.callback_data]
        switch = [b for b in below if is_pick(b.callback_data)]
        actions = [b for b in below if not is_pick(b.callback_data)]
        if switch and not switched and rng.random() < 0.4:
            switched = True
            answer = await (await user.tap(message, data=switch[0].callback_data)).wait(timeout=5)
            if await _overtaken(fake, user, group, message, (before, shown), answer):
                return await play_one_move(fake, user, rng, group, strict=strict)
            assert not answer.show_alert, answer.text
            await fake.wait_for(
                lambda m=message, b=before: (
                    len(m.history) > b or hand_message(user, group) is not m
                ),
                description="the hand to switch to choosing cards",
            )
            continue
        selecting = any(b.text.startswith("✅") for b in message.buttons[0])
        # Listed plays of several cards sit beside the cards: half the time a card instead.
        if actions and (selecting or rng.random() < 0.5):
            choice = rng.choice(actions)
            answer = await (await user.tap(message, data=choice.callback_data)).wait(timeout=5)
            if await _overtaken(fake, user, group, message, (before, shown), answer):
                return await play_one_move(fake, user, rng, group, strict=strict)
            assert not answer.show_alert, answer.text
            # Wait until the hand shows the move, so the next read is not of the old state.
            await _hand_shows_played(fake, user, group, choice.text, "the hand to show the move")
            return choice.text
        cards = [b for b in message.buttons[0] if not b.text.startswith("✅")]
        assert cards, f"no card left to select: {message.text}"
        card = rng.choice(cards)
        answer = await (await user.tap(message, data=card.callback_data)).wait(timeout=5)
        if await _overtaken(fake, user, group, message, (before, shown), answer):
            return await play_one_move(fake, user, rng, group, strict=strict)
        # A fresh keyboard must just work: an alert here means the bot drew a stale one.
        assert not (strict and answer.show_alert), answer.text
        if answer.text == PLAYED:  # a card that is a whole move by itself goes on one tap
            await _hand_shows_played(
                fake, user, group, card.text, "the hand to show the one-tap move"
            )
            return card.text
        await fake.wait_for(
            lambda m=message, b=before: len(m.history) > b or hand_message(user, group) is not m,
            description="the hand keyboard to redraw",
        )


async def _overtaken(
    fake: FakeTelegram,
    user: FakeUser,
    group: FakeChat | None,
    message: FakeMessage,
    drawn: tuple[int, str],
    answer: CallbackAnswer,
) -> bool:
    """A move by someone else landed between the hand's drawing and the tap: a computer
    taking its C3/C4 «Stop!» lead out of turn while this hand showed «Your lead» (asked
    first, after the computers' pause). The refusal promises the current keyboard; it must
    come (an edit of the tapped hand or a new hand message) and show that move: a stale
    keyboard drawn by the bot itself would come back with the same text, and fails."""
    if not (answer.show_alert and answer.text == STALE):
        return False
    before, shown = drawn
    await fake.wait_for(
        lambda: len(message.history) > before or hand_message(user, group) is not message,
        description="the current keyboard promised by the stale refusal",
    )
    current = hand_message(user, group)
    assert current is not None and current.text != shown, f"a stale keyboard was drawn: {shown}"
    return True


CARD_TOKEN = re.compile(r"(10|[6-9JQKA])([♠♥♦♣])")


async def _hand_shows_played(
    fake: FakeTelegram, user: FakeUser, group: FakeChat | None, button: str, description: str
) -> None:
    """Wait until ``user``'s hand no longer holds the cards a tapped ``button`` played (or
    shows the next deal), so the next read is not of the state before the move."""
    played = cards_in(button)
    deal = current_deal([user], group)
    await fake.wait_for(
        lambda: not (hand_cards(user, group) & played) or current_deal([user], group) != deal,
        description=description,
    )


def cards_in(text: str) -> set[str]:
    return {rank + suit for rank, suit in CARD_TOKEN.findall(text)}


def hand_cards(user: FakeUser, group: FakeChat | None = None) -> set[str]:
    message = hand_message(user, group)
    if message is None:
        return set()
    line = next(ln for ln in message.text.splitlines() if ln.startswith("Your cards"))
    return cards_in(line)


def current_deal(users: list[FakeUser], group: FakeChat | None = None) -> int:
    numbers = [
        int(found.group(1))
        for user in users
        if (m := hand_message(user, group)) and (found := re.search(r"deal (\d+)", m.text))
    ]
    return max(numbers, default=1)


def this_deal_only(text: str) -> str:
    """``text`` without the previous deal's last trick, and the бура or Москва that ended
    it (C1/C2, shown to all), which a new deal's screens show until its first lead
    (every card played is seen by all)."""
    kept, skipping, shown = [], False, False
    for line in text.splitlines():
        if re.match(r"Deal \d+ ended with a show:", line):
            shown = True
        elif line.startswith("Last trick of deal "):
            skipping, shown = True, False
        elif skipping and not line.startswith("  "):
            skipping = False
        if not (skipping or shown):
            kept.append(line)
    return "\n".join(kept)


def assert_no_hidden_card_in_group(group: FakeChat, players: list[FakeUser]) -> None:
    """No card still held in a hand has appeared in the group during this deal, bar the
    face-up trump card (R3). Earlier deals used the same 36 cards, so they are left out."""
    deal = f"deal {current_deal(players, group)}\n"
    texts = [this_deal_only(t) for t in group.all_texts() if deal in t]
    trump = {
        card
        for text in texts
        for line in text.splitlines()
        if line.startswith("Trump:")
        for card in cards_in(line)
    }
    held = set().union(*(hand_cards(u, group) for u in players)) - trump
    shown = set().union(*(cards_in(t) for t in texts))
    leaked = held & shown
    assert not leaked, f"cards still in hands appeared in the group: {sorted(leaked)}"


def assert_no_hand_in_another_dm(players: list[FakeUser], group: FakeChat | None = None) -> None:
    """No player's DM has ever shown, during this deal, a card another player now holds."""
    deal = f"deal {current_deal(players, group)}\n"
    held = {u.id: hand_cards(u, group) for u in players}
    for user in players:
        texts = [this_deal_only(t) for t in user.dm.all_texts() if deal in t]
        trump = {
            c
            for t in texts
            for ln in t.splitlines()
            if ln.startswith("Trump:")
            for c in cards_in(ln)
        }
        others = set().union(*(h for uid, h in held.items() if uid != user.id)) - trump
        leaked = others & set().union(*(cards_in(t) for t in texts))
        assert not leaked, f"{user.first_name}'s DM showed others' cards {sorted(leaked)}"


def whose_turn(users: list[FakeUser], group: FakeChat | None = None) -> FakeUser | None:
    for user in users:
        message = hand_message(user, group)
        if message is not None and is_my_turn(message):
            return user
    return None


async def play_until(
    fake: FakeTelegram,
    users: list[FakeUser],
    done: Any,
    rng: random.Random,
    group: FakeChat | None = None,
    max_moves: int = 2000,
    after_move: Any = None,
) -> int:
    """Whoever's hand says it is their turn plays, until ``done()``; returns moves played."""
    moves = 0
    while not done():
        user = await fake.wait_for(
            lambda: done() or whose_turn(users, group), description="someone's turn", timeout=20
        )
        if done():
            break
        assert isinstance(user, FakeUser)
        await play_one_move(fake, user, rng, group)
        moves += 1
        if after_move is not None:
            after_move()
        assert moves < max_moves, "the game does not end"
    return moves


async def open_game(
    fake: FakeTelegram,
    group: FakeChat,
    users: list[FakeUser],
    *,
    start: bool = True,
    game: str | None = None,
) -> FakeMessage:
    """Everyone presses Start in their DM, the first opens a game (the chat's, or
    ``/newgame <game>``), the rest join; start it.

    Each joins only once the bot has answered their Start, as a person would: the DM and
    the group are different chats, handled side by side, so a Join tapped a moment after
    Start may be read before the Start is (and answered «press Start first»)."""
    for user in users:
        if not user.started:
            sent = await user.start_bot()
            await fake.wait_for(
                lambda: any(m.message_id > sent.message_id for m in user.dm.bot_messages()),
                description=f"the bot's answer to {user.first_name}'s Start",
            )
    await users[0].send(group, "/newgame" if game is None else f"/newgame {game}")
    lobby = await fake.wait_for(
        lambda: next((m for m in group.bot_messages() if "✋ Join" in m.button_texts), None),
        description="the lobby message",
    )
    assert isinstance(lobby, FakeMessage)
    for user in users[1:]:
        answer = await (await user.tap(lobby, "✋ Join")).wait()
        assert not answer.show_alert, answer.text
    await fake.wait_for(lambda: all(u.first_name in lobby.text for u in users))
    if start:
        await start_game(fake, group, users, lobby)
    return lobby


async def start_game(
    fake: FakeTelegram, group: FakeChat, users: list[FakeUser], lobby: FakeMessage
) -> None:
    """The first player taps Start, and every player's hand comes."""
    await (await users[0].tap(lobby, "▶️ Start")).wait()
    await fake.wait_for(lambda: all(hand_message(u, group) for u in users))


async def open_bura(
    fake: FakeTelegram, group: FakeChat, users: list[FakeUser], *, start: bool = True
) -> FakeMessage:
    """A Bura lobby, opened and joined as ``open_game`` does it (and started)."""
    lobby = await open_game(fake, group, users, start=False, game="bura")
    assert "Bura" in lobby.text
    if start:
        await start_game(fake, group, users, lobby)
    return lobby


def roomy_chatter(app: App) -> None:
    """These tests send many group commands in a row; the group's answer budget
    (bot/delivery/chatter.py, tested in test_what_players_see) would route the later answers to
    private chats, which is not what these tests look at."""
    assert app.service is not None
    app.service.chatter = ChatterLimit(cooldown=0.0, burst=1000.0)


def group_texts(group: FakeChat, needle: str) -> list[str]:
    return [m.text for m in group.bot_messages() if needle in (m.text or "")]


async def drained(app: App) -> bool:
    assert app.service is not None and app.delivery is not None
    return not app.delivery._in_flight and await app.service.storage.outbox_size() == 0


async def the_game(app: App, chat_id: int) -> Game:
    assert app.service is not None
    game = await app.service.storage.open_game(chat_id, None)
    assert game is not None
    return game


async def move_count(app: App, game_id: int) -> int:
    assert app.service is not None
    return len(await app.service.storage.moves(game_id))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def menu_of(fake: FakeTelegram, chat: FakeChat, needle: str) -> FakeMessage:
    found = await fake.wait_for(
        lambda: next(
            (m for m in reversed(chat.bot_messages()) if needle in (m.text or "") and m.buttons),
            None,
        ),
        description=f"a menu with {needle!r}",
    )
    assert isinstance(found, FakeMessage)
    return found


async def last_reply(fake: FakeTelegram, group: FakeChat, needle: str) -> FakeMessage:
    found = await fake.wait_for(
        lambda: next((m for m in reversed(group.bot_messages()) if needle in (m.text or "")), None),
        description=f"a message with {needle!r}",
    )
    assert isinstance(found, FakeMessage)
    return found
