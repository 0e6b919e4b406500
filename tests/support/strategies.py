"""Hypothesis strategies the engine's and the bot's property tests share: tables and
rule sets that may be played together, and decks that deal combinations often."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from engine import DECK, Card, bura, burkozel
from engine.bura.rules import SWITCHES as BURA_SWITCHES


@st.composite
def table_rules(draw: st.DrawFn) -> tuple[int, burkozel.Rules]:
    """A player count and a rule set that may be played with it (B3, B5 refusals aside)."""
    rules = burkozel.Rules(
        discards=draw(st.sampled_from(["open", "closed"])),
        max_lead=draw(st.sampled_from([3, 4])),
        combinations=draw(st.sampled_from(["off", "on"])),
        **draw(
            st.sampled_from(
                [
                    {},
                    {"series_end": "elimination"},
                    {"scoring": "winner_takes"},
                    {"teams": "pairs"},
                    {"teams": "pairs", "scoring": "winner_takes"},
                ]
            )
        ),
    )
    players = 4 if rules.teams == "pairs" else draw(st.integers(2, 4))
    return players, rules


@st.composite
def lumpy_decks(draw: st.DrawFn) -> tuple[Card, ...]:
    """Random decks, often close to suit order, so that combinations get dealt and drawn."""
    if draw(st.booleans()):
        return tuple(draw(st.permutations(DECK)))
    deck = list(DECK)
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 40))):
        i, j = rng.randrange(len(DECK)), rng.randrange(len(DECK))
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


bura_rules = st.builds(
    bura.Rules, **{name: st.sampled_from(values) for name, values in BURA_SWITCHES.items()}
)
"""Any Bura rule set (every switch at any value)."""
