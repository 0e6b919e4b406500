"""Callback data factories. Every button names its game (and the version it was drawn for)."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class LobbyCb(CallbackData, prefix="l"):
    game: int
    action: str  # join | leave | start | again | bot-<level>


class CardCb(CallbackData, prefix="t"):
    """Toggle one card in the player's selection."""

    game: int
    v: int
    card: str


class PlayCb(CallbackData, prefix="p"):
    """Play the selected cards: kind l = lead, b = beat, d = discard (R7)."""

    game: int
    v: int
    kind: str
    cards: str  # card codes joined by "."


class CancelCb(CallbackData, prefix="x"):
    game: int
    v: int
    confirm: bool


class LangCb(CallbackData, prefix="lang"):
    code: str


ALL_FACTORIES: tuple[type[CallbackData], ...] = (LobbyCb, CardCb, PlayCb, CancelCb, LangCb)
