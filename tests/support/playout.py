"""Playouts of the computer players' simulator written down card by card, to compare
one way of playing out with another."""

from __future__ import annotations

from collections.abc import Callable

from engine.burkozel.ai.sim import Sim


class LoggedCards(list[int]):
    """A hand or the stock that writes down every card taken from it or added to it, in
    order: the moves and the draws of a playout, to compare one playout with another."""

    def __init__(self, cards: list[int], name: int, log: list[tuple[int, str, int]]) -> None:
        super().__init__(cards)
        self.name = name
        self.log = log

    def remove(self, card: int) -> None:
        self.log.append((self.name, "played", card))
        super().remove(card)

    def append(self, card: int) -> None:
        self.log.append((self.name, "drew", card))
        super().append(card)

    def pop(self, index: int = -1) -> int:
        card = super().pop(index)
        self.log.append((self.name, "popped", card))
        return card


def logged_playout(
    world: Sim, play: Callable[[Sim], None]
) -> tuple[list[tuple[int, str, int]], tuple[object, ...]]:
    """Every card ``play`` moves in a copy of ``world``, and the state it ends in."""
    sim = world.copy()
    log: list[tuple[int, str, int]] = []
    sim.hands = [LoggedCards(h, seat, log) for seat, h in enumerate(sim.hands)]
    sim.stock = LoggedCards(sim.stock, -1, log)
    play(sim)
    return log, tuple(getattr(sim, name) for name in Sim.__slots__)
