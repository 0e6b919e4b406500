"""The seed of a Bura computer player's decision: a pure function of (player seed, view).

The view is written out as text (``position_text``) and ``random.Random`` seeded with
that text, which it hashes with SHA-512: stable across processes and Python runs,
unlike ``hash()``. The text is spelled out here field by field rather than taken from
``repr``: renaming a class or adding a field to a view must not change which moves the
computers make (bench/engine_same.py digests them). It is the text ``repr`` gave when
the view's classes were called ``BuraView`` and ``BuraDealResult``, so the seeds, and the
moves, are those the players have always made.
"""

from __future__ import annotations

import random

from engine.bura.actions import DealResult
from engine.bura.view import SeenPile, SeenPlay, View
from engine.cards import Card, Suit

# Each value in the text: its name there and its fields, in order.
_RECORDS: dict[type, tuple[str, tuple[str, ...]]] = {
    View: (
        "BuraView",
        (
            "seat",
            "players",
            "hand",
            "hand_sizes",
            "trump",
            "trump_card",
            "trump_card_drawn_by",
            "stock_size",
            "dealer",
            "leader",
            "trick_leader",
            "phase",
            "turn",
            "may_act",
            "claimant",
            "table",
            "last_trick",
            "piles",
            "my_closed",
            "stakes",
            "dave_by",
            "last_dave_by",
            "trick_number",
            "result",
            "closed_discards",
        ),
    ),
    SeenPlay: ("SeenPlay", ("seat", "cards", "count", "beat", "stop")),
    SeenPile: ("SeenPile", ("owner", "open_cards", "closed_by", "closed_plays", "closed_under")),
    DealResult: ("BuraDealResult", ("outcome", "winner", "by", "points", "stakes", "run_out")),
}


def position_text(view: View) -> str:
    """``view`` as text: ``Name(field=value, ...)`` for the view and the records in it
    (names and fields from ``_RECORDS``), a card as ``Card.parse('10H')``, a suit as
    ``<Suit.HEARTS: 'H'>``, tuples, numbers, text, ``True``/``False``/``None`` as
    Python writes them."""
    return _text(view)


def _text(value: object) -> str:
    if isinstance(value, Card):
        return f"Card.parse({value.code()!r})"
    if isinstance(value, tuple):
        items = [_text(item) for item in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, Suit):
        return f"<Suit.{value.name}: {value.value!r}>"
    record = _RECORDS.get(type(value))
    if record is not None:
        name, fields = record
        written = ", ".join(f"{field}={_text(getattr(value, field))}" for field in fields)
        return f"{name}({written})"
    if value is None or type(value) in (bool, int, str):
        return repr(value)
    raise TypeError(f"no text for a {type(value).__name__} in a view")


def decision_rng(seed: int, view: View) -> random.Random:
    """The randomness of a decision of the player seeded ``seed`` from ``view``."""
    return random.Random(f"{seed}#{position_text(view)}")
