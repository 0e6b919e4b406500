"""Command line: ``python -m engine replay FILE|-`` (any game, told apart by the record's
``format``) and ``python -m engine play``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from engine.burkozel.ai import LEVELS
from engine.burkozel.play import run
from engine.burkozel.rules import Rules
from engine.errors import RecordError, RuleSetError
from engine.registry import replay_json


def _replay(path: str) -> int:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:
        print(f"error: record: not UTF-8 text (byte {exc.start})", file=sys.stderr)
        return 2
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"error: record: not JSON ({exc.msg} at line {exc.lineno})", file=sys.stderr)
        return 2
    try:
        result = replay_json(data)
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    replay_cmd = commands.add_parser("replay", help="replay a game record and print its result")
    replay_cmd.add_argument("file", help="record file, or - for standard input")
    play_cmd = commands.add_parser("play", help="play a series against computer players")
    play_cmd.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    play_cmd.add_argument("--level", choices=LEVELS, default="normal")
    play_cmd.add_argument("--seed", type=int, default=None, help="same seed, same cards")
    play_cmd.add_argument(
        "--rules",
        nargs="*",
        default=[],
        metavar="NAME=VALUE",
        help="house rules (RULES.md Part B), e.g. combinations=on teams=pairs",
    )
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args.file)
    if args.command == "play":
        try:
            rules = Rules.from_options(args.rules)
            rules.check_players(args.players)
        except RuleSetError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return run(args.players, args.level, args.seed, rules=rules)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":
    sys.exit(main())
