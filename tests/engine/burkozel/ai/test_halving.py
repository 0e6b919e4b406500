"""Successive halving over the root moves (``StrongPlayer(halving=True)``):
the same number of playouts as the plain search, spent mostly on the close moves."""

from __future__ import annotations

import math

import pytest

from engine.burkozel.ai import StrongPlayer, canonical, players, policy
from engine.burkozel.ai.sim import Sim
from engine.burkozel.deal import Action, Deal, View
from engine.cards import shuffled_deck


def first_lead(moves_wanted: int) -> tuple[View, list[Action]]:
    """A first lead (R4, R6) of a two-player deal with at least ``moves_wanted`` moves."""
    for seed in range(200):
        deal = Deal.start(2, shuffled_deck(seed=seed), 1)
        moves = canonical(deal.legal_actions())
        if len(moves) >= moves_wanted:
            return deal.view(deal.turn or 0), moves
    raise AssertionError("no such deal")


def test_halving_spends_the_budget_in_rounds_and_keeps_the_better_half(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view, moves = first_lead(5)
    m = len(moves)
    worlds = 30
    played: list[int] = []
    original = policy.playout

    def counting(sim: Sim, *args: object) -> None:
        played.append(1)
        original(sim)

    monkeypatch.setattr(players.policy, "playout", counting)
    scores = StrongPlayer(2, worlds=worlds, halving=True, endgame="off").evaluate(view, moves)
    budget = worlds * m
    rounds = math.ceil(math.log2(m))
    active, expected = m, 0
    for _ in range(rounds):
        expected += max(1, budget // rounds // active) * active
        active = (active + 1) // 2
    assert len(played) == expected <= budget
    # Each round drops the worse half: the moves dropped first score lowest, and the
    # two compared in the last round are the only ones with a plain mean.
    survivors = [i for i, v in enumerate(scores) if v > -500.0]
    assert len(survivors) == 2
    dropped = sorted((v for v in scores if v <= -500.0), reverse=True)
    assert len(dropped) == m - 2
    assert all(-1000.0 * rounds - 10 < v < -1000.0 + 10 for v in dropped)
