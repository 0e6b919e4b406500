"""Information-set Monte Carlo tree search over sampled worlds (issue 13 experiment).

The flat search plays each of our moves once per sampled world and finishes the deal
with the greedy policy for everybody: the moves after ours are assumed to be greedy's.
Here every iteration samples a world, walks a tree of moves shared by all worlds
(a move is known by its open cards, the same whichever world it is played in) and
lets each seat in turn pick its best move so far by UCB, counting a move only among
the worlds where it was legal ("availability"); a new move is tried once and the
deal finished greedily. Near the root the other seats thus play their best replies
as found by the search, not greedy's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from engine.ai import policy
from engine.ai.sim import Sim
from engine.ai.solver import Option, options


class Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Option, Node] = {}
        self.visits = 0
        self.total = 0.0  # summed utility for the seat that made the move into this node
        self.avail = 0


def search(
    root_options: Sequence[Option],
    sample: Callable[[random.Random], Sim],
    utilities: Callable[[Sim], Sequence[float]],
    rng: random.Random,
    iterations: int,
    explore: float,
    greedy_first: bool = False,
) -> list[int]:
    """How often each of ``root_options`` was chosen over ``iterations`` (the search's
    preference: the most visited is the most trusted)."""
    root = Node()
    for _ in range(iterations):
        sim = sample(rng)
        node = root
        path: list[tuple[Node, int]] = []
        first = True
        while sim.turn >= 0:
            mover = sim.turn
            legal = root_options if first else options(sim)
            first = False
            children = node.children
            untried = [o for o in legal if o not in children]
            if untried:
                choice = untried[rng.randrange(len(untried))]
                if greedy_first:
                    cards, beat = policy.decide(sim)
                    preferred = (tuple(sorted(cards)), beat)
                    if preferred in untried:
                        choice = preferred
                for o in legal:
                    known = children.get(o)
                    if known is not None:
                        known.avail += 1
                child = Node()
                child.avail = 1
                children[choice] = child
                sim.play(*choice)
                path.append((child, mover))
                break
            best: Option = legal[0]
            best_score = -math.inf
            for o in legal:
                c = children[o]
                c.avail += 1
                score = c.total / c.visits + explore * math.sqrt(math.log(c.avail) / c.visits)
                if score > best_score:
                    best, best_score = o, score
            node = children[best]
            sim.play(*best)
            path.append((node, mover))
        policy.playout(sim)
        values = utilities(sim)
        for node_, mover in path:
            node_.visits += 1
            node_.total += values[mover]
    return [root.children[o].visits if o in root.children else 0 for o in root_options]
