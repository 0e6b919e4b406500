"""Sure wins in Burkozel: moves after which a seat wins the deal whatever the hidden cards
are and whatever the others do, judged from that seat's view alone.

* C1/C2: showing бура or Москва when no other hand of four can hold a better one
  (Москва beats бура; of two буры the higher top trump wins).
* R11-R13, the last tricks: two players, base rules, empty stock: every card the seat
  has not seen is in the other hand, so the rest of the deal is searched exactly
  (:class:`~engine.burkozel.ai.solver.Solver`) for a move after which the seat's score
  stays above the other's against every reply. Of several such moves, the one worth
  most by the full score (penalties, then point margin) is taken.

Every level takes a sure win first (``engine.burkozel.ai.players``): a search whose model
of the others prefers a gamble, a greedy rule or a random move would throw it away.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine.burkozel.actions import Action, View
from engine.burkozel.ai.sim import Sim, sample_world
from engine.burkozel.ai.solver import Solver
from engine.burkozel.combinations import COMBO_SIZE, MOSCOW_SHOW
from engine.burkozel.rules import BASE_RULES
from engine.burkozel.scoring import penalties_for
from engine.cards import DECK, Card, Rank, Suit


def unseen_pool(view: View) -> list[Card]:
    """Every card that may be in another hand or the stock (or face down, B1)."""
    known = set(view.hand) | set(view.seen_cards)
    if view.trump_card_in_stock:
        known.add(view.trump_card)
    return [c for c in DECK if c not in known]


def could_show_better(
    pool: Sequence[Card], trump: Suit, mine: Action, hand: Sequence[Card]
) -> bool:
    """Whether a hand of four from ``pool`` may hold a combination that beats ``mine``."""
    if mine.show == MOSCOW_SHOW:
        return False  # one Москва at a time: there are four aces
    if sum(c.rank is Rank.ACE for c in pool) >= COMBO_SIZE:
        return True
    trumps = [c for c in pool if c.suit is trump]
    top = max(c.rank for c in hand)
    return len(trumps) >= COMBO_SIZE and any(c.rank > top for c in trumps)


def move_key(move: Action) -> tuple[int, tuple[int, ...], bool]:
    """The players' fixed order of moves (by the cards, not by hidden hand order)."""
    return (len(move.cards), tuple(sorted(c.index for c in move.cards)), move.beat is True)


def _option(move: Action) -> tuple[tuple[int, ...], bool | None]:
    return tuple(sorted(c.index for c in move.cards)), move.beat


def _win_value(me: int) -> Callable[[Sim], float]:
    """+1 when ``me`` ends with more points than every other seat, else -1 (a shared
    top score is no win: nobody is penalised, R13)."""

    def value(sim: Sim) -> float:
        mine = sim.points[me]
        return 1.0 if all(mine > p for s, p in enumerate(sim.points) if s != me) else -1.0

    return value


def _score_value(me: int) -> Callable[[Sim], float]:
    """The penalty edge of two players (R13), then the point margin."""

    def value(sim: Sim) -> float:
        pens = penalties_for(sim.points)
        margin = sim.points[me] - sim.points[1 - me]
        return pens[1 - me] - pens[me] + margin / 60.0

    return value


def endgame_known(view: View) -> bool:
    """Two players, base rules, empty stock, this seat to play: nothing is hidden."""
    return (
        view.players == 2
        and view.stock_size == 0
        and view.rules == BASE_RULES
        and view.turn == view.seat
        and not view.finished
    )


def sure_wins(view: View, legal: Sequence[Action]) -> list[Action]:
    """The moves of ``legal`` that win the deal for certain (see the module text)."""
    if view.turn != view.seat or view.finished:
        return []
    shows = [m for m in legal if m.show is not None]
    if shows:
        pool = unseen_pool(view)
        others = [s for s, n in enumerate(view.hand_sizes) if s != view.seat and n == COMBO_SIZE]
        return [
            m for m in shows if not others or not could_show_better(pool, view.trump, m, view.hand)
        ]
    if not endgame_known(view):
        return []
    world = sample_world(view, random.Random(0))  # the only world there is
    moves = sorted(legal, key=move_key)
    won = Solver(view.seat, _win_value(view.seat)).values(world, [_option(m) for m in moves])
    return [m for m, v in zip(moves, won, strict=True) if v > 0]


def sure_win(view: View, legal: Sequence[Action]) -> Action | None:
    """One sure win of ``legal``: a show, else of the sure last-trick moves the one
    worth most by the full score, the first in :func:`move_key` order of those (as the
    strong player's exact search picks); ``None`` if there is none."""
    wins = sure_wins(view, legal)
    if not wins:
        return None
    if len(wins) == 1 or wins[0].show is not None:
        return wins[0]
    world = sample_world(view, random.Random(0))
    scores = Solver(view.seat, _score_value(view.seat)).values(world, [_option(m) for m in wins])
    best = max(range(len(wins)), key=lambda i: (scores[i], -i))
    return wins[best]
