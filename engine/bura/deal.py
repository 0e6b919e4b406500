"""One deal of Bura (RULES.md Part D): dealing, leads, «Стоп!», answers, declaring,
shows, даве, drawing and the deal's outcome.

Shared with Burkozel: cards, beating and points (``engine.cards``), the R7 answer
matching (``engine.burkozel.deal.covers``). Several seats may act at one moment (the rightful
leader and a «Стоп!» holder): :meth:`BuraDeal.actors` names them. Every refusal
raises :class:`IllegalMoveError` before anything changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from operator import attrgetter

from engine.bura.actions import (
    Action,
    Answer,
    BuraDealResult,
    Dave,
    DaveReply,
    Declare,
    Lead,
    PileCard,
    Show,
    TablePlay,
)
from engine.bura.combinations import (
    is_bura,
    is_moscow,
    is_small_moscow,
    may_stop,
    stop_refusal,
    void_from_deal,
    winning_show,
)
from engine.bura.rules import (
    BASE_BURA_RULES,
    BUST_LIMIT,
    DECLARE_TARGET,
    HAND_SIZE,
    MAX_PLAYERS,
    BuraRules,
)
from engine.bura.view import BuraView, SeenPile, closed_plays, seen_plays
from engine.cards import DECK, Card, Rank, Suit, check_deck
from engine.errors import GameOverError, IllegalMoveError
from engine.game import PUBLIC
from engine.tricks import covers, group_leads

# Phases of a deal.
LEAD, ANSWER, DECLARE, DAVE, OVER = "lead", "answer", "declare", "dave", "over"

OUTCOMES = ("declared", "false_declaration", "bura", "moscow", "fold", "void")


# Actions handed out by ``BuraDeal.legal_actions``, and the table plays and pile cards
# they become, are interned: each is an immutable value, and building a frozen
# dataclass costs more than the rest of a move (the key packs seat, kind and card
# indices in order, base 37, every digit non-zero). Emptied past the limit.
_ACTIONS: dict[int, Lead | Answer] = {}
_TABLE_PLAYS: dict[int, TablePlay] = {}  # by action key and play variant
_INTERNED_LIMIT = 20_000  # emptied past this (a few MB): a cache, not a leak
_LEAD, _DISCARD, _BEAT, _STOP = 0, 1, 2, 3


# Two-card actions and table plays, the most of the several-card ones, in tables filled
# as they come and never emptied (bounded by kind, seat and two card indices):
# [(kind * 4 + seat) * 1296 + first * 36 + second], a table play's kind also telling a
# closed discard (kind * 2 + closed).
_PAIR_ACTIONS: list[Lead | Answer | None] = [None] * (4 * MAX_PLAYERS * 1296)
_PAIR_PLAYS: list[TablePlay | None] = [None] * (8 * MAX_PLAYERS * 1296)


def _new_action(seat: int, cards: tuple[Card, ...], kind: int) -> Lead | Answer:
    if kind in (_LEAD, _STOP):
        return Lead(seat, cards, kind == _STOP)
    return Answer(seat, cards, kind == _BEAT)


def _interned(seat: int, cards: tuple[Card, ...], kind: int) -> Lead | Answer:
    if len(cards) == 2:
        a, b = cards
        pair = (kind * 4 + seat) * 1296 + a.index * 36 + b.index
        action = _PAIR_ACTIONS[pair]
        if action is None:
            action = _PAIR_ACTIONS[pair] = _new_action(seat, cards, kind)
        return action
    key = kind * 4 + seat + 1
    for card in cards:
        key = key * 37 + card.index + 1
    action = _ACTIONS.get(key)
    if action is None:
        if len(_ACTIONS) >= _INTERNED_LIMIT:
            _ACTIONS.clear()
        action = _ACTIONS[key] = _new_action(seat, cards, kind)
    return action


# One-card actions, made once: [kind][seat][card index].
_SINGLES: tuple[tuple[tuple[Lead | Answer, ...], ...], ...] = tuple(
    tuple(tuple(_interned(seat, (card,), kind) for card in DECK) for seat in range(MAX_PLAYERS))
    for kind in (_LEAD, _DISCARD, _BEAT)
)
_LEADS, _DISCARDS, _BEATS = _SINGLES
_ACE, _SIX = Rank.ACE, Rank.SIX
_SEATS = range(MAX_PLAYERS)
# The actions without cards, made once per seat.
_DECLARES = tuple((Declare(s, True), Declare(s, False)) for s in _SEATS)
_DAVE_REPLIES = tuple((DaveReply(s, True), DaveReply(s, False)) for s in _SEATS)
_DAVES = tuple(Dave(s) for s in _SEATS)
_SHOW_BURA = tuple(Show(s, "bura") for s in _SEATS)
_SHOW_MOSCOW = tuple(Show(s, "moscow") for s in _SEATS)

# The table play of a one-card action: [seat][card index] for a lead, and
# [variant][seat][card index] for an answer (0 open discard, 1 closed discard, 2 beat).
_LEAD_PLAYS = tuple(
    tuple(TablePlay(s, _SINGLES[_LEAD][s][i].cards, None) for i in range(len(DECK))) for s in _SEATS
)
_ANSWER_PLAYS = tuple(
    tuple(
        tuple(
            TablePlay(s, _SINGLES[kind][s][i].cards, kind == _BEAT, False, closed)
            for i in range(len(DECK))
        )
        for s in _SEATS
    )
    for kind, closed in ((_DISCARD, False), (_DISCARD, True), (_BEAT, False))
)

# Seat arithmetic per table size: [players][seat].
_NEXT = tuple(tuple((s + 1) % n if n else 0 for s in range(MAX_PLAYERS)) for n in range(5))
_OTHERS = tuple(tuple(tuple(o for o in range(n) if o != s) for s in _SEATS) for n in range(5))
_DRAW_ORDER = tuple(
    tuple(tuple((s + i) % n for i in range(n)) if n else () for s in _SEATS) for n in range(5)
)
_ONE = tuple((s,) for s in _SEATS)

# R5 as bit masks: [trump suit][card index] -> the cards (bits by index) that beat it
# (a higher card of its suit, or any trump over a non-trump). A card's suit is index // 9.
_SUIT_BITS = tuple(((1 << 9) - 1) << (9 * t) for t in range(4))
_BEATEN_BY = tuple(
    tuple(
        (_SUIT_BITS[i // 9] & ~((1 << (i + 1)) - 1)) | (0 if i // 9 == t else _SUIT_BITS[t])
        for i in range(len(DECK))
    )
    for t in range(4)
)


def _table_play(
    seat: int, cards: tuple[Card, ...], kind: int, beat: bool | None, stop: bool, closed: bool
) -> TablePlay:
    """The interned table play of a several-card lead or answer."""
    if len(cards) == 2:
        a, b = cards
        pair = ((kind * 2 + closed) * 4 + seat) * 1296 + a.index * 36 + b.index
        found = _PAIR_PLAYS[pair]
        if found is None:
            found = _PAIR_PLAYS[pair] = TablePlay(seat, cards, beat, stop, closed)
        return found
    key = (kind * 2 + closed) * 4 + seat + 1
    for card in cards:
        key = key * 37 + card.index + 1
    play = _TABLE_PLAYS.get(key)
    if play is None:
        if len(_TABLE_PLAYS) >= _INTERNED_LIMIT:
            _TABLE_PLAYS.clear()
        play = _TABLE_PLAYS[key] = TablePlay(seat, cards, beat, stop, closed)
    return play


_PILE_ROWS: dict[int, tuple[tuple[tuple[PileCard, ...], ...], ...]] = {}
_PILE_POINTS = attrgetter("card.points")


def _pile_row(trick: int) -> tuple[tuple[tuple[PileCard, ...], ...], ...]:
    """The pile cards of one trick, [closed][by][card index]."""
    row = _PILE_ROWS[trick] = tuple(
        tuple(tuple(PileCard(card, by, closed, trick) for card in DECK) for by in _SEATS)
        for closed in (False, True)
    )
    return row


def _holds(hand: list[Card], cards: tuple[Card, ...]) -> bool:
    """``hand`` holds every one of ``cards``, and none is named twice. By identity (cards
    are interned): ``==`` on a Card goes through Python-level rich comparison."""
    for card in cards:
        for held in hand:
            if held is card:
                break
        else:
            return False
    return len(set(map(id, cards))) == len(cards)


def _held(hand: list[Card], card: Card) -> bool:
    """``card in hand``, by identity (see :func:`_holds`)."""
    return id(card) in map(id, hand)


def _take_out(hand: list[Card], card: Card) -> None:
    """``hand.remove(card)``, found by identity (see :func:`_holds`)."""
    if hand and hand[0] is card:
        del hand[0]
    elif len(hand) > 1 and hand[1] is card:
        del hand[1]
    elif len(hand) > 2 and hand[2] is card:
        del hand[2]
    else:
        hand.remove(card)  # a longer hand, or ValueError as before


def _may_stop(hand: Sequence[Card]) -> bool:
    """A hand that could be a молодка or малая Москва (D7, D8): three of one suit or
    three sixes. Only such a hand is worth asking :func:`stop_refusal` about."""
    if len(hand) != HAND_SIZE:
        return False
    a, b, c = hand
    return (a.suit is b.suit and a.suit is c.suit) or (a.rank is b.rank and a.rank is c.rank)


def _other_ranks_same(cards: Sequence[Card]) -> bool:
    return all(c.rank is cards[0].rank for c in cards)


def _one_suit(cards: Sequence[Card]) -> bool:
    return all(c.suit is cards[0].suit for c in cards)


class BuraDeal:
    """The state of one Bura deal. Build it with :meth:`start`; advance it with :meth:`apply`."""

    players: int
    rules: BuraRules
    dealer: int
    deck: tuple[Card, ...]
    trump_card: Card
    trump: Suit
    hands: list[list[Card]]
    stock: list[Card]
    leader: int
    trick_leader: int
    phase: str
    turn: int | None
    plays: list[TablePlay]
    claimant: int
    claim: tuple[Card, ...]
    piles: list[list[PileCard]]
    stakes: int
    last_dave_by: int | None
    dave_by: int | None
    trump_drawn_by: int | None
    trick_number: int
    history: list[Action]
    # The trick taken last and by whom, kept until the next lead: the card that completes
    # a trick is seen by all (R8 via Part D) only if the table shows it after the take.
    last_trick: tuple[TablePlay, ...] = ()
    last_taker: int | None = None
    result_: BuraDealResult | None

    @classmethod
    def start(
        cls,
        players: int,
        deck: Sequence[Card],
        dealer: int,
        rules: BuraRules = BASE_BURA_RULES,
        stakes: int = 1,
    ) -> BuraDeal:
        """Deal from ``deck`` (index 0 = top) as D1: 3 rounds from the seat after the
        dealer, the next card turned up as trump to the bottom of the stock."""
        rules.check_players(players)
        if not 0 <= dealer < players:
            raise IllegalMoveError(f"dealer must be a seat from 0 to {players - 1}")
        order = check_deck(deck)
        self = object.__new__(cls)
        self.players, self.rules, self.dealer, self.deck = players, rules, dealer, order
        # Card i of the deal goes to seat (dealer + 1 + i) % players.
        dealt = players * HAND_SIZE
        self.hands = hands = [
            list(order[(seat - dealer - 1) % players : dealt : players]) for seat in range(players)
        ]
        self.trump_card = order[dealt]
        self.trump = self.trump_card.suit
        self.stock = [*order[dealt + 1 :], self.trump_card]
        self.leader = self.trick_leader = (dealer + 1) % players
        self.phase, self.turn = LEAD, self.leader
        self.plays, self.claimant, self.claim = [], self.leader, ()
        self.piles = [[] for _ in range(players)]
        self.stakes = stakes
        self.last_dave_by = self.dave_by = self.trump_drawn_by = None
        self.trick_number = 0
        self.history = []
        self.result_ = None
        # D9: dealt again, stakes unchanged (only a hand of one suit or rank can combine).
        for a, b, c in hands:
            if (a.suit is b.suit and a.suit is c.suit) or (a.rank is b.rank and a.rank is c.rank):
                if void_from_deal(hands, self.trump, rules):
                    self._end("void", None, None)
                break
        return self

    def copy(self) -> BuraDeal:
        other = object.__new__(BuraDeal)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.plays = list(self.plays)
        other.piles = [list(p) for p in self.piles]
        other.history = list(self.history)
        return other

    # --- what anyone may ask -------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    def result(self) -> BuraDealResult:
        if self.result_ is None:
            raise GameOverError("the deal is still being played")
        return self.result_

    def points(self) -> tuple[int, ...]:
        """Trick points per seat, closed cards included (for results, never for views)."""
        return tuple([sum(map(_PILE_POINTS, pile)) for pile in self.piles])

    def view(self, seat: int) -> BuraView:
        """What ``seat`` may see (D3): never another hand, closed discard or running total."""
        if not 0 <= seat < self.players:
            raise IllegalMoveError(f"no seat {seat} at a {self.players}-player table")
        return self._seat_view(seat)

    def public_view(self) -> BuraView:
        """What everyone sees (the group's table, an onlooker): no hand, no face of any
        closed discard (D3), no running total."""
        return self._seat_view(PUBLIC)

    def _seat_view(self, seat: int) -> BuraView:
        table = seen_plays(self.plays, seat)
        piles = tuple(
            SeenPile(
                owner,
                tuple(pc.card for pc in pile if not pc.closed),
                tuple(pc.by for pc in pile if pc.closed),
                *closed_plays(pile),
            )
            for owner, pile in enumerate(self.piles)
        )
        mine = tuple(
            (pc.card, owner)
            for owner, pile in enumerate(self.piles)
            for pc in pile
            if pc.closed and pc.by == seat
        )
        mine += tuple((c, -1) for p in self.plays if p.closed and p.seat == seat for c in p.cards)
        return BuraView(
            seat=seat,
            players=self.players,
            hand=() if seat == PUBLIC else tuple(sorted(self.hands[seat])),
            hand_sizes=tuple(len(h) for h in self.hands),
            trump=self.trump,
            trump_card=self.trump_card,
            trump_card_drawn_by=self.trump_drawn_by,
            stock_size=len(self.stock),
            dealer=self.dealer,
            leader=self.leader,
            trick_leader=self.trick_leader,
            phase=self.phase,
            turn=self.turn,
            may_act=seat in self.actors(),
            claimant=self.claimant if self.plays else None,
            table=table,
            last_trick=seen_plays(self.last_trick, seat),
            piles=piles,
            my_closed=mine,
            stakes=self.stakes,
            dave_by=self.dave_by,
            last_dave_by=self.last_dave_by,
            trick_number=self.trick_number,
            result=self.result_,
            closed_discards=self.rules.discards == "closed",
        )

    def last_trick_taken(self) -> bool:
        """The trick just taken was the deal's last: no draw follows, only the end (D9)."""
        return not self.stock and not any(self.hands)

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self.hands[seat])

    def table_cards(self) -> list[Card]:
        return [c for p in self.plays for c in p.cards]

    def actors(self) -> tuple[int, ...]:
        """The seats that have a legal action now (the rightful leader first)."""
        phase = self.phase
        if phase != LEAD:
            if phase == OVER:
                return ()
            turn = self.turn
            assert turn is not None
            return _ONE[turn]
        hands, leader, rules = self.hands, self.leader, self.rules
        stoppers: list[int] = []
        if rules.molodka != "off" or rules.moscow != "off":
            for s in _OTHERS[self.players][leader]:
                hand = hands[s]
                if len(hand) != HAND_SIZE:
                    continue
                a, b, c = hand
                if not (a.suit is b.suit and a.suit is c.suit) and not (
                    a.rank is b.rank and a.rank is c.rank
                ):
                    continue  # neither молодка nor малая Москва (D7, D8)
                if may_stop(hands, s, leader, self.trump, rules):
                    stoppers.append(s)
        if not stoppers:
            return _ONE[leader]
        return (leader, *stoppers)

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now (answers once as discard, once as beat if able)."""
        phase = self.phase
        actions: list[Action]
        if phase == ANSWER:
            if seat != self.turn:
                return []
            hand, claim = self.hands[seat], self.claim
            actions = []
            if len(hand) == HAND_SIZE:
                # show_kind's tests, inlined: three aces (D8, with moscow: on), three trumps (D6).
                a, b, c = hand
                if a.suit is b.suit:
                    if a.suit is c.suit and a.suit is self.trump:
                        actions.append(_SHOW_BURA[seat])
                elif (
                    a.rank is _ACE
                    and b.rank is _ACE
                    and c.rank is _ACE
                    and self.rules.moscow == "on"
                ):
                    actions.append(_SHOW_MOSCOW[seat])
            if len(claim) == 1:
                discards, beats = _DISCARDS[seat], _BEATS[seat]
                beaten_by = _BEATEN_BY[self.trump_card.index // 9][claim[0].index]
                for a in hand:
                    i = a.index
                    actions.append(discards[i])
                    if beaten_by >> i & 1:
                        actions.append(beats[i])
            elif len(claim) == 2:
                # R7 for two cards: each claim card beaten by its own answer card.
                beaten = _BEATEN_BY[self.trump_card.index // 9]
                m0, m1 = beaten[claim[0].index], beaten[claim[1].index]
                pairs, discards_at = _PAIR_ACTIONS, (_DISCARD * 4 + seat) * 1296
                beats_at = (_BEAT * 4 + seat) * 1296
                for two in combinations(hand, 2):
                    x, y = two[0].index, two[1].index
                    at = x * 36 + y
                    actions.append(pairs[discards_at + at] or _interned(seat, two, _DISCARD))
                    if (m0 >> x & 1 and m1 >> y & 1) or (m0 >> y & 1 and m1 >> x & 1):
                        actions.append(pairs[beats_at + at] or _interned(seat, two, _BEAT))
            else:
                for combo in combinations(hand, len(claim)):
                    actions.append(_interned(seat, combo, _DISCARD))
                    if covers(combo, claim, self.trump):
                        actions.append(_interned(seat, combo, _BEAT))
            return actions
        if phase == LEAD:
            if seat != self.leader:
                return self._stop_actions(seat)
            hands = self.hands
            hand = hands[seat]
            if len(hand) != HAND_SIZE:
                return self._short_leads(seat, self._lead_limit(seat))
            # D2: at most 3 cards, never more than the smallest other hand (this one is 3).
            limit = min(map(len, hands))
            rules = self.rules
            actions = []
            a, b, c = hand
            sa, sb, sc = a.suit, b.suit, c.suit
            ab, ac, bc = sa is sb, sa is sc, sb is sc
            if ab:
                if ac and sa is self.trump:
                    actions.append(_SHOW_BURA[seat])  # D6
            elif a.rank is _ACE and b.rank is _ACE and c.rank is _ACE and rules.moscow == "on":
                actions.append(_SHOW_MOSCOW[seat])  # D8
            if rules.dave == "on" and self._dave_refusal(seat) is None:
                actions.append(_DAVES[seat])
            singles = _LEADS[seat]
            ia, ib, ic = a.index, b.index, c.index
            actions += (singles[ia], singles[ib], singles[ic])
            if limit < 2:
                return actions
            # group_leads, written out for three cards: pairs in combinations order, then all.
            three = ab and ac
            if rules.same_rank_leads == "on":
                ra, rb, rc = a.rank, b.rank, c.rank
                ab = ab or ra is rb
                ac = ac or ra is rc
                bc = bc or rb is rc
                three = three or (ra is rb and ra is rc)
            pairs, at = _PAIR_ACTIONS, (_LEAD * 4 + seat) * 1296
            if ab:
                actions.append(pairs[at + ia * 36 + ib] or _interned(seat, (a, b), _LEAD))
            if ac:
                actions.append(pairs[at + ia * 36 + ic] or _interned(seat, (a, c), _LEAD))
            if bc:
                actions.append(pairs[at + ib * 36 + ic] or _interned(seat, (b, c), _LEAD))
            if limit < HAND_SIZE:
                return actions
            if three:
                actions.append(_interned(seat, (a, b, c), _LEAD))
            elif (  # (three sixes under same_rank_leads are offered above already)
                a.rank is _SIX
                and b.rank is _SIX
                and c.rank is _SIX
                and rules.moscow == "on"
                and self.trump in (sa, sb, sc)
            ):
                actions.append(_interned(seat, (a, b, c), _LEAD))  # D8: малая Москва
            return actions
        if phase == DECLARE:
            return list(_DECLARES[seat]) if seat == self.turn else []
        if phase == DAVE:
            return list(_DAVE_REPLIES[seat]) if seat == self.turn else []
        return []

    def _stop_actions(self, seat: int) -> list[Action]:
        """A seat other than the rightful leader: «Стоп!» with the whole hand, if it may."""
        if not 0 <= seat < self.players:
            return []
        hand = self.hands[seat]
        if _may_stop(hand) and may_stop(self.hands, seat, self.leader, self.trump, self.rules):
            return [_interned(seat, tuple(hand), _STOP)]
        return []

    def _short_leads(self, seat: int, limit: int) -> list[Action]:
        """The rightful leader's actions with fewer than three cards (the stock is out):
        no show or малая Москва, which are of three cards."""
        hand, rules = self.hands[seat], self.rules
        actions: list[Action] = []
        if rules.dave == "on" and self._dave_refusal(seat) is None:
            actions.append(_DAVES[seat])
        singles = _LEADS[seat]
        actions += [singles[c.index] for c in hand]
        if limit >= 2:
            same_rank = rules.same_rank_leads == "on"
            actions += [
                _interned(seat, group, _LEAD) for group in group_leads(hand, limit, same_rank)
            ]
        return actions

    def _lead_limit(self, seat: int) -> int:
        """D2: at most 3 cards, never more than the smallest other hand."""
        limit = HAND_SIZE
        for s, hand in enumerate(self.hands):
            if s != seat and len(hand) < limit:
                limit = len(hand)
        return limit

    def _dave_refusal(self, seat: int) -> str | None:
        if self.rules.dave != "on":
            return "даве is switched off (D11)"
        if self.players != 2:
            return "даве is for 2 players only (D11)"
        if seat != self.leader:
            return "only the rightful leader may say даве, before leading (D11)"
        if self.last_dave_by == seat:
            return "say даве again only after the other player has (D11)"
        return None

    # --- moves ---------------------------------------------------------------

    def check(self, action: Action) -> None:
        """Raise :class:`IllegalMoveError` saying why ``action`` is not legal now."""
        if self.phase == OVER:
            raise GameOverError("the deal is over")
        if not 0 <= action.seat < self.players:
            raise IllegalMoveError(f"no seat {action.seat} at a {self.players}-player table")
        if self.phase == DECLARE:
            if isinstance(action, Declare):
                if action.seat != self.turn:
                    raise IllegalMoveError(
                        f"only seat {self.turn}, who took the trick, may declare (D5)"
                    )
                return
            # Any other move means no declaration: the draw follows (D5), then the move.
            trial = self.copy()
            trial._go_on()
            trial.check(action)
            return
        if isinstance(action, Declare):
            raise IllegalMoveError("declare only right after taking a trick (D5)")
        if self.phase == DAVE:
            if not isinstance(action, DaveReply):
                raise IllegalMoveError(f"seat {self.turn} must first answer даве (D11)")
            if action.seat != self.turn:
                raise IllegalMoveError(f"it is seat {self.turn} who answers даве (D11)")
            return
        if isinstance(action, DaveReply):
            raise IllegalMoveError("nobody has said даве (D11)")
        if isinstance(action, Show):
            self._check_show(action)
        elif isinstance(action, Dave):
            if self.phase != LEAD:
                raise IllegalMoveError("даве is said before leading (D11)")
            refusal = self._dave_refusal(action.seat)
            if refusal:
                raise IllegalMoveError(refusal)
        elif isinstance(action, Lead):
            self._check_lead(action)
        else:
            self._check_answer(action)

    def _check_cards(self, seat: int, cards: tuple[Card, ...]) -> None:
        if not cards:
            raise IllegalMoveError("a move needs at least one card")
        if len(set(cards)) != len(cards):
            raise IllegalMoveError("the same card is played twice")
        missing = [c.code() for c in cards if c not in self.hands[seat]]
        if missing:
            raise IllegalMoveError(f"seat {seat} does not hold {', '.join(missing)}")

    def _check_show(self, action: Show) -> None:
        seat = action.seat
        if seat != self.turn:
            raise IllegalMoveError(f"show on your own turn; it is seat {self.turn}'s (D6)")
        hand = self.hands[seat]
        if action.kind == "bura" and not is_bura(hand, self.trump):
            raise IllegalMoveError(f"seat {seat} does not hold бура, three trumps (D6)")
        if action.kind == "moscow":
            if self.rules.moscow != "on":
                raise IllegalMoveError("Москва is switched off (D8)")
            if not is_moscow(hand, self.rules):
                raise IllegalMoveError(f"seat {seat} does not hold Москва, three aces (D8)")

    def _check_lead(self, action: Lead) -> None:
        seat, cards = action.seat, action.cards
        if self.phase != LEAD:
            raise IllegalMoveError(f"it is seat {self.turn}'s turn to answer, not to lead")
        if action.stop:
            refusal = stop_refusal(self.hands, seat, self.leader, self.trump, self.rules)
            if refusal:
                raise IllegalMoveError(refusal)
            if sorted(cards) != sorted(self.hands[seat]):
                raise IllegalMoveError("«Стоп!» leads the whole hand of three (D7)")
            self._check_cards(seat, cards)
            return
        if seat != self.leader:
            raise IllegalMoveError(f"it is seat {self.leader}'s lead, not seat {seat}'s")
        self._check_cards(seat, cards)
        limit = self._lead_limit(seat)
        if len(cards) > limit:
            raise IllegalMoveError(f"a lead is at most {limit} card(s) now (D2)")
        if len(cards) == 1 or _one_suit(cards):
            return
        if self.rules.same_rank_leads == "on" and _other_ranks_same(cards):
            return
        # D8 "Precisely": a rightful leader holding малая Москва may lead the three sixes.
        if len(cards) == HAND_SIZE and is_small_moscow(cards, self.trump, self.rules):
            return
        raise IllegalMoveError("a lead of several cards must be of one suit (D2)")

    def _check_answer(self, action: Answer) -> None:
        if self.phase != ANSWER:
            raise IllegalMoveError("nothing has been led yet: lead, don't answer")
        if action.seat != self.turn:
            raise IllegalMoveError(f"it is seat {self.turn}'s turn, not seat {action.seat}'s")
        self._check_cards(action.seat, action.cards)
        if len(action.cards) != len(self.claim):
            raise IllegalMoveError(f"answer with exactly {len(self.claim)} card(s) (R7)")
        if action.beat and not covers(action.cards, self.claim, self.trump):
            raise IllegalMoveError("these cards do not beat every claimant card (R7)")

    def apply(self, action: Action) -> None:
        """Check and play ``action``; a refused action changes nothing.

        A common move whose legality shows at a glance (:meth:`_plainly_legal`, made of
        :meth:`check`'s own tests) is played at once; any other is checked in full, so
        refusals and their reasons are :meth:`check`'s.
        """
        if not self._plainly_legal(action):
            self.check(action)
        self.push(action)

    def _plainly_legal(self, action: Action) -> bool:
        """Whether ``action`` is one of the common moves whose legality is quick to see:
        an answer in turn (R7), a lead of one card or of two of a suit (or of a rank
        with same_rank_leads) by the rightful leader (D2), a declaration or its refusal
        by the taker (D5), a reply to даве (D11). ``False`` means only "not seen at a
        glance": :meth:`check` then decides, with a reason. Each test here is one that
        :meth:`check` makes for such a move. Cards are found in a hand by identity
        (they are interned), not by ``==``."""
        cls, phase = action.__class__, self.phase
        if cls is Answer:
            if phase != ANSWER or action.seat != self.turn:
                return False
            answer: Answer = action  # type: ignore[assignment]
            cards, claim, hand = answer.cards, self.claim, self.hands[answer.seat]
            if len(cards) != len(claim):
                return False
            if len(cards) == 1:
                card = cards[0]
                if not _held(hand, card):
                    return False
                if not answer.beat:
                    return True
                return bool(
                    _BEATEN_BY[self.trump_card.index // 9][claim[0].index] >> card.index & 1
                )
            if not _holds(hand, cards):
                return False
            return not answer.beat or covers(cards, claim, self.trump)
        if cls is Lead:
            lead: Lead = action  # type: ignore[assignment]
            seat, cards = lead.seat, lead.cards
            if phase != LEAD or lead.stop or seat != self.leader:
                return False
            hand = self.hands[seat]
            if len(cards) == 1:
                card = cards[0]
                if not _held(hand, card):
                    return False
                # D2: not longer than the smallest other hand (the own hand holds it).
                return all(self.hands)
            if len(cards) != 2 or not _holds(hand, cards):
                return False
            a, b = cards
            if a.suit is not b.suit and (
                a.rank is not b.rank or self.rules.same_rank_leads != "on"
            ):
                return False
            return min(map(len, self.hands)) >= 2  # D2 (the own hand holds the two)
        if cls is Declare:
            return phase == DECLARE and action.seat == self.turn
        if cls is DaveReply:
            return phase == DAVE and action.seat == self.turn
        return False

    def push(self, action: Action) -> None:
        """Play an action already known to be legal (e.g. from :meth:`legal_actions`)."""
        cls = type(action)
        if cls is Answer or (cls is not Lead and cls is not Declare and isinstance(action, Answer)):
            answer: Answer = action  # type: ignore[assignment]
            if self.phase == DECLARE:
                self._go_on()
            self.history.append(answer)
            seat, cards, beat = answer.seat, answer.cards, answer.beat
            hand = self.hands[seat]
            if len(cards) == 1:
                card = cards[0]
                _take_out(hand, card)
                if beat:
                    play = _ANSWER_PLAYS[2][seat][card.index]
                else:
                    play = _ANSWER_PLAYS[self.rules.discards == "closed"][seat][card.index]
            else:
                for card in cards:
                    _take_out(hand, card)
                closed = not beat and self.rules.discards == "closed"
                play = _table_play(seat, cards, _BEAT if beat else _DISCARD, beat, False, closed)
            self.plays.append(play)
            if beat:
                self.claimant, self.claim = seat, cards
            nxt = _NEXT[self.players][seat]
            if nxt == self.trick_leader:
                self._take_trick()
            else:
                self.turn = nxt
            return
        if cls is Lead or (cls is not Declare and isinstance(action, Lead)):
            lead: Lead = action  # type: ignore[assignment]
            if self.phase == DECLARE:
                self._go_on()
            self.history.append(lead)
            seat, cards, stop = lead.seat, lead.cards, lead.stop
            hand = self.hands[seat]
            if len(cards) == 1 and not stop:
                card = cards[0]
                _take_out(hand, card)
                play = _LEAD_PLAYS[seat][card.index]
            else:
                for card in cards:
                    _take_out(hand, card)
                play = _table_play(seat, cards, _STOP if stop else _LEAD, None, stop, False)
            self.plays.append(play)
            self.trick_leader = self.claimant = seat
            self.claim = cards
            self.phase = ANSWER
            self.turn = _NEXT[self.players][seat]
            return
        if cls is Declare or isinstance(action, Declare):
            # Right after a take (D5); not declaring means the draw.
            self.history.append(action)
            if action.declare:  # type: ignore[union-attr]
                self._declare(action.seat)
            else:
                self._go_on()
            return
        if self.phase == DECLARE:
            self._go_on()
        self.history.append(action)
        seat = action.seat
        if isinstance(action, Show):
            winner, kind = winning_show(self.hands, self.trump, self.rules)
            self._end(kind, winner, seat)
        elif isinstance(action, Dave):
            self.phase, self.dave_by, self.turn = DAVE, seat, (seat + 1) % self.players
        elif isinstance(action, DaveReply):
            assert self.dave_by is not None
            if action.accept:
                self.stakes *= 2
                self.last_dave_by = self.dave_by
                self.phase, self.turn, self.dave_by = LEAD, self.leader, None
            else:  # D11: a fold wins the deal for the даве sayer at the stakes before doubling
                self._end("fold", self.dave_by, self.dave_by)

    def _take_trick(self) -> None:
        """R9: the claimant takes the table, face down (D3); then they may declare (D5)."""
        winner = self.claimant
        plays = self.plays
        self.last_trick, self.last_taker = tuple(plays), winner
        trick = self.trick_number
        pile = self.piles[winner]
        row = _PILE_ROWS.get(trick)
        if row is None:
            row = _pile_row(trick)
        for p in plays:
            cards = row[p.closed][p.seat]
            for c in p.cards:
                pile.append(cards[c.index])
        self.plays, self.claim = [], ()
        self.trick_number = trick + 1
        self.leader = self.trick_leader = winner
        self.phase, self.turn = DECLARE, winner

    def _go_on(self) -> None:
        """No declaration: draw back to 3, winner first (D4, R10); void if all is played."""
        winner = self.leader
        stock = self.stock
        if stock:
            # R10 (as engine.tricks.draw_up): one card at a time, the taker first, until
            # every hand holds 3 or the stock is out.
            hands, trump_card = self.hands, self.trump_card
            order = _DRAW_ORDER[self.players][winner]
            need = HAND_SIZE - len(hands[winner])
            if len(stock) >= need * len(order) and len(set(map(len, hands))) == 1:
                # Every hand is short by the same count and the stock covers them all.
                for _ in range(need):
                    for s in order:
                        card = stock.pop(0)
                        if card is trump_card:
                            self.trump_drawn_by = s
                        hands[s].append(card)
                self.phase, self.turn = LEAD, winner
                return
            while stock:
                drew = False
                for s in order:
                    hand = hands[s]
                    if len(hand) < HAND_SIZE:
                        card = stock.pop(0)
                        if card is trump_card:
                            self.trump_drawn_by = s
                        hand.append(card)
                        drew = True
                        if not stock:
                            break
                if not drew:
                    break
        elif not any(self.hands):  # D9: run out with no declaration
            self._end("void", None, None, run_out=True)
            return
        self.phase, self.turn = LEAD, winner

    def _declare(self, seat: int) -> None:
        """D5: the pile, closed cards included, is turned up and counted."""
        total = self.points()[seat]
        good = total >= DECLARE_TARGET and (self.rules.target == "31" or total <= BUST_LIMIT)
        if good:
            self._end("declared", seat, seat)
        else:
            self._end("false_declaration", None, seat)

    def _end(self, outcome: str, winner: int | None, by: int | None, run_out: bool = False) -> None:
        self.result_ = BuraDealResult(outcome, winner, by, self.points(), self.stakes, run_out)
        self.phase, self.turn, self.dave_by = OVER, None, None

    def finish_record(self) -> None:
        """A record's deal ended right after the last trick with no declaration: the
        deal passed and is complete and void (D5 "Precisely")."""
        if self.phase == DECLARE and not any(self.hands) and not self.stock:
            self._go_on()

    def replay(self, actions: Iterable[Action]) -> BuraDeal:
        for action in actions:
            self.apply(action)
        return self
