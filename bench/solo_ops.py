"""Telegram operations per move for a game against computers in the private chat.

Usage: .venv/bin/python bench/solo_ops.py [--seed N]

A whole series of each game against one and three computer players (easy), through the
real bot (bot.app.App: handlers, service, SQLite, delivery worker) and the fake Bot API,
unpaced. The player opens the menu from the greeting, taps «▶️ Play» and plays by tapping
the game message's buttons (a listed play, else a card: a move by itself or a selection
toward one), as tests/e2e/test_solo.py does. It prints, per series: the moves logged (the
computers' too), the player's taps that were not moves (▶️ Play, cards selected,
refusals), the Telegram operations the private chat took (the fake's calls), and what
each commit queued for that chat (the outbox: at most one operation a commit, the series'
result picture aside). A private chat takes about one operation a second.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bot import TOKEN, UNPACED  # noqa: E402
from bot.app import App  # noqa: E402
from bot.config import Settings  # noqa: E402
from tests.support.fake_telegram import FakeTelegram  # noqa: E402
from tests.support.solo import OPERATIONS, Player, choose, open_menu, play, play_moves  # noqa: E402

SETUPS = (
    ("Classic Burkozel", 1),
    ("Classic Burkozel", 3),
    ("Classic Bura", 1),
    ("Classic Bura", 3),
)


async def one_series(rules: str, computers: int, seed: int, tmp: Path) -> dict[str, Any]:
    db = tmp / f"solo-{seed}-{computers}-{rules.replace(' ', '_')}.sqlite3"
    async with FakeTelegram(token=TOKEN) as fake:
        fake.enforce_limits = False
        user = fake.add_user("Solo <&> 🂡", language_code="en")
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            bot_token=fake.token,
            database_path=db,
            telegram_api_url=fake.api_url,
            default_language="en",
            computer_pause_seconds=0.0,
            log_level="WARNING",
        )
        app = App(settings, limits=UNPACED, handle_signals=False)
        task = asyncio.create_task(app.run())
        await asyncio.wait_for(app.ready.wait(), 15)
        assert app.service is not None
        storage = app.service.storage
        queued: list[int] = []  # operations each commit queued for the private chat
        commit = storage.commit

        async def counting_commit(game_id: int, version: int, change: Any) -> Any:
            queued.append(sum(1 for op in change.outbox if op.chat_id == user.id))
            return await commit(game_id, version, change)

        storage.commit = counting_commit  # type: ignore[method-assign]
        try:
            player = Player(fake, user, db)
            menu = await open_menu(fake, user)
            await choose(fake, user, menu, rules)
            await choose(fake, user, menu, "🤖" * computers)
            await choose(fake, user, menu, "easy")
            before = player.operations()
            calls = len(fake.requests)
            await play(player, menu)
            await play_moves(player, random.Random(seed))
            await fake.wait_for(lambda: any(m.photo for m in user.dm.bot_messages()))
            record = await storage.export_record(player.game_id)
        finally:
            await app.stop()
            await asyncio.wait_for(task, 15)
    kinds = Counter(
        r.method
        for r in fake.requests[calls:]
        if r.method in OPERATIONS and str(r.params.get("chat_id")) == str(user.id)
    )
    moves = sum(len(d["moves"]) for d in record["deals"])
    human = sum(1 for d in record["deals"] for m in d["moves"] if m.get("seat") == 0)
    return {
        "rules": rules,
        "computers": computers,
        "deals": len(record["deals"]),
        "moves": moves,
        "other taps": player.taps - human,
        "ops": player.operations() - before,
        "kinds": dict(kinds),
        "queued": Counter(queued),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    print("Telegram operations in the private chat, a whole series against computers (easy)")
    print(
        f"{'rules':18} {'cpu':>3} {'deals':>5} {'moves':>5} {'taps*':>5} {'ops':>5}"
        f" {'ops/move':>8} {'ops/(move+tap*)':>15}  per commit (ops: commits)  by method"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for rules, computers in SETUPS:
            row = await one_series(rules, computers, args.seed, Path(tmp))
            changes = row["moves"] + row["other taps"]
            queued = ", ".join(f"{k}: {v}" for k, v in sorted(row["queued"].items()))
            print(
                f"{row['rules']:18} {row['computers']:>3} {row['deals']:>5} {row['moves']:>5}"
                f" {row['other taps']:>5} {row['ops']:>5} {row['ops'] / row['moves']:>8.2f}"
                f" {row['ops'] / changes:>15.2f}  {queued:26} {row['kinds']}"
            )
    print(
        "taps*: the player's taps that were not moves (▶️ Play, a card selected, a refusal)."
        "\nper commit: how many operations each commit queued for the chat (1 at most, and"
        "\n2 for the commit that ends the series: the final table and the result picture)."
        "\nAt about one operation a second in a private chat, a move every second is the most"
        "\nthat chat can show one by one; faster moves (the computers') are coalesced."
    )


if __name__ == "__main__":
    asyncio.run(main())
