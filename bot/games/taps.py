"""One tap or a choice: how a hand's card buttons reach every play of cards.

Every Telegram operation counts, and most moves are one card. A tap on a card plays that
card at once: a lead of it alone, or an answer that beats with it where it can and is
discarded where it cannot. Whatever one tap cannot reach (several cards, a card discarded
that could beat) is one button away: ``PICK`` (``bot.games.base``) switches the hand to
choosing, where taps select and buttons confirm, and back. Both games' hands and their
hint lines use these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from bot.i18n import Texts
from engine import Card, Suit


class CardPlay(Protocol):
    """A play of cards (a lead, a beat, a discard: ``beat`` None, True or False where
    the game's action has it)."""

    @property
    def cards(self) -> tuple[Card, ...]: ...


P = TypeVar("P", bound=CardPlay)


def tap_play(plays: Sequence[P], card: Card) -> P | None:
    """The play a tap on ``card`` makes among ``plays`` (the seat's card plays on its turn,
    each with ``cards`` and, for answers, ``beat``): ``card`` alone, beating if it can."""
    alone = [p for p in plays if tuple(p.cards) == (card,)]
    beats = [p for p in alone if getattr(p, "beat", None) is True]
    chosen = beats or alone
    return chosen[0] if chosen else None


LISTED_MOST = 4
"""At most this many leads, or beats, of several cards are listed as buttons of their
own (R6/D2 leads from 3 cards of one suit make 4); a hand with more chooses them card by
card after «➕ Several cards»."""
LISTED_DISCARDS = 6
"""At most this many discards of several cards are listed (any 2 of a 4-card hand)."""


def listed_plays(plays: Sequence[P], trump: Suit | None = None) -> list[P]:
    """The plays of several cards the hand offers as buttons of their own, one tap each
    instead of choosing the cards and confirming (no redraw while choosing: every Telegram operation counts):
    the leads of several cards (R6, D2) when at most ``LISTED_MOST``; for an answer of
    several cards (R7) the beats when at most ``LISTED_MOST``, then the discards, the
    cheapest first (fewest ``trump`` cards, then fewest points), when at most
    ``LISTED_DISCARDS``."""
    several = [p for p in plays if len(p.cards) > 1]
    leads = [p for p in several if getattr(p, "beat", None) is None]
    beats = [p for p in several if getattr(p, "beat", None) is True]
    discards = [p for p in several if getattr(p, "beat", None) is False]
    return (
        (sorted(leads, key=_fewest_first) if len(leads) <= LISTED_MOST else [])
        + (sorted(beats, key=_fewest_first) if len(beats) <= LISTED_MOST else [])
        + (
            sorted(discards, key=lambda p: _cheapest_first(p, trump))
            if len(discards) <= LISTED_DISCARDS
            else []
        )
    )


def _fewest_first(play: CardPlay) -> tuple[int, tuple[Card, ...]]:
    return len(play.cards), tuple(sorted(play.cards))


def _cheapest_first(play: CardPlay, trump: Suit | None) -> tuple[int, int, tuple[Card, ...]]:
    trumps = sum(c.suit is trump for c in play.cards)
    return trumps, sum(c.points for c in play.cards), tuple(sorted(play.cards))


def pick_offered(plays: Sequence[P], hand: Sequence[Card]) -> bool:
    """Some card plays on one tap, and some play is out of reach of one tap on a card or
    on a listed play (the hand then shows ``PICK``; when no card plays on one tap, taps
    select anyway)."""
    reach = [p for p in (tap_play(plays, card) for card in hand) if p is not None]
    if not reach:
        return False
    reach += listed_plays(plays)
    return any(p not in reach for p in plays)


def turn_hint(
    t: Texts,
    *,
    lead: bool,
    most: int,
    count: int,
    picking: bool,
    offered: bool,
    listed: bool = False,
) -> str:
    """The hand's line saying what a tap does now: ``most`` cards may be led, ``count``
    answered; ``offered``: the hand shows ``PICK`` (``pick_offered``); ``listed``: it
    lists plays of several cards as buttons (``listed_plays``)."""
    if lead:
        if picking:
            return t("hand.pick_lead", max=most)
        if listed:
            return t("hand.tap_lead_listed")
        return t("hand.tap_lead_several" if offered else "hand.tap_lead", max=most)
    if picking or count > 1:
        if listed and not picking:
            return t("hand.your_answer_listed", count=count)
        return t("hand.your_answer", count=count)
    return t("hand.tap_answer_discard" if offered else "hand.tap_answer")


def pick_button(t: Texts, *, lead: bool, picking: bool) -> str:
    """The label of the ``PICK`` button."""
    if picking:
        return t("hand.pick_back")
    return t("hand.pick_several" if lead else "hand.pick_discard")
