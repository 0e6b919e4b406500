"""Benchmark-only Bura opponents: declaring styles other than our greedy rule, and a plain
determinized Monte Carlo baseline. None of these is a shipped level.

- ``careful``: our greedy rule, but it declares (D5) only on the open points of its pile
  (its face-down cards counted as 0): it declares only when sure.
- ``reckless``: our greedy rule, but each face-down card of its pile is guessed at 6
  points (greedy: 2), so it declares sooner and often falsely.
- ``pairs``: our greedy rule, but it leads two cards whenever it may (policy.greedy's
  ``lead_pairs``, the rule hard's playouts use for its own later leads).
- ``peek`` / ``peekall``: oracles, ``hard`` whose every sampled world holds the other
  hands as they really are (``peekall``: and every face-down discard): the most that
  inference from the deal's play could tell it (the stock's order is random for all).
- ``pimc:W`` / ``pimct:MS``: plain perfect-information Monte Carlo, the search an
  outsider would write first: W sampled worlds per decision (or as many as fit in MS
  milliseconds) consistent with everything the seat saw, hidden cards uniform (no leans
  from how the others played), every legal action (and letting a «Стоп!» pass) played
  in each world and finished with the greedy rule for every seat, best mean edge wins
  (+1 a deal won, -1 lost, plus a quarter of the penalty edge, as ``hard`` scores).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import engine.bura.ai.players as players_module
from engine.bura.actions import Action
from engine.bura.ai.players import (
    GreedyPlayer,
    Player,
    StrongPlayer,
    after_option,
    canonical,
    make_player,
    optional,
    rollout,
    utility,
)
from engine.bura.ai.seed import decision_rng
from engine.bura.ai.world import sample_world
from engine.bura.deal import Deal
from engine.bura.rules import Rules
from engine.bura.view import View
from engine.cards import Card

STYLES = {"careful": 0.0, "greedy": 2.0, "reckless": 6.0}  # closed_guess of each
UNIFORM = 1e9  # a discard temperature so high that every card is as likely


class PlainMonteCarlo:
    def __init__(
        self, rules: Rules, seed: int = 0, worlds: int = 40, time_limit: float | None = None
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.worlds = worlds
        self.time_limit = time_limit  # seconds per decision; then ``worlds`` is ignored

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        options: list[Action | None] = [*canonical(legal)]
        if optional(view):
            options.append(None)
        if len(options) == 1:
            return options[0]
        rng = decision_rng(self.seed, view)
        totals = [0.0] * len(options)
        start = time.perf_counter()
        done = 0
        while True:
            if self.time_limit is None:
                if done >= self.worlds:
                    break
            elif done and time.perf_counter() - start >= self.time_limit:
                break
            world = sample_world(view, self.rules, rng, temperature=UNIFORM, trump_weight=1.0)
            for i, option in enumerate(options):
                edge = utility(
                    rollout(after_option(world, option)), view.seat, self.rules, view.players
                )
                totals[i] += (edge > 0) - (edge < 0) + 0.25 * edge
            done += 1
        return options[max(range(len(options)), key=lambda i: totals[i])]


def make_bura_opponent(spec: str, rules: Rules, seed: int) -> Player | None:
    """A benchmark opponent for ``spec``, or ``None`` if it names none."""
    if spec in ("careful", "reckless"):
        return GreedyPlayer(rules, seed, closed_guess=STYLES[spec])
    if spec == "pairs":
        return GreedyPlayer(rules, seed, lead_pairs=True)
    kind, _, budget = spec.partition(":")
    if kind == "pimc":
        return PlainMonteCarlo(rules, seed, worlds=int(budget or 40))
    if spec in ("peek", "peekall"):
        player = make_player("hard", rules, seed)
        player.__class__ = Peeking
        player.discards = spec == "peekall"
        return player
    if kind == "pimct":
        return PlainMonteCarlo(rules, seed, time_limit=int(budget) / 1000)
    return None


def _put_in_place_of(world: Deal, spare: Card, card: Card) -> None:
    """Lay ``spare`` where ``world`` has ``card``: in the stock, a hand or a pile."""
    if card in world.stock:
        world.stock[world.stock.index(card)] = spare
        return
    for hand in world.hands:
        if card in hand:
            hand[hand.index(card)] = spare
            return
    for pile in world.piles:
        for i, laid in enumerate(pile):
            if laid.card == card:
                pile[i] = replace(laid, card=spare)
                return


def with_true_hands(world: Deal, truth: Deal, seat: int) -> Deal:
    """``world`` with every other seat's hand swapped for its real one (an oracle: only
    to measure what knowing those hands is worth). Each real card the world put
    elsewhere (stock, a face-down discard, a third hand) trades places with a card the
    world gave that hand instead; the stock order stays the world's."""
    for other in range(truth.players):
        if other == seat:
            continue
        real, hand = truth.hands[other], world.hands[other]
        extra = [c for c in hand if c not in real]
        for card, spare in zip([c for c in real if c not in hand], extra, strict=True):
            _put_in_place_of(world, spare, card)
            hand[hand.index(spare)] = card
    return world


def with_true_discards(world: Deal, truth: Deal) -> Deal:
    """``world`` with every face-down discard the real one (an oracle, as above): each
    real card trades places with the card the world put there (the piles' face-down
    cards matched in order, by who laid them)."""
    for seat, pile in enumerate(world.piles):
        fakes = [i for i, laid in enumerate(pile) if laid.closed]
        reals = [laid for laid in truth.piles[seat] if laid.closed]
        assert [pile[i].by for i in fakes] == [laid.by for laid in reals]
        for i, real in zip(fakes, reals, strict=True):
            if real.card != pile[i].card:
                _put_in_place_of(world, pile[i].card, real.card)
                pile[i] = replace(pile[i], card=real.card)
    return world


class Peeking(StrongPlayer):
    """``hard`` whose every sampled world holds the others' real hands (``truth`` is set
    by the bench before each decision): how much knowing them is worth."""

    truth: Deal | None = None
    discards = False  # also every face-down discard (with_true_discards)

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        original = players_module.sample_world
        truth = self.truth
        assert truth is not None

        def peeked(*args: Any, **kwargs: Any) -> Deal:
            world = with_true_hands(original(*args, **kwargs), truth, view.seat)
            return with_true_discards(world, truth) if self.discards else world

        players_module.sample_world = peeked
        try:
            return super().choose(view, legal)
        finally:
            players_module.sample_world = original
