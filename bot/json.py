"""JSON objects as Python holds them: game records and the Mini App's state. A value is
whatever JSON holds (a number, a string, a list, an object...), which no narrower type
says: the one place the seam between a game and the bot admits ``Any``."""

from typing import Any

Json = dict[str, Any]
