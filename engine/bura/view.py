"""What one seat may see of a Bura deal (D3): never another hand, never another
seat's closed discard, never a running point total."""

from __future__ import annotations

from dataclasses import dataclass

from engine.bura.actions import DealResult, PileCard, TablePlay
from engine.cards import Card, Suit


@dataclass(frozen=True, slots=True)
class SeenPlay:
    """A play on the table as this seat sees it: ``cards`` is ``None`` for another
    seat's face-down discard, of which only ``count`` is known."""

    seat: int
    cards: tuple[Card, ...] | None
    count: int
    beat: bool | None
    stop: bool


@dataclass(frozen=True, slots=True)
class SeenPile:
    """A trick pile as this seat sees it: the open cards, and who put each closed card
    into it (their faces stay hidden, D3)."""

    owner: int
    open_cards: tuple[Card, ...]
    closed_by: tuple[int, ...]
    closed_plays: tuple[tuple[int, int], ...]  # (seat, how many cards) per face-down discard
    # Per face-down discard (same order), the open cards it was laid under: the trick's
    # claim at that moment (R7, R9), which everyone saw face up before the trick went into
    # the pile. Public: these cards are among ``open_cards``; the discard's faces stay hidden.
    closed_under: tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class View:
    seat: int  # PUBLIC: what everyone sees (``Deal.public_view``)
    players: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    trump: Suit
    trump_card: Card
    trump_card_drawn_by: int | None
    stock_size: int
    dealer: int
    leader: int  # the rightful leader of the current or next trick
    trick_leader: int
    phase: str
    turn: int | None
    may_act: bool  # whether this seat has a legal action now (others' options stay hidden)
    claimant: int | None
    table: tuple[SeenPlay, ...]
    # The trick taken last, play by play as everyone saw it (the bot shows it too); a
    # face-down discard in it shows only its count, except to its owner (D3).
    last_trick: tuple[SeenPlay, ...]
    piles: tuple[SeenPile, ...]
    my_closed: tuple[tuple[Card, int], ...]  # own face-down discards and whose pile holds them
    stakes: int
    dave_by: int | None
    last_dave_by: int | None
    trick_number: int
    result: DealResult | None  # points are public once the deal is over
    closed_discards: bool

    @property
    def trump_card_in_stock(self) -> bool:
        return self.trump_card_drawn_by is None and self.stock_size > 0

    def seen_cards(self) -> tuple[Card, ...]:
        """Every card this seat has seen face up or holds as its own closed discard."""
        seen: list[Card] = []
        for pile in self.piles:
            seen += pile.open_cards
        for play in self.table:
            seen += play.cards or ()
        seen += [card for card, owner in self.my_closed if owner >= 0]
        return tuple(seen)


def closed_plays(
    pile: list[PileCard],
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[Card, ...], ...]]:
    """Each face-down discard as (seat, count), and the open cards it was laid under.

    A trick enters the pile play by play, each seat's cards together (one play per seat
    and trick), so the claim a discard failed to beat is the last open play before it."""
    groups: dict[tuple[int, int], int] = {}
    under: dict[tuple[int, int], tuple[Card, ...]] = {}
    claim: tuple[Card, ...] = ()
    last: tuple[int, int] | None = None
    for pc in pile:
        key = (pc.trick, pc.by)
        if last is None or pc.trick != last[0]:
            claim = ()  # a new trick
        if pc.closed:
            groups[key] = groups.get(key, 0) + 1
            under.setdefault(key, claim)
        elif key == last:
            claim += (pc.card,)
        else:
            claim = (pc.card,)
        last = key
    return (
        tuple((by, n) for (_trick, by), n in groups.items()),
        tuple(under[key] for key in groups),
    )


def seen_plays(plays: tuple[TablePlay, ...] | list[TablePlay], seat: int) -> tuple[SeenPlay, ...]:
    return tuple(
        SeenPlay(
            p.seat,
            None if p.closed and p.seat != seat else p.cards,
            len(p.cards),
            p.beat,
            p.stop,
        )
        for p in plays
    )
