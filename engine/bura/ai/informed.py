"""The searching seat's own playout policy: the greedy policy, made to use the sampled world.

A playout runs inside one sampled world, where every hand and the stock are known. The
strong player's search already lets its own seat declare exactly when its pile in the
world holds enough (D5, ``sure_seat``); here the same seat also leads and answers as
someone who sees the world: each of its leads is tried against the other seats' greedy
answers (the model of the other players), each of its answers is scored on the trick
it settles, and the best immediate trade wins. A trade counts the points that change
hands, a trump spent or taken at ``trump_value`` points (trumps make a бура, D6, and
take the tricks that count), and the deal won or lost outright when the trick brings
a pile to the target (D5).

So the search values each first move as if it went on playing well, not as greedy.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.bura.actions import Action, Answer, Lead, Show
from engine.bura.ai.policy import CLOSED_GUESS, Situation, greedy, keep_value
from engine.bura.deal import ANSWER, DECLARE, BuraDeal
from engine.bura.rules import BUST_LIMIT, DECLARE_TARGET

WIN = 1000.0  # a trick that ends the deal outright outweighs any trade of points


def _declares(deal: BuraDeal, seat: int, sure: bool) -> bool | None:
    """Whether ``seat``, having just taken a trick, declares, and if so whether rightly:
    the searching seat declares exactly when its pile holds enough, the others by the
    greedy guess. ``None``: no declaration."""
    total = deal.points()[seat]
    good = total >= DECLARE_TARGET and (deal.rules.target == "31" or total <= BUST_LIMIT)
    if sure:
        return True if good else None
    pile = deal.piles[seat]
    estimate = sum(pc.card.points for pc in pile if not pc.closed) + CLOSED_GUESS * sum(
        1 for pc in pile if pc.closed
    )
    bust = deal.rules.target == "31_50" and estimate > BUST_LIMIT
    if estimate >= DECLARE_TARGET and not bust:
        return good
    return None


def _trick_value(deal: BuraDeal, seat: int, trump_value: float) -> float:
    """How good the trick just settled in ``deal`` is for ``seat`` (deal in DECLARE or
    OVER right after the trick's last answer)."""
    if deal.finished:  # someone showed a бура or Москва instead of answering
        result = deal.result()
        return WIN if result.winner == seat else -WIN
    taker = deal.last_taker
    assert taker is not None
    points = 0
    trumps = 0.0
    for play in deal.last_trick:
        for card in play.cards:
            points += card.points
            if card.suit is deal.trump:
                trumps += 1 if play.seat != seat else -1
    gain = points if taker == seat else -points
    declared = _declares(deal, taker, taker == seat)
    if declared is not None:
        won = declared == (taker == seat)
        return WIN if won else -WIN
    return gain + trump_value * trumps


def _settle(deal: BuraDeal) -> None:
    """Let the other seats answer the trick on the table with the greedy policy."""
    while deal.phase == ANSWER:
        turn = deal.turn
        assert turn is not None
        choice = greedy(Situation.of_deal(deal, turn), deal.legal_actions(turn))
        assert choice is not None
        deal.push(choice)


def informed(deal: BuraDeal, seat: int, legal: Sequence[Action], trump_value: float) -> Action:
    """The searching seat's move in a playout (leads and answers; anything else, and a
    move with one option, is greedy's)."""
    shows = [a for a in legal if isinstance(a, Show)]
    if shows:
        return shows[-1]
    moves = [a for a in legal if isinstance(a, Lead | Answer) and not getattr(a, "stop", False)]
    if deal.phase == DECLARE or len(moves) < 2 or len(moves) != len(legal):
        choice = greedy(Situation.of_deal(deal, seat), legal)
        assert choice is not None
        return choice
    best: Action = moves[0]
    best_value = float("-inf")
    for move in moves:
        trial = deal.copy()
        trial.push(move)
        _settle(trial)
        # Among equal trades, keep the cards worth more in hand (greedy's order).
        spent = sum(keep_value(c, deal.trump) for c in getattr(move, "cards", ()))
        value = _trick_value(trial, seat, trump_value) - 0.01 * spent
        if value > best_value:
            best, best_value = move, value
    return best
