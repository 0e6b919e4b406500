"""Everything players see in a few seeded games, written out in a stable order, so that a
change meant to leave the screens alone can be shown to: dump before, dump after, diff.

    .venv/bin/python -m tests.support.screens_dump OUT.txt

The real bot runs against the fake Telegram. Decks come from a seeded rng, the service's
clock stands still and only moves to the next computer's (or the automatic draw's) due
time, and a person taps only once the bot has settled (its outbox sent, nobody's timer
due), so every run sends the same messages and edits in the same order. The humans pick
their buttons with a seeded rng. Written out: every version of every message of every
chat (text, button labels, callback data) and every answer to a tap.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.app import App
from bot.delivery.chatter import ChatterLimit
from storage import Game
from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from tests.support.harness import new_fake, running_bot

START = 1_800_000_000.0
"""The standing clock's first reading (a fixed time: turn timers read the same)."""
MOST_TAPS = 600
"""A scenario's people tap at most this often (a game that does not end is cut short)."""


class StandingClock:
    """``service.settings.clock``: stands still until the dump moves it to a due time."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@dataclass
class Scene:
    """One scenario's fake, bot and the log of tap answers."""

    fake: FakeTelegram
    app: App
    clock: StandingClock
    rng: random.Random
    answers: list[str] = field(default_factory=list)

    @property
    def storage(self) -> Any:
        assert self.app.service is not None
        return self.app.service.storage

    async def drained(self) -> bool:
        assert self.app.delivery is not None
        return not self.app.delivery._in_flight and await self.storage.outbox_size() == 0

    async def tap(self, user: FakeUser, message: FakeMessage, data: str) -> None:
        answer = await (await user.tap(message, data=data)).wait(timeout=10)
        alert = " (alert)" if answer.show_alert else ""
        self.answers.append(f"{user.first_name} taps {data}: {answer.text!r}{alert}")

    async def settle(self, chat_id: int) -> Game | None:
        """Wait until the outbox is sent and no timer but a person's is due; computers and
        the automatic draw are moved on by moving the clock to their due time. The game
        (None: ended)."""
        assert self.app.service is not None
        loop = asyncio.get_running_loop()
        give_up = loop.time() + 120
        while True:
            assert loop.time() < give_up, "the bot does not settle"
            if not await self.drained():
                await asyncio.sleep(0.01)
                continue
            game = await self.storage.open_game(chat_id, None)
            if game is None or game.status != "playing" or game.deadline is None:
                await asyncio.sleep(0.05)
                if await self.drained() and game == await self.storage.open_game(chat_id, None):
                    return game
                continue
            deadline = game.deadline
            if deadline.due_at - self.clock.now > 60:
                return game  # a person's turn, under the turn timer
            self.clock.now = max(self.clock.now, deadline.due_at)
            await self.app.service.tick()


def hand_of(user: FakeUser) -> FakeMessage | None:
    """The user's latest private message with card or play buttons."""
    for message in reversed(user.dm.bot_messages()):
        if any((b.callback_data or "")[:2] in ("t:", "p:") for row in message.buttons for b in row):
            return message
    return None


async def play_out(scene: Scene, chat_id: int, people: dict[int, FakeUser]) -> None:
    """The people tap (a listed play, else any card or button, chosen by the rng) on their
    turns until the game ends."""
    for _ in range(MOST_TAPS):
        game = await scene.settle(chat_id)
        if game is None:
            return
        assert game.deadline is not None
        seat = game.seats[game.deadline.seat]
        user = people[seat.user_id or 0]
        hand = hand_of(user)
        assert hand is not None, f"{user.first_name} has no hand"
        # A keyboard drawn at ``state_version`` or later is current (a commit of the
        # deadline alone, such as a computer letting a «Стоп!» pass, redraws no hand).
        buttons = [
            b
            for row in hand.buttons
            for b in row
            if (parts := (b.callback_data or "").split(":"))[0] in ("t", "p")
            and int(parts[1]) == game.id
            and int(parts[2]) >= game.state_version
        ]
        assert buttons, f"{user.first_name}'s hand is not current: {hand.text}"
        listed = [b for b in buttons if b.callback_data.startswith("p:")]
        choice = scene.rng.choice(listed if listed and scene.rng.random() < 0.6 else buttons)
        await scene.tap(user, hand, choice.callback_data)


async def lobby(scene: Scene, group: FakeChat) -> FakeMessage:
    found = await scene.fake.wait_for(
        lambda: next((m for m in group.bot_messages() if m.buttons), None),
        description="the lobby",
    )
    assert isinstance(found, FakeMessage)
    return found


def lobby_data(lobby: FakeMessage, action: str) -> str:
    """The callback data of the lobby's button for ``action`` (labels are translated)."""
    return next(
        data
        for row in lobby.buttons
        for b in row
        if (data := b.callback_data or "").endswith(f":{action}")
    )


async def group_game(
    scene: Scene,
    group: FakeChat,
    people: list[FakeUser],
    *,
    rules: dict[str, Any],
    command: str,
    computers: int,
) -> None:
    """The first person opens a game in ``group`` under ``rules``, the others join, the
    computers are added, and everyone plays it out."""
    for user in people:
        sent = await user.start_bot()
        # (A message is handled some time after it is sent: wait for what it does.)
        await scene.fake.wait_for(
            lambda: any(m.message_id > sent.message_id for m in user.dm.bot_messages()),
            description=f"the answer to {user.first_name}'s Start",
        )
    await scene.storage.set_chat_rules(group.id, rules)
    await people[0].send(group, command)
    await scene.settle(group.id)
    table = await lobby(scene, group)
    for user in people[1:]:
        await scene.tap(user, table, lobby_data(table, "join"))
        await scene.settle(group.id)
    for _ in range(computers):
        versions = len(table.history)
        await people[0].send(group, "/addbot easy")
        await scene.fake.wait_for(
            lambda: len(table.history) > versions, description="the lobby with the computer"
        )
        await scene.settle(group.id)
    await scene.tap(people[0], table, lobby_data(table, "start"))
    by_id = {u.id: u for u in people}
    await play_out(scene, group.id, by_id)
    await scene.settle(group.id)


async def burkozel_house_rules(scene: Scene) -> list[FakeChat]:
    """Two people in a group titled with HTML, closed discards (B1) and combinations
    (B6), in English."""
    anna = scene.fake.add_user("<b>Аня & Co</b> 😀", language_code="en")
    bob = scene.fake.add_user("Bob & <i>", language_code="en")
    group = scene.fake.add_group("Пики & Трефы <3 🃏", members=[anna, bob])
    rules = {"burkozel": {"discards": "closed", "combinations": "on", "max_lead": 4}}
    await group_game(scene, group, [anna, bob], rules=rules, command="/newgame", computers=0)
    return [group, anna.dm, bob.dm]


async def burkozel_pairs(scene: Scene) -> list[FakeChat]:
    """B5 pairs: two people (Russian) and two computers."""
    ivan = scene.fake.add_user("Иван <&> 🂡", language_code="ru")
    olga = scene.fake.add_user("Оля & Ко", language_code="ru")
    group = scene.fake.add_group("Пары <i>", members=[ivan, olga])
    rules = {"burkozel": {"teams": "pairs"}}
    await group_game(scene, group, [ivan, olga], rules=rules, command="/newgame", computers=2)
    return [group, ivan.dm, olga.dm]


async def bura_with_a_computer(scene: Scene) -> list[FakeChat]:
    """Bura: a person (Russian) and two computers, in a Russian group."""
    yozh = scene.fake.add_user("Ёж <3 & 🦔", language_code="ru")
    group = scene.fake.add_group("Бура & <b>", members=[yozh])
    await group_game(
        scene, group, [yozh], rules={"game": "bura"}, command="/newgame bura", computers=2
    )
    return [group, yozh.dm]


OPEN_BURA = {
    "game": "bura",
    "discards": "open",
    "same_rank_leads": "on",
    "moscow": "on",
    "series": "robber_11",
    "dave": "on",
}


async def bura_two_people(scene: Scene) -> list[FakeChat]:
    """Bura between two people and a computer, English and Russian, under open discards
    (D3), same-rank leads (D2), Москва (D8), robber to 11 (D10) and даве (D11)."""
    kate = scene.fake.add_user("Kate <&>", language_code="en")
    lev = scene.fake.add_user("Лев 🦁", language_code="ru")
    group = scene.fake.add_group("Bura <night> & day", members=[kate, lev])
    await group_game(
        scene, group, [kate, lev], rules=OPEN_BURA, command="/newgame bura", computers=1
    )
    return [group, kate.dm, lev.dm]


Scenario = Callable[[Scene], Awaitable[list[FakeChat]]]
SCENARIOS: list[tuple[str, Scenario, str, int]] = [
    ("Burkozel, house rules, two people, English", burkozel_house_rules, "en", 1),
    ("Burkozel, pairs, two people and two computers, Russian", burkozel_pairs, "ru", 2),
    ("Bura, a person and two computers, Russian", bura_with_a_computer, "ru", 3),
    ("Bura, open, two people and a computer, English and Russian", bura_two_people, "en", 4),
]


def buttons_of(markup: dict[str, Any] | None) -> list[str]:
    rows = (markup or {}).get("inline_keyboard", [])
    out = []
    for row in rows:
        cells = []
        for b in row:
            target = b.get("callback_data") or b.get("url") or (b.get("web_app") or {}).get("url")
            cells.append(f"[{b.get('text')} | {target}]")
        out.append("  " + " ".join(cells))
    return out


def chat_lines(chat: FakeChat) -> list[str]:
    name = chat.title if chat.is_group else f"DM of {chat.user.first_name if chat.user else '?'}"
    lines = [f"=== chat {name}"]
    for message in chat.all_messages:
        if not message.is_from_bot:
            lines.append(f"--- #{message.message_id} person: {message.text!r}")
            continue
        extra = " photo" if message.photo else ""
        extra += f" document {message.document[0]}" if message.document else ""
        extra += " deleted" if message.deleted else ""
        extra += " pinned" if message.pinned else ""
        lines.append(f"--- #{message.message_id} bot{extra}")
        for n, version in enumerate(message.history):
            lines.append(f"  v{n}:")
            lines.extend("  | " + line for line in (version.text or "").split("\n"))
            lines.extend(buttons_of(version.reply_markup))
    return lines


async def run_scenario(title: str, scenario: Scenario, language: str, seed: int) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        async with new_fake() as fake:
            fake.enforce_limits = False
            async with running_bot(
                fake,
                Path(folder) / "bot.sqlite3",
                default_language=language,
                computer_pause_seconds=1.0,
            ) as app:
                assert app.service is not None
                clock = StandingClock()
                app.service.settings.clock = clock
                app.service.settings.rng = random.Random(seed)
                app.service.chatter = ChatterLimit(cooldown=0.0, burst=1000.0)
                scene = Scene(fake, app, clock, random.Random(seed))
                chats = await scenario(scene)
            assert fake.invalid_requests == [], fake.invalid_requests
    lines = [f"##### {title}"]
    for chat in chats:
        lines.extend(chat_lines(chat))
    lines.append("=== tap answers")
    lines.extend(scene.answers)
    return lines


async def dump() -> str:
    lines: list[str] = []
    for title, scenario, language, seed in SCENARIOS:
        lines.extend(await run_scenario(title, scenario, language, seed))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(asyncio.run(dump()), encoding="utf-8")
