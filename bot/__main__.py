"""Placeholder until the bot lands (issue 4): say so clearly instead of failing obscurely."""

import sys

if __name__ == "__main__":
    print("The Telegram bot is not built yet; try `python -m engine replay FILE`.", file=sys.stderr)
    sys.exit(1)
