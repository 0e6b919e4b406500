"""How soon the bot reads updates again after Telegram was out.

Usage: .venv/bin/python bench/reading_after_outage.py [--rounds 5] [--down 20]

The bot (the App of ``python -m bot``, long polling) plays a game against the fake Bot API
in this process. Each round Telegram is out for --down seconds: every call, getUpdates
too, hangs (a dead connection: never answered, even after the outage), gets nginx's HTML
502 page, a JSON 500 or a dropped connection. Halfway through, the player whose turn it
is taps a card. Figures per round, from the moment the fake answers again:
- read: until the first getUpdates answered 200;
- tap: until that tap is answered;
- and the getUpdates calls made during the outage (of them hung).
Nothing is asserted; the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.redact import configure_logging  # noqa: E402
from tests.support.fake_telegram import METHODS, FakeTelegram  # noqa: E402
from tests.support.harness import hand_message, new_fake, open_game, running_bot, whose_turn  # noqa: E402


def polls_since(fake: FakeTelegram, since: float) -> list[tuple[float, int, str | None]]:
    return [
        (r.time, r.status, r.description)
        for r in fake.requests
        if r.method == "getUpdates" and r.time >= since
    ]


async def bench(rounds: int, down: float) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        fake.callback_answer_timeout = 3600.0  # the tap waits out the outage
        alice, bob = fake.add_user("Alice"), fake.add_user("Bob")
        group = fake.add_group("Friends", members=[alice, bob])
        with tempfile.TemporaryDirectory() as tmp:
            async with running_bot(fake, Path(tmp) / "bot.sqlite3"):
                await open_game(fake, group, [alice, bob])
                print(f"{'round':>5} {'read s':>7} {'tap s':>7} {'polls':>6} {'hung':>5}")
                reads, taps = [], []
                for n in range(1, rounds + 1):
                    # (the sender may take long to bring the hands up to date after an outage)
                    player = await fake.wait_for(
                        lambda: whose_turn([alice, bob], group), timeout=180
                    )
                    hand = hand_message(player, group)
                    assert hand is not None
                    faults = fake.faults
                    faults.methods = set(METHODS)
                    faults.p_hang, faults.p_5xx, faults.p_disconnect = 0.3, 0.4, 0.3
                    faults.statuses_5xx, faults.html_5xx = (502, 500), True
                    began = time.monotonic()
                    fake.future_update("outage_begins", {})  # ends the long poll under way
                    await asyncio.sleep(down / 2)
                    tap = await player.tap(hand, index=(0, 0))
                    await asyncio.sleep(down / 2)
                    faults.clear()
                    back = time.monotonic()
                    during = polls_since(fake, began)
                    await fake.wait_for(
                        lambda b=back: any(s == 200 for _, s, _ in polls_since(fake, b)),
                        timeout=120,
                    )
                    read = next(t for t, s, _ in polls_since(fake, back) if s == 200) - back
                    await tap.wait(timeout=120)
                    answered = time.monotonic() - back
                    reads.append(read)
                    taps.append(answered)
                    hung = sum(1 for _, _, d in during if d == "hung")
                    print(f"{n:>5} {read:>7.1f} {answered:>7.1f} {len(during):>6} {hung:>5}")
                print(
                    f"  max {max(reads):>7.1f} {max(taps):>7.1f}"
                    f"   (median read {statistics.median(reads):.1f} s,"
                    f" tap {statistics.median(taps):.1f} s)"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--down", type=float, default=20.0, help="seconds Telegram is out")
    args = parser.parse_args()
    configure_logging("ERROR")  # as python -m bot logs
    asyncio.run(bench(args.rounds, args.down))


if __name__ == "__main__":
    main()
