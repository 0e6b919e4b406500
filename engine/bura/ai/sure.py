"""Sure wins in Bura: actions after which a seat wins the deal whatever the hidden cards
are and whatever the others do, judged from that seat's view alone.

A search over sampled worlds can prefer a gamble to a sure win when its model of the
others says the gamble pays more (a false declaration it expects the other seat to make
pays 4, its own win 2). A person who declares only when sure punishes that every time,
so every level takes a sure win first (:func:`sure_win`).

What counts as sure, each from the cards this seat cannot rule out (``pool``):

* D6/D8: showing бура or Москва when no other hand of three can hold a better one;
* D5: declaring when the pile holds 31 (and, with ``target: 31_50``, at most 50) even if
  every face-down card in it is the worst the pool allows;
* a lead (a «Стоп!» lead too, D7) or an answer after which this seat surely takes the
  trick and then surely holds enough to declare: no seat still to answer can beat it
  with any cards of the pool, nor show бура or Москва instead of answering.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.bura.actions import Action, Answer, Declare, Lead, Show
from engine.bura.rules import BUST_LIMIT, DECLARE_TARGET, HAND_SIZE, Rules
from engine.bura.view import View
from engine.cards import DECK, Card, Rank, Suit
from engine.tricks import covers


def unseen_pool(view: View) -> list[Card]:
    """Every card that may be in another hand, another seat's face-down discard or the
    stock (the turned-up trump at the bottom of the stock is seen)."""
    known = set(view.hand) | set(view.seen_cards()) | {card for card, _ in view.my_closed}
    if view.trump_card_in_stock:
        known.add(view.trump_card)
    return [c for c in DECK if c not in known]


def _beats(card: Card, claim: Card, trump: Suit) -> bool:
    """R5."""
    if card.suit is claim.suit:
        return card.index > claim.index
    return card.suit is trump


def could_cover(claim: Sequence[Card], pool: Sequence[Card], trump: Suit) -> bool:
    """Whether some ``len(claim)`` cards of ``pool`` beat ``claim`` card for card (R7)."""
    beaters = [[c for c in pool if _beats(c, x, trump)] for x in claim]
    if any(not b for b in beaters):
        return False
    if len(claim) == 1:
        return True
    candidates = sorted({c for b in beaters for c in b}, key=lambda c: c.index)
    if len(claim) == 2:
        return any(
            covers((a, b), claim, trump)
            for i, a in enumerate(candidates)
            for b in candidates[i + 1 :]
        )
    return any(
        covers((a, b, c), claim, trump)
        for i, a in enumerate(candidates)
        for j, b in enumerate(candidates[i + 1 :], i + 1)
        for c in candidates[j + 1 :]
    )


def could_show(pool: Sequence[Card], trump: Suit, rules: Rules, over: int | None) -> bool:
    """Whether a hand of three from ``pool`` may be a Москва or a бура whose top trump
    is above rank ``over`` (``None``: any бура) (D6, D8 and their precedence)."""
    if rules.moscow == "on" and sum(c.rank is Rank.ACE for c in pool) >= HAND_SIZE:
        return True
    trumps = [c for c in pool if c.suit is trump]
    if len(trumps) < HAND_SIZE:
        return False
    return over is None or any(c.rank > over for c in trumps)


def _pile_bounds(view: View, pool: Sequence[Card], unknown_extra: int) -> tuple[int, int]:
    """The least and the most this seat's pile can hold, plus ``unknown_extra`` more
    cards of the pool: the open cards and its own face-down cards are known, every other
    face-down card is one of the pool's."""
    me = view.seat
    pile = view.piles[me]
    known = sum(c.points for c in pile.open_cards)
    known += sum(card.points for card, owner in view.my_closed if owner == me)
    unknown = sum(1 for by in pile.closed_by if by != me) + unknown_extra
    points = sorted(c.points for c in pool)
    unknown = min(unknown, len(points))
    low = known + sum(points[:unknown])
    high = known + sum(points[len(points) - unknown :]) if unknown else known
    return low, high


def _enough(low: int, high: int, rules: Rules) -> bool:
    """D5: a declaration surely good for any pile total from ``low`` to ``high``."""
    return low >= DECLARE_TARGET and (rules.target == "31" or high <= BUST_LIMIT)


def _seats_to_answer(view: View, leading: bool) -> list[int]:
    """The seats that answer after this seat's lead or answer in the current trick."""
    if leading:
        return [s for s in range(view.players) if s != view.seat]
    played = {p.seat for p in view.table}
    return [s for s in range(view.players) if s != view.seat and s not in played]


def _takes_and_declares(
    view: View, rules: Rules, play: Lead | Answer, pool: Sequence[Card]
) -> bool:
    """Whether ``play`` surely takes the trick (nobody after it beats it or shows) and
    the pile then surely makes a good declaration (D5)."""
    if isinstance(play, Answer) and not play.beat:
        return False
    after = _seats_to_answer(view, isinstance(play, Lead))
    if after and could_cover(play.cards, pool, view.trump):
        return False
    # D6/D8: a seat may show instead of answering if it holds three cards then.
    if any(view.hand_sizes[s] == HAND_SIZE for s in after) and could_show(
        pool, view.trump, rules, None
    ):
        return False
    table = view.table if isinstance(play, Answer) else ()
    table_open = sum(c.points for p in table for c in (p.cards or ()))
    table_closed = sum(p.count for p in table if p.cards is None)
    # Each later answer adds as many cards as were led: unknown, from the pool.
    answers = len(after) * len(play.cards)
    low, high = _pile_bounds(view, pool, table_closed + answers)
    extra = table_open + sum(c.points for c in play.cards)
    return _enough(low + extra, high + extra, rules)


def sure_wins(view: View, legal: Sequence[Action], rules: Rules) -> list[Action]:
    """The actions of ``legal`` that win the deal for certain (see the module text)."""
    pool = unseen_pool(view)
    others_of_three = [
        s for s, size in enumerate(view.hand_sizes) if s != view.seat and size == HAND_SIZE
    ]
    sure: list[Action] = []
    for action in legal:
        if isinstance(action, Show):
            if action.kind == "moscow":
                sure.append(action)  # Москва beats all; two of them need six aces
                continue
            top = max(c.rank for c in view.hand)
            if not others_of_three or not could_show(pool, view.trump, rules, top):
                sure.append(action)
        elif isinstance(action, Declare):
            if action.declare and _enough(*_pile_bounds(view, pool, 0), rules):
                sure.append(action)
        elif isinstance(action, Lead | Answer) and _takes_and_declares(view, rules, action, pool):
            sure.append(action)
    return sure


def sure_win(view: View, legal: Sequence[Action], rules: Rules) -> Action | None:
    """One sure win of ``legal``, if any: a show or a declaration first (they end the
    deal now), else the first sure lead or answer in a fixed order."""
    wins = sure_wins(view, legal, rules)
    if not wins:
        return None
    return min(wins, key=_preference)


def _preference(action: Action) -> tuple[int, tuple[int, ...]]:
    rank = 0 if isinstance(action, Show) else 1 if isinstance(action, Declare) else 2
    cards = getattr(action, "cards", ())
    return rank, tuple(sorted(c.index for c in cards))
