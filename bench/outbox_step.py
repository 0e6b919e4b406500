"""The sender's cost per step against the outbox's backlog, before and after a change.

``python bench/outbox_step.py [--before DIR] [--database-url URL]``: for a backlog of
0, 1,000 and 5,000 answers queued in as many private chats (a flood of strangers'
commands, bench/junk.py) plus one game's table edit in a group, runs the delivery
worker's ``step`` 200 times with the bot-wide bucket full each time (three operations may
start, as in the busiest second). Nothing is sent: the operations a step starts are
counted and dropped, so the backlog stays as it was. Figures per step: the event loop's
CPU (its thread: what the updates wait for), the process's CPU (with SQLite's storage
thread), the wall time, and the outbox rows the storage handed to the sender; and the
event loop's CPU per operation started. ``--before DIR``: the same measured with the
source tree in DIR too (e.g. ``git archive <commit> | tar -x -C DIR``), side by side.
SQLite in a temporary directory unless ``--database-url`` names a PostgreSQL database
(emptied of its outbox first).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BACKLOGS = (0, 1000, 5000)
STEPS = 200


async def measure(backlog: int, url: str | None) -> dict[str, float]:
    from bot.delivery.worker import Bucket, DeliveryWorker, Limits
    from storage import OutboxItem, OutboxOp, open_storage

    with tempfile.TemporaryDirectory() as tmp:
        storage = await open_storage(url or f"sqlite:{Path(tmp) / 'bot.sqlite3'}")
        try:
            if url is not None:
                async with storage._conn() as conn:  # type: ignore[attr-defined]
                    await conn.execute("DELETE FROM outbox")
            answers = [OutboxOp(n, "send", {"text": f"answer {n}"}) for n in range(1, backlog + 1)]
            for start in range(0, len(answers), 1000):
                await storage.enqueue(tuple(answers[start : start + 1000]))
            await storage.enqueue((OutboxOp(-5, "edit", {"text": "the table"}, 9, "table"),))
            rows = 0
            started = 0
            inner = storage

            class Counting:
                def __getattr__(self, name: str) -> Any:
                    method = getattr(inner, name)
                    if not asyncio.iscoroutinefunction(method):
                        return method

                    async def counted(*args: Any, **kwargs: Any) -> Any:
                        nonlocal rows
                        result = await method(*args, **kwargs)
                        found = getattr(result, "turns", result)
                        if isinstance(found, list):
                            rows += len(found)
                        return result

                    return counted

            async def nothing() -> None:
                return None

            worker = DeliveryWorker(
                None,  # type: ignore[arg-type]  # nothing is sent
                Counting(),  # type: ignore[arg-type]
                asyncio.Event(),
                on_forbidden=nothing,  # type: ignore[arg-type]
                on_migrated=nothing,  # type: ignore[arg-type]
                limits=Limits(),
            )

            async def deliver(item: OutboxItem) -> None:
                nonlocal started
                started += 1

            worker._deliver = deliver  # type: ignore[method-assign]
            for warm_up in (True, False):
                rows = started = 0
                cpu_loop, cpu_all, wall = (
                    time.thread_time(),
                    time.process_time(),
                    time.perf_counter(),
                )
                for _ in range(STEPS if not warm_up else 10):
                    lim = worker.limits
                    worker._global = Bucket(lim.global_capacity, lim.global_rate)
                    worker._buckets.clear()
                    await worker.step()
                    await asyncio.gather(*worker._in_flight.values())
                    worker._in_flight.clear()
                cpu_loop = time.thread_time() - cpu_loop
                cpu_all = time.process_time() - cpu_all
                wall = time.perf_counter() - wall
            return {
                "loop_ms": 1000 * cpu_loop / STEPS,
                "cpu_ms": 1000 * cpu_all / STEPS,
                "wall_ms": 1000 * wall / STEPS,
                "rows": rows / STEPS,
                "loop_ms_per_op": 1000 * cpu_loop / max(1, started),
                "ops": started / STEPS,
            }
        finally:
            await storage.close()


def run_in(tree: Path, url: str | None) -> dict[int, dict[str, float]]:
    """The figures with the worker and storage of the source tree ``tree``."""
    args = [sys.executable, str(Path(__file__).resolve()), "--measure"]
    if url:
        args += ["--database-url", url]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(args, cwd=tree, env=env, check=True, capture_output=True, text=True)
    return {int(k): v for k, v in json.loads(out.stdout).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the source tree to compare with")
    parser.add_argument("--database-url")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        sys.path.insert(0, os.getcwd())
        figures = {b: asyncio.run(measure(b, args.database_url)) for b in BACKLOGS}
        print(json.dumps(figures))
        return
    trees = {"after": Path(__file__).resolve().parent.parent}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    results = {name: run_in(tree, args.database_url) for name, tree in trees.items()}
    backend = "PostgreSQL" if args.database_url else "SQLite"
    print(f"{backend}; {STEPS} steps per backlog, each with the bot-wide bucket full")
    print(
        f"{'backlog':>8} {'tree':>7} {'loop ms/step':>13} {'cpu ms/step':>12}"
        f" {'wall ms/step':>13} {'rows/step':>10} {'ops/step':>9} {'loop ms/op':>11}"
    )
    for backlog in BACKLOGS:
        for name, figures in results.items():
            f = figures[backlog]
            print(
                f"{backlog:>8} {name:>7} {f['loop_ms']:>13.2f} {f['cpu_ms']:>12.2f}"
                f" {f['wall_ms']:>13.2f} {f['rows']:>10.1f} {f['ops']:>9.2f}"
                f" {f['loop_ms_per_op']:>11.2f}"
            )


if __name__ == "__main__":
    main()
