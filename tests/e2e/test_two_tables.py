"""One person seated at two tables at once sees every play (R8).

Her two hands share one private chat, which Telegram lets the bot edit about once a
second, while the computer players at both tables move faster than that. A pending edit
of a hand is replaced by a newer one, and the edit showing a finished trick used to be
replaced by the next lead's, which no longer shows it: the card that completed the trick
never reached her (15 of 121 plays in the report; the group table, at 20 edits a minute,
skips states too). Measured before the fix: 4-14 of 26-31 plays unseen in 8 of her moves.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from engine.burkozel import Action
from tests.support.fake_telegram import FakeChat, FakeTelegram, FakeUser
from tests.support.harness import (
    drained,
    hand_message,
    is_my_turn,
    new_fake,
    play_one_move,
    running_bot,
    the_game,
)

DEAL = re.compile(r"deal (\d+)")
PREVIOUS = re.compile(r"^Last trick of deal (\d+) ")


def plays_shown(texts: Iterable[str]) -> set[tuple[int, str]]:
    """Every play line ever shown, with the number of the deal it was played in: a screen
    says its deal in its first line, and the deal before's last trick under its own header."""
    shown: set[tuple[int, str]] = set()
    for text in texts:
        lines = text.splitlines()
        found = DEAL.search(lines[0]) if lines else None
        if found is None:
            continue
        deal = int(found.group(1))
        for line in lines[1:]:
            if previous := PREVIOUS.match(line):
                deal = int(previous.group(1))
            elif line.startswith("  "):
                shown.add((deal, line.strip().replace("★", "").replace(" 👑", "")))
    return shown


def my_turn(user: FakeUser, group: FakeChat) -> bool:
    hand = hand_message(user, group)
    return hand is not None and is_my_turn(hand)


async def add_computers(fake: FakeTelegram, group: FakeChat, user: FakeUser, count: int) -> None:
    await user.send(group, "/newgame")
    lobby = await fake.wait_for(
        lambda: next((m for m in group.bot_messages() if "▶️ Start" in m.button_texts), None),
        description="the lobby",
    )
    for number in range(1, count + 1):
        await user.send(group, "/addbot normal")
        await fake.wait_for(lambda n=number: f"Computer {n} " in lobby.text, timeout=20)
    await (await user.tap(lobby, "▶️ Start")).wait(timeout=20)
    await fake.wait_for(lambda: hand_message(user, group), timeout=20)


TITLES = {3: "Trio", 4: "Quartet"}


@pytest.mark.parametrize("players", [(3, 4), (4,)], ids=["two tables", "one table"])
async def test_r8_a_player_at_one_or_two_tables_is_shown_every_play(
    tmp_path: Path, players: tuple[int, ...]
) -> None:
    """Also at one table: computers move faster than her chat takes edits."""
    rng = random.Random(8)
    async with new_fake() as fake:  # Telegram's limits enforced
        alice = fake.add_user("Alice")
        tables = tuple(fake.add_group(TITLES[n], members=[alice]) for n in players)
        # The bot's own pacing (about one private edit a second); computers at 0.05 s.
        async with running_bot(fake, tmp_path / "bot.sqlite3", limits=None) as app:
            assert app.service is not None
            await alice.start_bot()
            for group, count in zip(tables, players, strict=True):
                await add_computers(fake, group, alice, count - 1)
            for _ in range(8):
                group = await fake.wait_for(
                    lambda: next((g for g in tables if my_turn(alice, g)), None),
                    timeout=60,
                    description="Alice's turn at either table",
                )
                await play_one_move(fake, alice, rng, group)
            # Both tables wait for her again, and everything queued has been delivered.
            await fake.wait_for(
                lambda: all(my_turn(alice, g) for g in tables),
                timeout=60,
                description="Alice's turn at both tables",
            )
            await fake.wait_for(lambda: drained(app), timeout=60, description="outbox drained")
            dm = alice.dm.all_texts(False)
            unseen = []
            total = 0
            for group in tables:
                game = await the_game(app, group.id)
                names = {s.seat: s.name for s in game.seats}
                # Her own chat, not the group: the group table (20 edits a minute) skips
                # states too, and she may not be looking at that group at all.
                seen = plays_shown([t for t in dm if f"«{group.title}»" in t])
                for logged in await app.service.storage.moves(game.id):
                    move = Action.from_json(logged.move)
                    cards = " ".join(c.pretty() for c in move.cards)
                    total += 1
                    kinds = ("leads", "beats", "discards")
                    lines = {f"{names[move.seat]}: {kind} {cards}" for kind in kinds}
                    if not any((logged.deal_index + 1, line) in seen for line in lines):
                        unseen.append(f"{group.title}, deal {logged.deal_index + 1}: {lines}")
            assert total > 10 * len(tables)
            assert not unseen, f"{len(unseen)} of {total} plays never shown:\n" + "\n".join(unseen)
        assert fake.flood_violations == []
        assert fake.invalid_requests == []
