"""Part C: the four-card combinations (B6), their detection and precedence.

Only hands of exactly four cards can hold one. Who may act on them is decided by
:class:`engine.burkozel.deal.Deal`; this module only answers "what does this hand hold" and
"who wins when several are shown at once".
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card, Rank, Suit

BURA_SHOW = "bura"  # C1
MOSCOW_SHOW = "moscow"  # C2
SHOWS = (BURA_SHOW, MOSCOW_SHOW)
COMBO_SIZE = 4


def is_bura(hand: Sequence[Card], trump: Suit) -> bool:
    """C1: four trumps."""
    return len(hand) == COMBO_SIZE and all(c.suit is trump for c in hand)


def is_moscow(hand: Sequence[Card]) -> bool:
    """C2: four aces."""
    return len(hand) == COMBO_SIZE and all(c.rank is Rank.ACE for c in hand)


def is_molodka(hand: Sequence[Card], trump: Suit) -> bool:
    """C3: four cards of one suit, not all trumps (that would be бура)."""
    return (
        len(hand) == COMBO_SIZE
        and hand[0].suit is not trump
        and all(c.suit is hand[0].suit for c in hand)
    )


def is_four_foreheads(hand: Sequence[Card]) -> bool:
    """C4: four cards each an ace or a ten (four aces are also Москва)."""
    return len(hand) == COMBO_SIZE and all(c.rank in (Rank.ACE, Rank.TEN) for c in hand)


def is_lead_combination(hand: Sequence[Card], trump: Suit) -> bool:
    """C3 or C4: a hand that may be led whole (out of turn, or beyond B2 by its leader)."""
    return is_molodka(hand, trump) or is_four_foreheads(hand)


def show_kind(hand: Sequence[Card], trump: Suit) -> str | None:
    """What ``hand`` may show: ``"moscow"``, ``"bura"`` or ``None``."""
    if is_moscow(hand):
        return MOSCOW_SHOW
    if is_bura(hand, trump):
        return BURA_SHOW
    return None


def show_winner(hands: Sequence[Sequence[Card]], trump: Suit) -> tuple[int, str] | None:
    """C1/C2 precedence when everything shown counts at once: Москва wins, otherwise the
    бура with the highest top trump. Returns (seat, kind) or ``None`` if nobody holds one."""
    moscow = [s for s, h in enumerate(hands) if is_moscow(h)]
    if moscow:
        return moscow[0], MOSCOW_SHOW
    buras = [s for s, h in enumerate(hands) if is_bura(h, trump)]
    if not buras:
        return None
    return max(buras, key=lambda s: max(c.rank for c in hands[s])), BURA_SHOW
