"""One deal of Bura (docs/RULES.md Part D): dealing, leads, «Стоп!», answers,
declaring, shows, даве, drawing and the deal's outcome.

The fast form of engine/bura/reference.py, which states the same rules plainly
(tests/engine/test_reference.py holds the two equal). Shared with Burkozel: cards,
beating and points (``engine.cards``), the R7 answer matching and the draw
(``engine.tricks``), the encodings of the hot paths (``engine.fast``). Several seats may
act at one moment (the rightful leader and a «Стоп!» holder): :meth:`Deal.actors`
names them. Every refusal raises :class:`IllegalMoveError` before anything changes:
:meth:`check` says why, the one legality test besides :meth:`legal_actions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from operator import attrgetter

from engine.bura.actions import (
    Action,
    Answer,
    Dave,
    DaveReply,
    DealResult,
    Declare,
    Lead,
    PileCard,
    Show,
    TablePlay,
)
from engine.bura.combinations import (
    BURA_HELD,
    MOLODKA_HELD,
    MOSCOW_HELD,
    NOTHING_HELD,
    SMALL_MOSCOW_HELD,
    hand_kind,
    is_bura,
    is_moscow,
    is_small_moscow,
    may_stop,
    stop_refusal,
    winning_show,
)
from engine.bura.forms import HandForm, form_table
from engine.bura.rules import (
    BASE_RULES,
    BUST_LIMIT,
    DECLARE_TARGET,
    HAND_SIZE,
    MAX_PLAYERS,
    Rules,
)
from engine.bura.view import SeenPile, View, closed_plays, seen_plays
from engine.cards import DECK, Card, Suit, check_deck
from engine.errors import GameOverError, IllegalMoveError
from engine.fast import (
    BEATEN_UNDER,
    PAIRINGS,
    PICKS,
    Interned,
    ThreeCardTable,
    covers_cards,
    lead_picks,
    suit_no,
)
from engine.game import PUBLIC
from engine.tricks import covers, draw_up, one_rank, one_suit

# Phases of a deal.
LEAD, ANSWER, DECLARE, DAVE, OVER = "lead", "answer", "declare", "dave", "over"

OUTCOMES = ("declared", "false_declaration", "bura", "moscow", "fold", "void")


_LEAD, _DISCARD, _BEAT, _STOP = 0, 1, 2, 3


def _make_action(kind: int, seat: int, cards: tuple[Card, ...]) -> Lead | Answer:
    if kind in (_LEAD, _STOP):
        return Lead(seat, cards, kind == _STOP)
    return Answer(seat, cards, kind == _BEAT)


def _make_play(variant: int, seat: int, cards: tuple[Card, ...]) -> TablePlay:
    """The table play of a lead or answer: ``variant`` is its kind * 2 + closed (D3)."""
    kind, closed = divmod(variant, 2)
    beat = None if kind in (_LEAD, _STOP) else kind == _BEAT
    return TablePlay(seat, cards, beat, kind == _STOP, closed == 1)


# Actions handed out by ``Deal.legal_actions``, and the table plays they become, are
# interned (engine/fast.py): each is an immutable value, and one object serves every
# position that offers it.
_ACTIONS = Interned(_make_action, kinds=4, limit=20_000)
_PLAYS = Interned(_make_play, kinds=8, limit=20_000)
_LEADS, _DISCARDS, _BEATS, _ = _ACTIONS.singles
_LEAD_PLAYS = _PLAYS.singles[_LEAD * 2]
_OPEN_DISCARD_PLAYS = _PLAYS.singles[_DISCARD * 2]
_CLOSED_DISCARD_PLAYS = _PLAYS.singles[_DISCARD * 2 + 1]
_BEAT_PLAYS = _PLAYS.singles[_BEAT * 2]
_SEATS = range(MAX_PLAYERS)
_STOP_HANDS = (SMALL_MOSCOW_HELD, MOLODKA_HELD)  # the hands that may say «Стоп!» (D7, D8)
_SHOW_HANDS = (BURA_HELD, MOSCOW_HELD)  # the hands shown on the holder's turn (D6, D8)
# The actions without cards, made once per seat.
_DECLARES = tuple((Declare(s, True), Declare(s, False)) for s in _SEATS)
_DAVE_REPLIES = tuple((DaveReply(s, True), DaveReply(s, False)) for s in _SEATS)
_DAVES = tuple(Dave(s) for s in _SEATS)
_SHOW_BURA = tuple(Show(s, "bura") for s in _SEATS)
_SHOW_MOSCOW = tuple(Show(s, "moscow") for s in _SEATS)

# Seat arithmetic per table size: [players][seat].
_NEXT = tuple(tuple((s + 1) % n if n else 0 for s in range(MAX_PLAYERS)) for n in range(5))
_OTHERS = tuple(tuple(tuple(o for o in range(n) if o != s) for s in _SEATS) for n in range(5))
_DRAW_ORDER = tuple(
    tuple(tuple((s + i) % n for i in range(n)) if n else () for s in _SEATS) for n in range(5)
)
_ONE = tuple((s,) for s in _SEATS)

_PILE_ROWS: dict[int, tuple[tuple[tuple[PileCard, ...], ...], ...]] = {}
_PILE_POINTS = attrgetter("card.points")


def _pile_row(trick: int) -> tuple[tuple[tuple[PileCard, ...], ...], ...]:
    """The pile cards of one trick, [closed][by][card index]."""
    row = _PILE_ROWS[trick] = tuple(
        tuple(tuple(PileCard(card, by, closed, trick) for card in DECK) for by in _SEATS)
        for closed in (False, True)
    )
    return row


def _take_out(hand: list[Card], card: Card) -> None:
    """``hand.remove(card)``, found by identity (cards are interned: ``==`` on a Card goes
    through Python-level rich comparison)."""
    if hand and hand[0] is card:
        del hand[0]
    elif len(hand) > 1 and hand[1] is card:
        del hand[1]
    elif len(hand) > 2 and hand[2] is card:
        del hand[2]
    else:
        hand.remove(card)  # a longer hand, or ValueError as before


class Deal:
    """The state of one Bura deal. Build it with :meth:`start`; advance it with :meth:`apply`."""

    players: int
    rules: Rules
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
    final_result: DealResult | None
    # The actions legal_actions handed out since the last action was played (kept alive,
    # so their ids stay theirs): apply plays one of them without checking it again. Push
    # forgets them (a reset there costs less than asking legal_actions which move it is).
    _offered: Sequence[Action] = ()
    # The forms of this deal's hands of three (its trump and rules never change), set
    # by start; a deal built field by field gets them on first use (_forms_now).
    _forms: ThreeCardTable[HandForm] | None = None

    @classmethod
    def start(
        cls,
        players: int,
        deck: Sequence[Card],
        dealer: int,
        rules: Rules = BASE_RULES,
        stakes: int = 1,
    ) -> Deal:
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
        self._forms = form_table(self.trump, rules)
        self.stock = [*order[dealt + 1 :], self.trump_card]
        self.leader = self.trick_leader = (dealer + 1) % players
        self.phase, self.turn = LEAD, self.leader
        self.plays, self.claimant, self.claim = [], self.leader, ()
        self.piles = [[] for _ in range(players)]
        self.stakes = stakes
        self.last_dave_by = self.dave_by = self.trump_drawn_by = None
        self.trick_number = 0
        self.history = []
        self.final_result = None
        # D9 (void_from_deal, through hand_kind): dealt again, stakes unchanged.
        moscow, molodka = rules.moscow == "on", rules.molodka == "out_of_turn"
        for hand in hands:
            if hand_kind(hand, self.trump, moscow, molodka) != NOTHING_HELD:
                self._end("void", None, None)
                break
        return self

    def _forms_now(self) -> ThreeCardTable[HandForm]:
        """``_forms`` of a deal built field by field (a computer player's sampled world)."""
        self._forms = form_table(self.trump, self.rules)
        return self._forms

    def copy(self) -> Deal:
        other = object.__new__(Deal)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.stock = list(self.stock)
        other.plays = list(self.plays)
        other.piles = [list(p) for p in self.piles]
        other.history = list(self.history)
        other._offered = ()
        return other

    # --- what anyone may ask -------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    def result(self) -> DealResult:
        if self.final_result is None:
            raise GameOverError("the deal is still being played")
        return self.final_result

    def points(self) -> tuple[int, ...]:
        """Trick points per seat, closed cards included (for results, never for views)."""
        return tuple([sum(map(_PILE_POINTS, pile)) for pile in self.piles])

    def view(self, seat: int) -> View:
        """What ``seat`` may see (D3): never another hand, closed discard or running total."""
        if not 0 <= seat < self.players:
            raise IllegalMoveError(f"no seat {seat} at a {self.players}-player table")
        return self._seat_view(seat)

    def public_view(self) -> View:
        """What everyone sees (the group's table, an onlooker): no hand, no face of any
        closed discard (D3), no running total."""
        return self._seat_view(PUBLIC)

    def _seat_view(self, seat: int) -> View:
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
        return View(
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
            result=self.final_result,
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
        """The seats that have a legal action now (the rightful leader first): exactly
        ``engine.bura.reference.actors(self)``, «Стоп!» holders found by ``hand_kind``."""
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
            forms = self._forms or self._forms_now()
            rows, of = forms.rows, forms.classes
            for s in _OTHERS[self.players][leader]:
                hand = hands[s]
                if len(hand) != HAND_SIZE:
                    continue  # «Стоп!» leads a whole hand of three (D7, D8)
                a, b, c = hand
                form = rows[of[a.index]][of[b.index]][of[c.index]]
                if form.kind in _STOP_HANDS and may_stop(hands, s, leader, self.trump, rules):
                    stoppers.append(s)
        if not stoppers:
            return _ONE[leader]
        return (leader, *stoppers)

    def legal_actions(self, seat: int) -> list[Action]:
        """Exactly ``engine.bura.reference.legal_actions(self, seat)``, in its order (the
        computer players break ties by it), and remembered as legal in this position for
        :meth:`apply`. Fast: interned actions (engine/fast.py), R5 from ``BEATEN_BY``,
        R7 from ``PAIRINGS``; a hand of three's combination (D6-D8) and group leads (D2)
        looked up in its form (engine/bura/forms.py), a shorter hand's groups from
        ``lead_picks``. tests/engine/test_reference.py holds the two equal."""
        phase = self.phase
        actions: list[Action]
        if phase == ANSWER:
            actions = self._answers(seat) if seat == self.turn else []
        elif phase == LEAD:
            actions = self._leads(seat) if seat == self.leader else self._stop(seat)
        elif phase == DECLARE:
            actions = list(_DECLARES[seat]) if seat == self.turn else []
        elif phase == DAVE:
            actions = list(_DAVE_REPLIES[seat]) if seat == self.turn else []
        else:
            return []
        # Remembered as legal in this position (until push plays the next action): the
        # very list handed out, not a copy (a copy per call cost the simulating players
        # several per cent); no caller changes it.
        offered = self._offered
        self._offered = [*offered, *actions] if offered else actions
        return actions

    def _answers(self, seat: int) -> list[Action]:
        """A show, then R7's answers in ``combinations`` order, each a discard and then a
        beat if it covers."""
        hand, claim = self.hands[seat], self.claim
        actions: list[Action] = []
        if len(hand) == HAND_SIZE:
            a, b, c = hand
            forms = self._forms or self._forms_now()
            of = forms.classes
            kind = forms.rows[of[a.index]][of[b.index]][of[c.index]].kind
            if kind in _SHOW_HANDS:  # D6, D8: shown on the holder's turn
                actions.append(_SHOW_BURA[seat] if kind == BURA_HELD else _SHOW_MOSCOW[seat])
        beaten = BEATEN_UNDER[self.trump_card.index]
        if len(claim) == 1:
            discards, beats = _DISCARDS[seat], _BEATS[seat]
            beaten_by = beaten[claim[0].index]
            for a in hand:
                i = a.index
                actions.append(discards[i])
                if beaten_by >> i & 1:
                    actions.append(beats[i])
        elif len(claim) == 2:
            by_first, by_second = beaten[claim[0].index], beaten[claim[1].index]
            masks = []  # for each hand card, the claim positions it beats
            for a in hand:
                masks.append((by_first >> a.index & 1) | (by_second >> a.index & 1) << 1)
            discards_at = _ACTIONS.pair_row(_DISCARD, seat)
            beats_at = _ACTIONS.pair_row(_BEAT, seat)
            pair_at, pairing = _ACTIONS.pair_at, PAIRINGS[2]
            for i, j in PICKS[len(hand), 2]:
                a, b = hand[i], hand[j]
                actions.append(pair_at(discards_at, a, b, _DISCARD, seat))
                if pairing[masks[i] | masks[j] << 2]:
                    actions.append(pair_at(beats_at, a, b, _BEAT, seat))
        else:
            trump, get = suit_no(self.trump_card.index), _ACTIONS.get
            for combo in combinations(hand, len(claim)):
                actions.append(get(_DISCARD, seat, combo))
                if covers_cards(combo, claim, trump):
                    actions.append(get(_BEAT, seat, combo))
        return actions

    def _leads(self, seat: int) -> list[Action]:
        """The rightful leader's: a show, даве, single cards in hand order, groups (D2)
        by size in ``combinations`` order, and a малая Москва's three sixes (D8)."""
        hand, rules = self.hands[seat], self.rules
        actions: list[Action] = []
        singles = _LEADS[seat]
        if len(hand) != HAND_SIZE:  # the stock is out: no combination, groups of what is left
            if rules.dave == "on" and self._dave_refusal(seat) is None:
                actions.append(_DAVES[seat])
            for card in hand:
                actions.append(singles[card.index])
            limit, same_rank = self._lead_limit(seat), rules.same_rank_leads == "on"
            for pick in lead_picks(hand, limit, same_rank):
                actions.append(_ACTIONS.pick(_LEAD, seat, hand, pick))
            return actions
        a, b, c = hand
        ia, ib, ic = a.index, b.index, c.index
        forms = self._forms or self._forms_now()
        of = forms.classes
        form = forms.rows[of[ia]][of[ib]][of[ic]]
        kind = form.kind
        if kind in _SHOW_HANDS:
            actions.append(_SHOW_BURA[seat] if kind == BURA_HELD else _SHOW_MOSCOW[seat])
        if rules.dave == "on" and self._dave_refusal(seat) is None:
            actions.append(_DAVES[seat])
        actions += (singles[ia], singles[ib], singles[ic])
        # D2's limit (_lead_limit) is the smallest hand here: this one is a whole hand.
        several = form.several[min(map(len, self.hands))]
        if several:
            pairs = _ACTIONS.pair_row(_LEAD, seat)
            for pick in several:
                if len(pick) == 2:
                    x, y = pick
                    action = pairs[hand[x].index][hand[y].index]
                    if action is None:
                        action = _ACTIONS.pick(_LEAD, seat, hand, pick)
                    actions.append(action)
                else:
                    actions.append(_ACTIONS.pick(_LEAD, seat, hand, pick))
        return actions

    def _stop(self, seat: int) -> list[Action]:
        """A seat other than the rightful leader: «Стоп!» with the whole hand, if it may."""
        if not 0 <= seat < self.players:
            return []
        hands, hand = self.hands, self.hands[seat]
        if len(hand) != HAND_SIZE:
            return []  # «Стоп!» leads a whole hand of three (D7, D8)
        a, b, c = hand
        forms = self._forms or self._forms_now()
        of = forms.classes
        form = forms.rows[of[a.index]][of[b.index]][of[c.index]]
        if form.kind in _STOP_HANDS and may_stop(hands, seat, self.leader, self.trump, self.rules):
            return [_ACTIONS.get(_STOP, seat, tuple(hand))]
        return []

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
            trial._draw_or_void()
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
        if len(cards) == 1 or one_suit(cards):
            return
        if self.rules.same_rank_leads == "on" and one_rank(cards):
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
        """Check and play ``action``; a refused action changes nothing. The position
        it leaves is ``engine.bura.reference.after(self, action)``.

        An action :meth:`legal_actions` handed out in this very position (the same
        object) is known legal and is not derived again; any other is checked in full by
        :meth:`check`, so refusals and their reasons are its.
        """
        if id(action) not in map(id, self._offered):
            self.check(action)
        self.push(action)

    def push(self, action: Action) -> None:
        """Play an action already known to be legal (e.g. from :meth:`legal_actions`)."""
        self._offered = ()  # legal in the position before this action, not after it
        cls = type(action)
        if cls is Answer or (cls is not Lead and cls is not Declare and isinstance(action, Answer)):
            answer: Answer = action  # type: ignore[assignment]
            if self.phase == DECLARE:
                self._draw_or_void()
            self.history.append(answer)
            seat, cards, beat = answer.seat, answer.cards, answer.beat
            hand = self.hands[seat]
            if len(cards) == 1:
                card = cards[0]
                _take_out(hand, card)
                if beat:
                    play = _BEAT_PLAYS[seat][card.index]
                elif self.rules.discards == "closed":
                    play = _CLOSED_DISCARD_PLAYS[seat][card.index]
                else:
                    play = _OPEN_DISCARD_PLAYS[seat][card.index]
            else:
                for card in cards:
                    _take_out(hand, card)
                if beat:
                    play = _PLAYS.get(_BEAT * 2, seat, cards)
                else:
                    play = _PLAYS.get(_DISCARD * 2 + (self.rules.discards == "closed"), seat, cards)
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
                self._draw_or_void()
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
                play = _PLAYS.get((_STOP if stop else _LEAD) * 2, seat, cards)
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
                self._draw_or_void()
            return
        if self.phase == DECLARE:
            self._draw_or_void()
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

    def _draw_or_void(self) -> None:
        """No declaration: draw back to 3, winner first (D4, R10); void if all is played."""
        winner = self.leader
        if self.stock:
            order = _DRAW_ORDER[self.players][winner]
            drawn_by = draw_up(self.stock, self.hands, order, HAND_SIZE, self.trump_card)
            if drawn_by is not None:
                self.trump_drawn_by = drawn_by
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
        self.final_result = DealResult(outcome, winner, by, self.points(), self.stakes, run_out)
        self.phase, self.turn, self.dave_by = OVER, None, None

    def finish_record(self) -> None:
        """A record's deal ended right after the last trick with no declaration: the
        deal passed and is complete and void (D5 "Precisely")."""
        if self.phase == DECLARE and not any(self.hands) and not self.stock:
            self._draw_or_void()
            self._offered = ()  # the phase changed with no action played

    def replay(self, actions: Iterable[Action]) -> Deal:
        for action in actions:
            self.apply(action)
        return self
