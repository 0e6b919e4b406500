"""Callback data factories. Every button names its game (and the version it was drawn for).

Callback data is forgeable: ids are checked for range here, at the edge, so a forged
``l:9223372036854775808:again`` never reaches storage (SQLite integers are 64-bit)
and does not match any handler but the one answering "this button is not valid".
"""

from __future__ import annotations

from typing import Annotated

from aiogram.filters.callback_data import CallbackData
from pydantic import Field

MAX_ID = 2**63 - 1  # SQLite's largest integer
GameId = Annotated[int, Field(gt=0, le=MAX_ID)]
# The group a button acts on, named by the buttons of a group command's answer, which may
# be sent to the asker's private chat instead (bot/handlers/common.py). Groups' ids are
# negative.
GroupId = Annotated[int, Field(ge=-MAX_ID, lt=0)]
Version = Annotated[int, Field(ge=0, le=MAX_ID)]


class LobbyCb(CallbackData, prefix="l"):
    game: GameId
    action: str  # join | leave | start | again | bot-<level>


class CardCb(CallbackData, prefix="t"):
    """Toggle one card in the player's selection."""

    game: GameId
    v: Version
    card: str


def card_data(game: int, version: int, code: str) -> str:
    """``CardCb(game=, v=, card=).pack()`` without building a model: drawn for every card
    of every hand on every move (tests check the two agree)."""
    return f"t:{game}:{version}:{code}"


def play_data(game: int, version: int, kind: str, codes: str) -> str:
    """``PlayCb(...).pack()`` without building a model, like ``card_data``."""
    return f"p:{game}:{version}:{kind}:{codes}"


class PlayCb(CallbackData, prefix="p"):
    """Play the selected cards: kind l = lead, b = beat, d = discard (R7)."""

    game: GameId
    v: Version
    kind: str
    cards: str  # card codes joined by "."


class MyCardsCb(CallbackData, prefix="mc"):
    """«🂠 My cards» under the group's table: the tapper's hand, shown inside the group to
    them alone (an ephemeral message). Names the game only: whatever its version, the
    hand shown is the current one."""

    game: GameId


class CancelCb(CallbackData, prefix="x"):
    """Confirm ending a game. It asks about the game, not a position: no version, so it
    stays valid however many moves are made meanwhile."""

    game: GameId
    confirm: bool


class LangCb(CallbackData, prefix="lang"):
    code: str
    chat: GroupId


class SettingsCb(CallbackData, prefix="st"):
    """The /settings menu. ``game`` above 0: a lobby's own rules; below 0: the
    defaults of the group of that id (a menu that may be in a private chat); 0: of the
    group the menu is in (menus drawn by older versions). ``action``: game | set | preset |
    timer | standin | hands | lang | pics | open | close; ``name``/``value`` are checked against
    bot/chat_settings.py before anything changes."""

    game: Annotated[int, Field(ge=-MAX_ID, le=MAX_ID)]
    action: str
    name: str = ""
    value: str = ""


class SoloCb(CallbackData, prefix="so"):
    """The choice of a game against computers in the private chat: the whole choice so
    far, so the menu keeps no state (``action``: menu = show it as a new message, set =
    redraw it with this choice, go = play). Checked before anything is created."""

    preset: str
    computers: int
    level: str
    action: str


ALL_FACTORIES: tuple[type[CallbackData], ...] = (
    LobbyCb,
    CardCb,
    PlayCb,
    MyCardsCb,
    CancelCb,
    LangCb,
    SettingsCb,
    SoloCb,
)
