"""Worlds consistent with one seat's view: the hidden cards dealt out at random.

Hidden are the other hands, the stock order and every face-down discard the seat did
not make (D3). A single card just led by another seat (no draw since) tells that its
other cards are ones it would rather keep: optionally those are likelier (``lead_lean``
< 1). Face-down discards are drawn with a lean towards low cards, since a
player discards what it least wants to keep; the rest is uniform.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable

from engine.bura.actions import PileCard, TablePlay
from engine.bura.ai.policy import KEEP_VALUES
from engine.bura.deal import Deal
from engine.bura.rules import HAND_SIZE, Rules
from engine.bura.view import View
from engine.cards import DECK, Card, Suit

DISCARD_TEMPERATURE = 6.0  # weight of a card as a closed discard: exp(-points / T)
TRUMP_KEEP_WEIGHT = 3.0  # players keep trumps: a trump is this much likelier in a hand
# How much likelier a plain (not trump) card of each rank, six to ace, is in another
# player's hand than in the stock: a player leads and discards its least wanted cards
# and keeps the high ones. Measured: the share of each unseen plain rank really in
# greedy's hand, over the share the worlds gave it with no such lean (hard against
# greedy, 120 deals, about 2,500 unseen cards per rank; bench/RESULTS-ai.md).
PLAIN_RANK_WEIGHT = (0.5, 0.7, 0.75, 0.95, 1.1, 1.1, 1.1, 1.35, 1.35)


def would_take(card: Card, claim: Card, trump: Suit) -> bool:
    """Whether a player holding ``card`` would have beaten the single card ``claim``
    with it rather than discard: always with a plain card (it costs nothing), with a
    trump only for a claim worth 10 or more (trumps are kept otherwise)."""
    if card.suit is claim.suit:
        return card.rank > claim.rank and (card.suit is not trump or claim.points >= 10)
    return card.suit is trump and claim.points >= 10


def dealt_trump_weight(view: View) -> float:
    """How much likelier an unseen trump is in a hand than in the stock, for a player
    who keeps every trump it is dealt (and plays it only when made to): a hand has
    then kept the trumps of all the cards it was ever dealt, about (36 - stock) / players
    against its 3 cards; at the deal this is 1 (a fresh hand is a random hand)."""
    dealt = (len(DECK) - view.stock_size) / view.players
    return max(1.0, dealt / HAND_SIZE)


def _unbeaten(view: View) -> dict[int, tuple[Card, int]]:
    """Seats that laid one card face down under a single-card claim in the last trick
    and have not played since: the claim, and how many of their cards they held then
    (their hand now less what they may have drawn since)."""
    last = view.last_trick
    if not last or last[0].cards is None or len(last[0].cards) != 1 or len(last) != 2:
        return {}
    answer = last[1]
    if answer.beat is not False or answer.count != 1 or answer.seat == view.seat:
        return {}
    seat = answer.seat
    if any(p.seat == seat for p in view.table) or view.phase == "dave":
        return {}
    size = view.hand_sizes[seat]
    held = size if view.phase == "declare" else max(0, size - answer.count)
    return {seat: (last[0].cards[0], held)} if held else {}


def _held_since_last_trick(view: View, seat: int, count: int) -> int:
    """How many of ``seat``'s cards now it surely held when it played ``count`` cards
    in the last trick: its hand less what it may have drawn since, less what it may have
    played from them on the table now."""
    if view.phase == "dave":
        return 0
    size = view.hand_sizes[seat]
    if view.phase == "declare":
        return size
    played = sum(p.count for p in view.table if p.seat == seat)
    return max(0, min(size, HAND_SIZE - count) - played)


def _beat_cost(card: Card, trump: Suit) -> tuple[bool, int]:
    """How a player choosing the cheapest single beat ranks a card: plain before trump,
    then more points first (engine.bura.ai.policy)."""
    return (card.suit is trump, -card.points)


def last_trick_leans(view: View) -> dict[int, tuple[int, Callable[[Card], bool]]]:
    """What another seat's single-card play in the last trick tells of the cards it held
    with it (and, unless it played or drew since, still holds): after leading one card,
    that they are cards it would rather keep (it leads its least wanted, D2); after
    beating a single card with one, that none was a cheaper beat (plain before trump,
    more points first). Per seat: how many cards it still holds of those, and which
    cards are unlikely among them."""
    last = view.last_trick
    if len(last) != 2 or last[0].cards is None or len(last[0].cards) != 1:
        return {}
    lead, answer = last
    claim = lead.cards[0] if lead.cards else None
    trump = view.trump
    leans: dict[int, tuple[int, Callable[[Card], bool]]] = {}
    if lead.seat != view.seat and not lead.stop and claim is not None:
        held = _held_since_last_trick(view, lead.seat, 1)
        keep = KEEP_VALUES[trump]
        least = keep[claim.index]
        if held:
            leans[lead.seat] = (held, lambda c: keep[c.index] < least)
    if (
        answer.seat != view.seat
        and answer.beat
        and answer.cards is not None
        and len(answer.cards) == 1
        and claim is not None
    ):
        beat = answer.cards[0]
        held = _held_since_last_trick(view, answer.seat, 1)
        cost = _beat_cost(beat, trump)

        def cheaper(c: Card) -> bool:
            takes = c.rank > claim.rank if c.suit is claim.suit else c.suit is trump
            return takes and _beat_cost(c, trump) < cost

        if held:
            leans[answer.seat] = (held, cheaper)
    return leans


def _take_discard(
    pool: list[Card],
    count: int,
    trump: Suit,
    rng: random.Random,
    temperature: float,
    under: tuple[Card, ...] = (),
    beater_lean: float = 1.0,
) -> Card:
    """One card of a face-down discard of ``count`` cards: a single card is the one its
    owner wanted least (low, not trump), and, laid under a single card ``under``, rarely
    one that would have beaten it; a discard of the whole hand is any hand."""
    if count >= HAND_SIZE:
        weights = [TRUMP_KEEP_WEIGHT if c.suit is trump else 1.0 for c in pool]
    else:
        weights = [
            math.exp(-c.points / (temperature * count))
            * (1.0 / TRUMP_KEEP_WEIGHT if c.suit is trump else 1.0)
            for c in pool
        ]
        if count == 1 and len(under) == 1 and beater_lean != 1.0:
            weights = [
                w * (beater_lean if would_take(c, under[0], trump) else 1.0)
                for w, c in zip(weights, pool, strict=True)
            ]
    card = rng.choices(pool, weights)[0]
    pool.remove(card)
    return card


def _take_kept(
    pool: list[Card],
    count: int,
    trump: Suit,
    rng: random.Random,
    floor: Card | None = None,
    lean: float = 1.0,
    unbeaten: Card | None = None,
    beater_lean: float = 1.0,
    trump_weight: float = TRUMP_KEEP_WEIGHT,
    rank_lean: float = 0.0,
    unlikely: Callable[[Card], bool] | None = None,
    unlikely_lean: float = 1.0,
) -> list[Card]:
    """``count`` cards of a hand; ``floor``: a card this hand has just led, which a
    player leads as its least wanted, so cards it would rather have kept less are
    ``lean`` times as likely (0 < lean <= 1); ``unbeaten``: a card these cards were held
    under without beating it, so cards that would have taken it are ``beater_lean``
    times as likely."""
    if not 0.0 < lean <= 1.0:
        raise ValueError(f"lead lean must be in (0, 1], not {lean}")
    rank_weights = [weight**rank_lean for weight in PLAIN_RANK_WEIGHT]
    base = [trump_weight if c.suit is trump else rank_weights[c.rank] for c in pool]
    if unbeaten is not None and beater_lean != 1.0:
        base = [
            w * (beater_lean if would_take(c, unbeaten, trump) else 1.0)
            for w, c in zip(base, pool, strict=True)
        ]
    if unlikely is not None and unlikely_lean != 1.0:
        base = [
            w * (unlikely_lean if unlikely(c) else 1.0) for w, c in zip(base, pool, strict=True)
        ]
    if floor is not None and lean != 1.0:
        keep = KEEP_VALUES[trump]
        least = keep[floor.index]
        base = [
            w * (lean if keep[c.index] < least else 1.0) for w, c in zip(base, pool, strict=True)
        ]
    taken = []
    for _ in range(count):  # by position: the draws rng.choices(pool, base) would make
        at = rng.choices(range(len(pool)), base)[0]
        taken.append(pool.pop(at))
        del base[at]
    return taken


def _last_trick(
    view: View, rules: Rules, dealt: dict[tuple[tuple[Card, ...], int], list[Card]]
) -> tuple[tuple[TablePlay, ...], int | None]:
    """The last trick with the faces its closed discards were given in the piles."""
    plays: list[TablePlay] = []
    claim: tuple[Card, ...] = ()
    taker: int | None = None
    for play in view.last_trick:
        cards = play.cards
        if cards is None:
            cards = tuple(dealt[(claim, play.seat)])
        elif play.beat is not False:
            claim, taker = cards, play.seat
        closed = rules.discards == "closed" and play.beat is False
        plays.append(TablePlay(play.seat, cards, play.beat, play.stop, closed))
    return tuple(plays), taker


def sample_world(
    view: View,
    rules: Rules,
    rng: random.Random,
    temperature: float = DISCARD_TEMPERATURE,
    lead_lean: float = 1.0,
    beater_lean: float = 1.0,
    trump_weight: float = TRUMP_KEEP_WEIGHT,
    rank_lean: float = 0.0,
    last_lean: float = 1.0,
) -> Deal:
    me = view.seat
    seen = set(view.seen_cards()) | {c for c, _owner in view.my_closed}
    known: set[Card] = set(view.hand) | seen | {view.trump_card}
    # Everyone saw who drew the turned trump: unless played since, that hand holds it.
    holder = view.trump_card_drawn_by
    trump_held = holder is not None and holder != me and view.trump_card not in seen
    if trump_held and holder is not None and not view.hand_sizes[holder]:
        known.discard(view.trump_card)  # discarded face down: somewhere in a pile
        trump_held = False
    pool = [c for c in DECK if c not in known]
    rng.shuffle(pool)
    mine_by_pile: dict[int, list[Card]] = {}
    for card, owner in view.my_closed:
        mine_by_pile.setdefault(owner, []).append(card)

    piles: list[list[PileCard]] = []
    dealt: dict[tuple[tuple[Card, ...], int], list[Card]] = {}  # closed discards by claim
    for pile in view.piles:
        # The pile in the view's order: each face-down discard right after the open cards
        # it was laid under, which share its trick (so the world's view is the view).
        groups = list(zip(pile.closed_plays, pile.closed_under, strict=True))
        cards: list[PileCard] = []
        for position, card in enumerate(pile.open_cards):
            under_it = [i for i, (_, under) in enumerate(groups) if card in under]
            if not under_it:  # a trick with no face-down discard: its own trick number
                cards.append(PileCard(card, pile.owner, False, -1 - position))
                continue
            first = under_it[0]
            cards.append(PileCard(card, pile.owner, False, first))
            if card != groups[first][1][-1]:
                continue
            for (by, count), under in groups:
                if under != groups[first][1]:
                    continue
                for _ in range(count):
                    if by == me:
                        hidden = mine_by_pile[pile.owner].pop()
                    else:
                        hidden = _take_discard(
                            pool, count, view.trump, rng, temperature, under, beater_lean
                        )
                    cards.append(PileCard(hidden, by, True, first))
                    dealt.setdefault((under, by), []).append(hidden)
        piles.append(cards)
    plays: list[TablePlay] = []
    claimed: tuple[Card, ...] = ()  # the open cards a discard on the table lies under
    for play in view.table:
        cards_ = play.cards
        if cards_ is None:
            cards_ = tuple(
                _take_discard(pool, play.count, view.trump, rng, temperature, claimed, beater_lean)
                for _ in range(play.count)
            )
        elif play.beat is not False:
            claimed = cards_
        closed = rules.discards == "closed" and play.beat is False
        plays.append(TablePlay(play.seat, cards_, play.beat, play.stop, closed))
    led: Card | None = None  # a single card just led by another seat, no draw since
    if view.table and view.table[0].seat != me and not view.table[0].stop:
        lead_cards = view.table[0].cards
        if lead_cards is not None and len(lead_cards) == 1:
            led = lead_cards[0]
    unbeaten = _unbeaten(view) if beater_lean != 1.0 else {}
    last_leans = last_trick_leans(view) if last_lean != 1.0 else {}
    keep = trump_weight or dealt_trump_weight(view)
    hands: list[list[Card]] = []
    for seat, size in enumerate(view.hand_sizes):
        floor = led if led is not None and seat == view.table[0].seat else None
        if seat == me:
            hands.append(list(view.hand))
            continue
        hand = [view.trump_card] if trump_held and seat == holder else []
        # The leans every hand of this world gets; the calls add a hand's own.
        _take_leaned = functools.partial(
            _take_kept,
            trump=view.trump,
            rng=rng,
            floor=floor,
            lean=lead_lean,
            trump_weight=keep,
            rank_lean=rank_lean,
        )
        if seat in unbeaten:  # the cards held under the claim, then any drawn since
            claim_card, held = unbeaten[seat]
            held = min(held, size - len(hand))
            hand += _take_kept(
                pool, held, view.trump, rng, None, 1.0, claim_card, beater_lean, keep, rank_lean
            )
        elif seat in last_leans:  # the cards held with its last single-card play
            held, unlikely = last_leans[seat]
            hand += _take_leaned(
                pool, min(held, size - len(hand)), unlikely=unlikely, unlikely_lean=last_lean
            )
        hand += _take_leaned(pool, size - len(hand))
        hands.append(hand)
    stock = pool
    if view.trump_card_in_stock:
        stock.append(view.trump_card)
    assert len(stock) == view.stock_size, "world: card count mismatch"

    world = object.__new__(Deal)
    world.players, world.rules, world.dealer, world.deck = view.players, rules, view.dealer, ()
    world.trump_card, world.trump = view.trump_card, view.trump
    world.hands, world.stock, world.plays, world.piles = hands, stock, plays, piles
    world.leader, world.trick_leader = view.leader, view.trick_leader
    world.phase, world.turn = view.phase, view.turn
    claim = [p for p in plays if p.beat is not False]
    world.claimant = view.claimant if view.claimant is not None else view.trick_leader
    world.claim = claim[-1].cards if claim else ()
    world.stakes, world.last_dave_by, world.dave_by = view.stakes, view.last_dave_by, view.dave_by
    world.trump_drawn_by = view.trump_card_drawn_by
    world.trick_number, world.history, world.final_result = view.trick_number, [], None
    world.last_trick, world.last_taker = _last_trick(view, rules, dealt)
    return world
