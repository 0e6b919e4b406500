"""One deal of Burkozel: dealing, tricks, drawing and the deal score (R3–R13).

The fast form of engine/burkozel/reference.py, which states the legal moves and what a
move does plainly (tests/engine/test_reference.py holds the two equal); its encodings
are engine/fast.py's. :meth:`Deal.check` is the other legality test: it says why a
move is refused."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import fields
from itertools import combinations

from engine.burkozel.actions import Action, DealResult, Play, TrickResult, View
from engine.burkozel.combinations import is_lead_combination, show_kind, show_winner
from engine.burkozel.rules import BASE_RULES, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, Rules
from engine.burkozel.scoring import PLAYED, penalties_for, score_deal
from engine.burkozel.view import display_key, masked
from engine.cards import DECK, Card, Suit, check_deck
from engine.errors import GameOverError, IllegalMoveError
from engine.fast import (
    BEATEN_BY,
    DECK_SIZE,
    INDICES,
    MAX_SEATS,
    PAIRINGS,
    PICKS,
    SUITS,
    Interned,
    beaten_positions,
    covers_cards,
    lead_picks,
    suit_no,
)
from engine.game import PUBLIC
from engine.tricks import covers, draw_up, one_suit

__all__ = ["Action", "Deal", "DealResult", "Play", "TrickResult", "View", "penalties_for"]


_LEAD, _DISCARD, _BEAT = 0, 1, 2


def _make_move(kind: int, seat: int, cards: tuple[Card, ...]) -> Action:
    return Action(seat, cards, None if kind == _LEAD else kind == _BEAT)


# Moves handed out by ``Deal.legal_actions`` are interned (engine/fast.py): one object
# serves every position that offers it. The dictionary of longer moves holds every lead
# of three cards (9,216 with the seats), so in the base rules it fills once and stays.
_MOVES = Interned(_make_move, kinds=3, limit=25_000)
_SINGLES = _MOVES.singles
_PLAYS: dict[int, tuple[Action, Play]] = {}  # by id(move), with the move (kept alive)
_PLAYS_LIMIT = 25_000

# One-card answers (R7) to one claim card: [seat][trump number][claim card index], a row
# over the answer card's index of the moves it gives, a discard and then a beat if it
# beats (R5, BEATEN_BY).
_ANSWERS_TO_ONE: list[list[list[tuple[tuple[Action, ...], ...] | None]]] = [
    [[None] * DECK_SIZE for _ in range(SUITS)] for _ in range(MAX_SEATS)
]


def _answer_row(seat: int, trump: int, claim: int) -> tuple[tuple[Action, ...], ...]:
    beaten_by, discards, beats = (
        BEATEN_BY[trump][claim],
        _SINGLES[_DISCARD][seat],
        _SINGLES[_BEAT][seat],
    )
    row = tuple((discards[a], beats[a]) if beaten_by >> a & 1 else (discards[a],) for a in INDICES)
    _ANSWERS_TO_ONE[seat][trump][claim] = row
    return row


# A TrickResult is built by setting its three slots (see Deal._finish_trick).
assert [f.name for f in fields(TrickResult)] == ["winner", "plays", "points"]
_new_object = object.__new__
_set_winner = TrickResult.__dict__["winner"].__set__
_set_plays = TrickResult.__dict__["plays"].__set__
_set_points = TrickResult.__dict__["points"].__set__

# The seat tables of a table size and the seats still in (B3): next seats, other
# seats and draw rounds (see Deal._derive_state).
_SEAT_TABLES: dict[
    tuple[int, tuple[int, ...]],
    tuple[tuple[int, ...], tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]],
] = {}
# Rule sets already found supported (by id, the set kept alive so its id stays its own).
_SUPPORTED: dict[int, Rules] = {}


class Deal:
    """The state of one deal. Build it with :meth:`start`; advance it with :meth:`apply`.

    ``turn`` is the seat whose ordinary turn it is (to lead or to answer); under B6 a
    seat may also have an action out of turn (C3/C4), see :meth:`actors`.
    """

    __slots__ = (
        "_claim",
        "_claimant",
        "_closed",
        "_combos_on",
        "_face_down",
        "_hands",
        "_lead_cap",
        "_leader",
        "_offered",
        "_offered_at",
        "_others",
        "_plays",
        "_rounds",
        "_seen",
        "_stock",
        "_succ",
        "_trump_drawn_by",
        "_trump_no",
        "dealer",
        "deck",
        "history",
        "last_trick",
        "outcome",
        "players",
        "points",
        "rules",
        "seats_in",
        "shown_by",
        "stakes",
        "trick_number",
        "trump",
        "trump_card",
        "turn",
        "won_cards",
    )

    _hands: list[list[Card]]
    _stock: list[Card]
    _plays: list[Play]
    _seen: list[Card]
    _claim: tuple[Card, ...]
    _claimant: int
    _leader: int
    _trump_drawn_by: int | None
    _face_down: dict[Card, int]
    # The moves legal_actions handed out at history length ``_offered_at`` (kept alive, so
    # their ids stay theirs): apply plays one of them without checking it again.
    _offered: tuple[Action, ...]
    _offered_at: int
    _succ: tuple[int, ...]  # the next seat still in after each seat (B3)
    _others: tuple[tuple[int, ...], ...]  # the other seats still in, for each seat
    _rounds: tuple[tuple[int, ...], ...]  # the seats still in from each seat on (R10)
    # The rules as flags: B6 on, B2's lead of four (else 3), B1 closed; and the trump's
    # suit number (engine.fast.suit_no).
    _combos_on: bool
    _lead_cap: int
    _closed: bool
    _trump_no: int
    players: int
    rules: Rules
    seats_in: tuple[int, ...]
    stakes: int
    dealer: int
    deck: tuple[Card, ...]
    trump_card: Card
    trump: Suit
    turn: int | None
    points: list[int]
    won_cards: list[list[Card]]
    history: list[Action]
    last_trick: TrickResult | None
    trick_number: int
    outcome: str
    shown_by: int | None

    @classmethod
    def start(
        cls,
        players: int,
        deck: Sequence[Card],
        dealer: int,
        rules: Rules = BASE_RULES,
        *,
        seats_in: Sequence[int] | None = None,
        stakes: int = 1,
    ) -> Deal:
        """Deal from ``deck`` (index 0 = top card) as R3 says; the seat after the dealer leads.

        ``seats_in`` are the seats still playing (B3; all by default): dealing, turns
        and draws skip the others. ``stakes`` multiplies B4 credits (2 after a tie).
        """
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalMoveError(f"Burkozel is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if not 0 <= dealer < players:
            raise IllegalMoveError(f"dealer must be a seat from 0 to {players - 1}")
        if _SUPPORTED.get(id(rules)) is not rules:
            rules.require_supported()
            if len(_SUPPORTED) >= 100:
                _SUPPORTED.clear()
            _SUPPORTED[id(rules)] = rules
        rules.check_players(players)
        active = tuple(range(players)) if seats_in is None else tuple(sorted(set(seats_in)))
        if len(active) < MIN_PLAYERS or not 0 <= active[0] <= active[-1] < players:  # sorted
            raise IllegalMoveError("a deal needs at least 2 seats still in, each a seat number")
        if dealer not in active:
            raise IllegalMoveError(f"dealer must be a seat still in: one of {list(active)}")
        if stakes not in (1, 2):
            raise IllegalMoveError("stakes are 1, or 2 after a tied deal (B4)")
        order = check_deck(deck)
        self = object.__new__(cls)
        self.players, self.rules, self.dealer, self.deck = players, rules, dealer, order
        self.seats_in, self.stakes = active, stakes
        hands: list[list[Card]] = [[] for _ in range(players)]
        self._hands = hands
        # R3: one card at a time from the seat after the dealer: the j-th seat dealt to
        # gets cards j, j + n, j + 2n, ... of the top n * 4.
        n = len(active)
        dealt = n * HAND_SIZE
        first = active.index(dealer) + 1
        for j in range(n):
            hands[active[(first + j) % n]] = list(order[j:dealt:n])
        self.trump_card = order[dealt]
        self.trump = self.trump_card.suit
        self._derive_state()
        # R3: the turned card lies at the bottom of the stock and is drawn last.
        self._stock = [*order[dealt + 1 :], self.trump_card]
        self._leader = self._next(dealer)
        self.turn = self._leader
        self._plays = []
        self._claimant = self._leader
        self._claim = ()
        self._seen = []
        self._face_down = {}
        self._trump_drawn_by = None
        self.points = [0] * players
        self.won_cards = [[] for _ in range(players)]
        self.history = []
        self.last_trick = None
        self.trick_number = 0
        self.outcome = PLAYED
        self.shown_by = None
        return self

    @classmethod
    def from_view(
        cls,
        view: View,
        hands: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        table: Sequence[Play],
    ) -> Deal:
        """The position ``view`` shows with its hidden parts filled in (a determinization
        for computer players), see :meth:`_restore`."""
        self = object.__new__(cls)
        self._restore(view, hands, stock, table)
        self._derive_state()
        return self

    def _derive_state(self) -> None:
        """Set the derived state: seat order, the rules as flags, no moves offered yet.
        Needs ``players``, ``seats_in``, ``rules`` and ``trump_card``."""
        self._offered, self._offered_at = (), -1
        rules = self.rules
        self._combos_on = rules.combinations == "on"
        self._lead_cap = 4 if rules.max_lead == 4 else 3
        self._closed = rules.discards == "closed"
        self._trump_no = suit_no(self.trump_card.index)
        key = (self.players, self.seats_in)
        tables = _SEAT_TABLES.get(key)
        if tables is None:
            succ = tuple(self._next_in(seat) for seat in range(self.players))
            others = tuple(
                tuple(s for s in self.seats_in if s != seat) for seat in range(self.players)
            )
            rounds = []
            for seat in range(self.players):
                order = [seat]
                for _ in range(len(self.seats_in) - 1):
                    order.append(succ[order[-1]])
                rounds.append(tuple(order))
            tables = _SEAT_TABLES[key] = (succ, others, tuple(rounds))
        self._succ, self._others, self._rounds = tables

    def copy(self) -> Deal:
        other = object.__new__(Deal)
        for name in Deal.__slots__:
            setattr(other, name, getattr(self, name))
        other._hands = [list(h) for h in self._hands]
        other._stock = list(self._stock)
        other._plays = list(self._plays)
        other._seen = list(self._seen)
        other._face_down = dict(self._face_down)
        other.points = list(self.points)
        other.won_cards = [list(w) for w in self.won_cards]
        other.history = list(self.history)
        other._offered, other._offered_at = (), -1
        return other

    def _next(self, seat: int) -> int:
        """The next seat still in, clockwise (B3: seats that are out are skipped)."""
        return self._succ[seat]

    def _next_in(self, seat: int) -> int:
        for step in range(1, self.players + 1):
            nxt = (seat + step) % self.players
            if nxt in self.seats_in:
                return nxt
        return seat  # pragma: no cover - a deal always has two seats in

    # --- what anyone may ask -------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.turn is None

    @property
    def leader(self) -> int:
        return self._leader

    @property
    def claimant(self) -> int | None:
        return self._claimant if self._plays else None

    @property
    def table(self) -> tuple[Play, ...]:
        return tuple(self._plays)

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock, top card first (the turned trump last while it is there, R3)."""
        return tuple(self._stock)

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self._hands[seat])

    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self._hands)

    def lead_size(self) -> int | None:
        return len(self._plays[0].cards) if self._plays else None

    def result(self) -> DealResult:
        if not self.finished or self.last_trick is None:
            raise GameOverError("the deal is still being played")
        penalties, tied = score_deal(
            self.points, self.rules, self.seats_in, self.outcome, self.shown_by, self.stakes
        )
        return DealResult(tuple(self.points), penalties, self.last_trick.winner, self.outcome, tied)

    def view(self, seat: int) -> View:
        """What ``seat`` sees: its own hand and the open table, never other hands, nor
        (B1 closed) another seat's discards until the deal is over."""
        return self._seat_view(seat)

    def public_view(self) -> View:
        """What everyone sees (the group's table): no hand, no closed discard (B1)."""
        return self._seat_view(PUBLIC)

    # --- Part C: who may act on a combination --------------------------------

    def combinations_count(self) -> bool:
        """C: combinations count only with B6 on, after the first trick of the deal."""
        return self.rules.combinations == "on" and self.trick_number >= 1 and not self.finished

    def stopper(self) -> int | None:
        """The one seat that may lead out of turn now (C3/C4 Precisely), if any."""
        if self._plays or not self.combinations_count():
            return None
        leader = self._leader
        if is_lead_combination(self._hands[leader], self.trump):
            return None  # the rightful leader counts first
        seat = self._next(leader)
        while seat != leader:
            if is_lead_combination(self._hands[seat], self.trump):
                break
            seat = self._next(seat)
        else:
            return None
        for other in self.seats_in:
            if other != seat and show_kind(self._hands[other], self.trump) is not None:
                return None  # refused while another seat holds бура or Москва
        return seat

    def actors(self) -> tuple[int, ...]:
        """Every seat with a legal action now: the seat to play, and a stopper (C3/C4)."""
        if self.turn is None:
            return ()
        stopper = self.stopper()
        return (self.turn,) if stopper is None else (self.turn, stopper)

    def _show(self, seat: int) -> str | None:
        if seat != self.turn or not self.combinations_count():
            return None
        return show_kind(self._hands[seat], self.trump)

    def _combination_lead(self, seat: int) -> bool:
        """C3/C4: the rightful leader may lead its whole four whatever B2 says."""
        return (
            seat == self.turn
            and not self._plays
            and self.combinations_count()
            and is_lead_combination(self._hands[seat], self.trump)
        )

    def _lead_limit(self) -> int:
        """B2: four only from the second trick of a deal; R6: three otherwise."""
        return 4 if self.rules.max_lead == 4 and self.trick_number >= 1 else 3

    # --- moves ---------------------------------------------------------------

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every legal move of ``seat`` (default: the seat to play): exactly
        ``engine.burkozel.reference.legal_actions(self, seat)``, in its order (the computer
        players break ties by it), and remembered as legal in this position for
        :meth:`apply`. Fast: interned moves (engine/fast.py), one-card answers from rows
        built on ``BEATEN_BY``, groups from ``lead_picks``, R7 from ``PAIRINGS``;
        tests/engine/test_reference.py holds the two equal."""
        turn = self.turn
        if turn is None:
            return []
        if seat is None:
            seat = turn
        if seat != turn:
            if seat == self.stopper():
                return self._offer([Action(seat, tuple(self._hands[seat]), stop=True)])
            return []
        hand = self._hands[seat]
        moves: list[Action] = []
        if self._combos_on:
            kind = self._show(seat)
            if kind is not None:
                moves.append(Action(seat, (), show=kind))
        if not self._plays:
            hands = self._hands
            others = self._others[seat]
            if len(others) == 1:
                smallest = len(hands[others[0]])
            else:
                smallest = HAND_SIZE
                for s in others:
                    size = len(hands[s])
                    if size < smallest:
                        smallest = size
            limit = self._lead_cap if self.trick_number >= 1 else 3
            if smallest < limit:
                limit = smallest
            singles = _SINGLES[_LEAD][seat]
            for c in hand:
                moves.append(singles[c.index])
            if limit >= 2 and len(hand) >= 2:
                picks = lead_picks(hand, limit)
                if picks:
                    moves += _group_leads(seat, hand, picks)
            if self._combos_on:
                whole = tuple(hand)
                if self._combination_lead(seat) and (limit < 4 or not one_suit(whole)):
                    moves.append(_MOVES.get(_LEAD, seat, whole))
        else:
            claim = self._claim
            if len(claim) == 1:
                row = _ANSWERS_TO_ONE[seat][self._trump_no][claim[0].index]
                if row is None:
                    row = _answer_row(seat, self._trump_no, claim[0].index)
                for a in hand:
                    moves += row[a.index]
            else:
                moves += _answers(seat, hand, claim, self._trump_no)
        return self._offer(moves)

    def _offer(self, moves: list[Action]) -> list[Action]:
        """Remember ``moves`` as legal in this position (until the next move is played)."""
        now = len(self.history)
        if self._offered_at != now:
            self._offered, self._offered_at = tuple(moves), now
        else:
            self._offered += tuple(moves)
        return moves

    def check(self, move: Action) -> None:
        """Raise :class:`IllegalMoveError` saying why ``move`` is not legal now."""
        if self.turn is None:
            raise GameOverError("the deal is over")
        if not 0 <= move.seat < self.players or move.seat not in self.seats_in:
            raise IllegalMoveError(f"seat {move.seat} is not playing this deal")
        if move.show is not None:
            self._check_show(move)
            return
        if move.stop:
            self._check_stop(move)
            return
        if move.seat != self.turn:
            raise IllegalMoveError(f"it is seat {self.turn}'s turn, not seat {move.seat}'s")
        cards = move.cards
        if not cards:
            raise IllegalMoveError("a move needs at least one card")
        if len(set(cards)) != len(cards):
            raise IllegalMoveError("the same card is played twice")
        hand = self._hands[move.seat]
        missing = [c.code() for c in cards if c not in hand]
        if missing:
            raise IllegalMoveError(f"seat {move.seat} does not hold {', '.join(missing)}")
        if not self._plays:
            self._check_lead(move)
            return
        if move.beat is None:
            raise IllegalMoveError("an answer must be declared a beat or a discard (R7)")
        if len(cards) != len(self._claim):
            raise IllegalMoveError(f"answer with exactly {len(self._claim)} card(s) (R7)")
        if move.beat and not covers(cards, self._claim, self.trump):
            raise IllegalMoveError("these cards do not beat every claimant card (R7)")

    def _check_lead(self, move: Action) -> None:
        cards = move.cards
        if move.beat is not None:
            raise IllegalMoveError("a lead is neither a beat nor a discard")
        if len(cards) == len(self._hands[move.seat]) and self._combination_lead(move.seat):
            return  # C3/C4 Precisely: the rightful leader's four, whatever B2 says
        limit = self._lead_limit()
        if len(cards) > limit:
            when = " from the second trick (B2)" if self.rules.max_lead == 4 else " (R6)"
            raise IllegalMoveError(f"a lead is at most {limit} cards{when}")
        if not one_suit(cards):
            raise IllegalMoveError("a lead of several cards must be of one suit (R6)")
        smallest = min(len(self._hands[s]) for s in self.seats_in if s != move.seat)
        if len(cards) > smallest:
            raise IllegalMoveError(f"a lead may not exceed the smallest hand, {smallest} (R6)")

    def _check_show(self, move: Action) -> None:
        if move.cards or move.beat is not None or move.stop:
            raise IllegalMoveError("a show plays no cards")
        if self.rules.combinations != "on":
            raise IllegalMoveError("combinations are off in these rules (R15)")
        if self.trick_number < 1:
            raise IllegalMoveError("no combination counts before the first trick is over (C)")
        if move.seat != self.turn:
            raise IllegalMoveError("a combination is shown on the holder's turn (C1, C2)")
        kind = show_kind(self._hands[move.seat], self.trump)
        if kind != move.show:
            what = "бура (four trumps)" if move.show == "bura" else "Москва (four aces)"
            raise IllegalMoveError(f"seat {move.seat} does not hold {what}")

    def _check_stop(self, move: Action) -> None:
        if move.beat is not None:
            raise IllegalMoveError("an out-of-turn lead is neither a beat nor a discard")
        if self.rules.combinations != "on":
            raise IllegalMoveError("combinations are off: nothing is out of turn (R15)")
        if self._plays:
            raise IllegalMoveError("an out-of-turn lead comes before the rightful lead (C3)")
        if self.trick_number < 1:
            raise IllegalMoveError("nobody leads out of turn before the first trick is over (C)")
        if move.seat == self.turn:
            raise IllegalMoveError("the rightful leader's own lead is not out of turn (C3)")
        hand = self._hands[move.seat]
        if sorted(move.cards) != sorted(hand) or len(set(move.cards)) != len(move.cards):
            raise IllegalMoveError("an out-of-turn lead is the stopper's whole hand of four (C3)")
        if not is_lead_combination(hand, self.trump):
            raise IllegalMoveError(f"seat {move.seat} holds no молодка nor четыре лба (C3, C4)")
        if move.seat != self.stopper():
            raise IllegalMoveError(
                "only the first holder clockwise from the rightful leader may lead out of "
                "turn, never against the leader's own combination nor while another seat "
                "holds бура or Москва (C3)"
            )

    def apply(self, move: Action) -> TrickResult | None:
        """Check and play ``move``; returns the trick result when it completes a trick.
        The position it leaves is ``engine.burkozel.reference.after(self, move)``.

        A move :meth:`legal_actions` handed out in this very position (the same object)
        is known legal and is not derived again; any other move is checked in full.
        """
        if self._offered_at != len(self.history) or id(move) not in map(id, self._offered):
            self.check(move)
        return self.push(move)

    def push(self, move: Action) -> TrickResult | None:
        """Play a move already known to be legal (e.g. from :meth:`legal_actions`)."""
        seat = move.seat
        self.history.append(move)
        if move.show is not None:
            # C Precisely: every бура and Москва in any hand counts as shown now.
            winner = show_winner([self._hands[s] for s in range(self.players)], self.trump)
            assert winner is not None
            self.shown_by, self.outcome = winner
            self.turn = None
            return None
        hand = self._hands[seat]
        cards, beat = move.cards, move.beat
        # Cards found by identity (they are interned): ``list.remove`` would compare
        # unequal cards through Card's Python-level rich comparison, far slower.
        for card in cards:
            i = 0
            for held in hand:
                if held is card:
                    del hand[i]
                    break
                i += 1  # noqa: SIM113 - cheaper than enumerate here
        cached = _PLAYS.get(id(move))
        if cached is not None and cached[0] is move:
            play = cached[1]
        else:
            if len(_PLAYS) >= _PLAYS_LIMIT:
                _PLAYS.clear()
            play = Play(seat, cards, beat)
            _PLAYS[id(move)] = (move, play)
        self._plays.append(play)
        self._seen.extend(cards)
        if beat is None:
            self._leader = seat  # a lead out of turn (C3/C4) takes the rightful lead over
            self._claimant, self._claim = seat, cards
        elif beat:
            self._claimant, self._claim = seat, cards
        elif self._closed:
            for card in cards:
                self._face_down[card] = seat  # B1
        nxt = self._succ[seat]
        if nxt != self._leader:
            self.turn = nxt
            return None
        return self._finish_trick()

    def _finish_trick(self) -> TrickResult:
        winner = self._claimant
        plays = self._plays
        points = 0
        if len(self._claim) == 1:
            taken = [p.cards[0] for p in plays]
            for c in taken:
                points += c.points
        else:
            taken = [c for p in plays for c in p.cards]
            for c in taken:
                points += c.points
        self.points[winner] += points  # R9, R12
        self.won_cards[winner].extend(taken)
        self._plays = []
        self._claim = ()
        self.trick_number += 1
        # TrickResult(winner, tuple(plays), points), without the frozen dataclass's
        # __init__ (three object.__setattr__ calls through Python): the same object.
        result = _new_object(TrickResult)
        _set_winner(result, winner)
        _set_plays(result, tuple(plays))
        _set_points(result, points)
        self.last_trick = result
        if self._stock:
            self._draw(winner)
        self.turn = winner if any(self._hands) else None
        self._leader = self._claimant = winner  # R11
        return result

    def _draw(self, winner: int) -> None:
        """R10: the winner draws first, then clockwise, until hands hold 4 or the stock is
        out. (A method of its own: bench/ai.py's duplicate matches draw from per-seat
        queues by overriding it.)"""
        drawn_by = draw_up(
            self._stock, self._hands, self._rounds[winner], HAND_SIZE, self.trump_card
        )
        if drawn_by is not None:
            self._trump_drawn_by = drawn_by

    def replay(self, moves: Iterable[Action]) -> Deal:
        for move in moves:
            self.apply(move)
        return self

    def _seat_view(self, seat: int) -> View:
        """What ``seat`` sees: its own hand and the open table, never other hands, nor
        (B1 closed) another seat's discards until the deal is over. ``PUBLIC`` is what a
        spectator (the group) sees: no hand and no closed discard at all."""
        if seat != PUBLIC and not 0 <= seat < self.players:
            raise IllegalMoveError(f"no seat {seat} at a {self.players}-player table")
        hidden: set[Card] = set()
        if self._face_down and not self.finished:
            hidden = {c for c, owner in self._face_down.items() if owner != seat}
        last = self.last_trick
        table = tuple(self._plays)
        seen = tuple(self._seen)
        known = tuple(self.points)
        if hidden:
            if last is not None:
                plays = tuple(masked(p, hidden) for p in last.plays)
                shown = sum(c.points for p in plays for c in p.cards)
                last = TrickResult(last.winner, plays, shown)
            table = tuple(masked(p, hidden) for p in table)
            seen = tuple(c for c in seen if c not in hidden)
            known = tuple(
                p - sum(c.points for c in pile if c in hidden)
                for p, pile in zip(self.points, self.won_cards, strict=True)
            )
        closed = self.rules.discards == "closed" and not self.finished
        return View(
            seat=seat,
            players=self.players,
            hand=()
            if seat == PUBLIC
            else tuple(sorted(self._hands[seat], key=display_key(self.trump))),
            hand_sizes=self.hand_sizes(),
            trump=self.trump,
            trump_card=self.trump_card,
            trump_card_in_stock=self._trump_drawn_by is None,
            trump_card_drawn_by=self._trump_drawn_by,
            stock_size=len(self._stock),
            dealer=self.dealer,
            leader=self._leader,
            turn=self.turn,
            claimant=self.claimant,
            table=table,
            seen_cards=seen,
            points=None if closed else tuple(self.points),
            last_trick=last,
            trick_number=self.trick_number,
            finished=self.finished,
            rules=self.rules,
            seats_in=self.seats_in,
            known_points=known,
            stakes=self.stakes,
            outcome=self.outcome if self.finished else None,
        )

    def _restore(
        self,
        view: View,
        hands: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        table: Sequence[Play],
    ) -> None:
        """Fill the blank deal ``self`` with the position ``view`` shows and its hidden parts
        as given: every seat's ``hands``, the ``stock`` top first and the ``table`` with
        face-down cards (B1) filled in. Trick piles are not rebuilt: points are the view's
        (B1 closed: the points it could see)."""
        if view.turn is None:
            raise GameOverError("the deal is over")
        self.players, self.rules, self.dealer = view.players, view.rules, view.dealer
        self.deck = DECK  # unknown to a seat; only records use it
        self.seats_in = view.seats_in or tuple(range(view.players))
        self.stakes = view.stakes
        self._hands = [list(h) for h in hands]
        self._stock = list(stock)
        self.trump_card, self.trump = view.trump_card, view.trump
        self._leader, self.turn = view.leader, view.turn
        self._plays = list(table)
        self._claimant = view.claimant if view.claimant is not None else view.leader
        claims = [
            p.cards for p in table if p.seat == self._claimant and p.declared_beat is not False
        ]
        self._claim = claims[-1] if claims else ()
        self._seen = list(view.seen_cards)
        self._face_down = {
            c: p.seat
            for p, seen in zip(table, view.table, strict=True)
            if seen.face_down
            for c in p.cards
        }
        self._trump_drawn_by = view.trump_card_drawn_by
        points = view.points if view.points is not None else view.known_points
        self.points = list(points) if points else [0] * view.players
        self.won_cards = [[] for _ in range(view.players)]
        self.history = []
        self.last_trick = view.last_trick
        self.trick_number = view.trick_number
        self.outcome, self.shown_by = PLAYED, None


def _group_leads(seat: int, hand: list[Card], picks: tuple[tuple[int, ...], ...]) -> list[Action]:
    """The leads of ``seat`` made of the cards at each of ``picks`` (positions in hand)."""
    moves = []
    for pick in picks:
        moves.append(_MOVES.pick(_LEAD, seat, hand, pick))
    return moves


def _answers(seat: int, hand: list[Card], claim: tuple[Card, ...], trump: int) -> list[Action]:
    """R7: every answer of ``len(claim)`` cards, each a discard and then a beat if it
    covers, in the order of ``itertools.combinations(hand, len(claim))``. Answers of
    three or four cards are rare and many (171,360 three-card discards alone): they are
    built fresh, not interned, so that they do not flush the table of the common moves."""
    k, n = len(claim), len(hand)
    moves: list[Action] = []
    if k not in PAIRINGS or (n, k) not in PICKS:
        for combo in combinations(hand, k):
            moves.append(Action(seat, combo, False))
            if covers_cards(combo, claim, trump):
                moves.append(Action(seat, combo, True))
        return moves
    if k == 2:
        return _answers_of_two(seat, hand, claim[0].index, claim[1].index, trump)
    # masks[i]: the claim positions hand card i beats.
    claimed = [c.index for c in claim]
    masks = [beaten_positions(a.index, claimed, trump) for a in hand]
    pairing = PAIRINGS[k]
    for pick in PICKS[n, k]:
        packed = shift = 0
        for i in pick:
            packed |= masks[i] << shift
            shift += k
        cards = tuple([hand[i] for i in pick])
        moves.append(Action(seat, cards, False))
        if pairing[packed]:
            moves.append(Action(seat, cards, True))
    return moves


def _answers_of_two(
    seat: int, hand: list[Card], first: int, second: int, trump: int
) -> list[Action]:
    """``_answers`` to a claim of two cards (indices ``first``, ``second``)."""
    beaten = BEATEN_BY[trump]
    by_first, by_second = beaten[first], beaten[second]
    masks = []  # for each hand card, the claim positions it beats
    for a in hand:
        masks.append((by_first >> a.index & 1) | (by_second >> a.index & 1) << 1)
    discards, beats = _MOVES.pair_row(_DISCARD, seat), _MOVES.pair_row(_BEAT, seat)
    pair_at = _MOVES.pair_at
    pairing = PAIRINGS[2]
    moves = []
    for i, j in PICKS[len(hand), 2]:
        a, b = hand[i], hand[j]
        moves.append(pair_at(discards, a, b, _DISCARD, seat))
        if pairing[masks[i] | masks[j] << 2]:
            moves.append(pair_at(beats, a, b, _BEAT, seat))
    return moves
