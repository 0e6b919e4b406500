"""``python -m storage copy SRC_URL DST_URL``: move a whole database to another backend.

URLs as DATABASE_URL takes them: ``sqlite:PATH`` or ``postgresql://user:pw@host/db``.
The target must be empty. Stop the bot first. Exit status 2 with one line on failure.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from storage.copy import copy_database
from storage.errors import StorageError
from storage.postgres import redact
from storage.url import parse_database_url


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage")
    commands = parser.add_subparsers(dest="command", required=True)
    copy = commands.add_parser("copy", help="copy a whole database into an empty one")
    copy.add_argument("source", metavar="SRC_URL")
    copy.add_argument("target", metavar="DST_URL")
    args = parser.parse_args(argv)
    for name, url in (("SRC_URL", args.source), ("DST_URL", args.target)):
        try:
            parse_database_url(url)
        except ValueError as exc:
            print(f"{name} is invalid: {exc}", file=sys.stderr)
            return 2
    try:
        counts = asyncio.run(copy_database(args.source, args.target))
    except (StorageError, OSError) as exc:
        print(f"copy failed: {exc}", file=sys.stderr)
        return 2
    summary = ", ".join(f"{table} {n}" for table, n in counts.items())
    print(f"copied {sum(counts.values())} rows into {redact(args.target)}: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
