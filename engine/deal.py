"""One deal of Burkozel: dealing, tricks, drawing and the deal score (R3–R13)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations

from engine.cards import Card, Suit, card_codes, check_deck, parse_cards
from engine.errors import GameOverError, IllegalMoveError
from engine.rules import BASE_RULES, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, RuleSet


@dataclass(frozen=True, slots=True)
class Move:
    """Cards one seat puts on the table.

    ``beat`` is ``None`` for a lead; an answer declares ``True`` (a beat) or
    ``False`` (a discard), R7.
    """

    seat: int
    cards: tuple[Card, ...]
    beat: bool | None = None

    @property
    def is_lead(self) -> bool:
        return self.beat is None

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"seat": self.seat, "cards": card_codes(self.cards)}
        if self.beat is not None:
            data["beat"] = self.beat
        return data

    @classmethod
    def from_json(cls, data: object) -> Move:
        if not isinstance(data, dict):
            raise IllegalMoveError("a move must be an object with seat and cards")
        extra = set(data) - {"seat", "cards", "beat"}
        if extra:
            raise IllegalMoveError(f"unknown move key {sorted(extra)[0]!r}")
        seat, cards, beat = data.get("seat"), data.get("cards"), data.get("beat")
        if type(seat) is not int:
            raise IllegalMoveError("move seat must be a whole number")
        if not isinstance(cards, list) or not cards:
            raise IllegalMoveError("move cards must be a non-empty list of card codes")
        if "beat" in data and type(beat) is not bool:
            raise IllegalMoveError("move beat must be true or false")
        return cls(seat, parse_cards(cards), beat)

    def __str__(self) -> str:
        kind = "lead" if self.beat is None else ("beat" if self.beat else "discard")
        return f"seat {self.seat} {kind} {' '.join(card_codes(self.cards))}"


@dataclass(frozen=True, slots=True)
class Play:
    """A move as it lies on the table; ``beats`` says whether it took over the claim."""

    seat: int
    cards: tuple[Card, ...]
    declared_beat: bool | None


@dataclass(frozen=True, slots=True)
class TrickResult:
    winner: int
    plays: tuple[Play, ...]
    points: int


@dataclass(frozen=True, slots=True)
class DealResult:
    """A finished deal: the deal scores (R12), penalties (R13) and last trick taker (R4)."""

    points: tuple[int, ...]
    penalties: tuple[int, ...]
    last_trick: int


@dataclass(frozen=True, slots=True)
class PlayerView:
    """Everything one seat may see (R8: the table is open); never another seat's hand."""

    seat: int
    players: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    trump: Suit
    trump_card: Card
    trump_card_in_stock: bool
    trump_card_drawn_by: int | None
    stock_size: int
    dealer: int
    leader: int
    turn: int | None
    claimant: int | None
    table: tuple[Play, ...]
    seen_cards: tuple[Card, ...]
    points: tuple[int, ...] | None
    last_trick: TrickResult | None
    trick_number: int
    finished: bool


def covers(answer: Sequence[Card], claim: Sequence[Card], trump: Suit) -> bool:
    """R7: can ``answer`` be paired one-to-one with ``claim`` so every claim card is beaten?"""
    if len(answer) != len(claim):
        return False
    return any(
        all(a.beats(c, trump) for a, c in zip(order, claim, strict=True))
        for order in permutations(answer)
    )


def penalties_for(points: Sequence[int]) -> tuple[int, ...]:
    """R13: 0 for every holder of the top score; else 2 / 4 / 6 by the threshold."""
    top = max(points)
    threshold = RuleSet.threshold(len(points))

    def penalty(score: int) -> int:
        if score == top:
            return 0
        if score >= threshold:
            return 2
        return 4 if score > 0 else 6

    return tuple(penalty(p) for p in points)


class Deal:
    """The state of one deal. Build it with :meth:`start`; advance it with :meth:`apply`."""

    __slots__ = (
        "_claim",
        "_claimant",
        "_hands",
        "_leader",
        "_plays",
        "_seen",
        "_stock",
        "_trump_drawn_by",
        "dealer",
        "deck",
        "history",
        "last_trick",
        "players",
        "points",
        "rules",
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
    players: int
    rules: RuleSet
    dealer: int
    deck: tuple[Card, ...]
    trump_card: Card
    trump: Suit
    turn: int | None
    points: list[int]
    won_cards: list[list[Card]]
    history: list[Move]
    last_trick: TrickResult | None
    trick_number: int

    @classmethod
    def start(
        cls, players: int, deck: Sequence[Card], dealer: int, rules: RuleSet = BASE_RULES
    ) -> Deal:
        """Deal from ``deck`` (index 0 = top card) as R3 says; the seat after the dealer leads."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalMoveError(f"Burkozel is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
        if not 0 <= dealer < players:
            raise IllegalMoveError(f"dealer must be a seat from 0 to {players - 1}")
        rules.require_supported()
        order = check_deck(deck)
        self = object.__new__(cls)
        self.players, self.rules, self.dealer, self.deck = players, rules, dealer, order
        self._hands = [[] for _ in range(players)]
        dealt = players * HAND_SIZE
        for i, card in enumerate(order[:dealt]):
            self._hands[(dealer + 1 + i) % players].append(card)
        self.trump_card = order[dealt]
        self.trump = self.trump_card.suit
        # R3: the turned card lies at the bottom of the stock and is drawn last.
        self._stock = [*order[dealt + 1 :], self.trump_card]
        self._leader = (dealer + 1) % players
        self.turn = self._leader
        self._plays = []
        self._claimant = self._leader
        self._claim = ()
        self._seen = []
        self._trump_drawn_by = None
        self.points = [0] * players
        self.won_cards = [[] for _ in range(players)]
        self.history = []
        self.last_trick = None
        self.trick_number = 0
        return self

    def copy(self) -> Deal:
        other = object.__new__(Deal)
        for name in Deal.__slots__:
            setattr(other, name, getattr(self, name))
        other._hands = [list(h) for h in self._hands]
        other._stock = list(self._stock)
        other._plays = list(self._plays)
        other._seen = list(self._seen)
        other.points = list(self.points)
        other.won_cards = [list(w) for w in self.won_cards]
        other.history = list(self.history)
        return other

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

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self._hands[seat])

    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self._hands)

    def lead_size(self) -> int | None:
        return len(self._plays[0].cards) if self._plays else None

    def result(self) -> DealResult:
        if not self.finished or self.last_trick is None:
            raise GameOverError("the deal is still being played")
        return DealResult(tuple(self.points), penalties_for(self.points), self.last_trick.winner)

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` sees: its own hand and the open table, never other hands."""
        if not 0 <= seat < self.players:
            raise IllegalMoveError(f"no seat {seat} at a {self.players}-player table")
        return PlayerView(
            seat=seat,
            players=self.players,
            hand=tuple(sorted(self._hands[seat], key=_display_key(self.trump))),
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
            table=tuple(self._plays),
            seen_cards=tuple(self._seen),
            points=tuple(self.points) if self.rules.discards == "open" else None,
            last_trick=self.last_trick,
            trick_number=self.trick_number,
            finished=self.finished,
        )

    # --- moves ---------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move for the seat to act (answers once as discard, once as beat if able)."""
        seat = self.turn
        if seat is None:
            return []
        hand = self._hands[seat]
        if not self._plays:
            limit = min(self.rules.max_lead, min(len(h) for h in self._hands))
            moves = [Move(seat, (c,)) for c in hand]
            for size in range(2, limit + 1):
                moves += [
                    Move(seat, combo)
                    for combo in combinations(hand, size)
                    if all(c.suit is combo[0].suit for c in combo)
                ]
            return moves
        moves = []
        for combo in combinations(hand, len(self._claim)):
            moves.append(Move(seat, combo, False))
            if covers(combo, self._claim, self.trump):
                moves.append(Move(seat, combo, True))
        return moves

    def check(self, move: Move) -> None:
        """Raise :class:`IllegalMoveError` saying why ``move`` is not legal now."""
        if self.turn is None:
            raise GameOverError("the deal is over")
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
            if move.beat is not None:
                raise IllegalMoveError("a lead is neither a beat nor a discard")
            limit = self.rules.max_lead
            if len(cards) > limit:
                raise IllegalMoveError(f"a lead is at most {limit} cards (R6)")
            if any(c.suit is not cards[0].suit for c in cards):
                raise IllegalMoveError("a lead of several cards must be of one suit (R6)")
            smallest = min(len(h) for s, h in enumerate(self._hands) if s != move.seat)
            if len(cards) > smallest:
                raise IllegalMoveError(f"a lead may not exceed the smallest hand, {smallest} (R6)")
            return
        if move.beat is None:
            raise IllegalMoveError("an answer must be declared a beat or a discard (R7)")
        if len(cards) != len(self._claim):
            raise IllegalMoveError(f"answer with exactly {len(self._claim)} card(s) (R7)")
        if move.beat and not covers(cards, self._claim, self.trump):
            raise IllegalMoveError("these cards do not beat every claimant card (R7)")

    def apply(self, move: Move) -> TrickResult | None:
        """Check and play ``move``; returns the trick result when it completes a trick."""
        self.check(move)
        return self.push(move)

    def push(self, move: Move) -> TrickResult | None:
        """Play a move already known to be legal (e.g. from :meth:`legal_moves`)."""
        seat = move.seat
        hand = self._hands[seat]
        for card in move.cards:
            hand.remove(card)
        self._plays.append(Play(seat, move.cards, move.beat))
        self._seen.extend(move.cards)
        self.history.append(move)
        if move.beat is None or move.beat:
            self._claimant, self._claim = seat, move.cards
        nxt = (seat + 1) % self.players
        if nxt != self._leader:
            self.turn = nxt
            return None
        return self._finish_trick()

    def _finish_trick(self) -> TrickResult:
        winner = self._claimant
        plays = tuple(self._plays)
        taken = [c for p in plays for c in p.cards]
        points = sum(c.points for c in taken)
        self.points[winner] += points  # R9, R12
        self.won_cards[winner].extend(taken)
        self._plays = []
        self._claim = ()
        self.trick_number += 1
        self.last_trick = TrickResult(winner, plays, points)
        self._draw(winner)
        self._leader = self._claimant = winner  # R11
        self.turn = winner if any(self._hands) else None
        return self.last_trick

    def _draw(self, winner: int) -> None:
        """R10: the winner draws first, then clockwise, until hands hold 4 or the stock is out."""
        stock, hands = self._stock, self._hands
        order = [(winner + i) % self.players for i in range(self.players)]
        while stock and any(len(hands[s]) < HAND_SIZE for s in order):
            for s in order:
                if stock and len(hands[s]) < HAND_SIZE:
                    card = stock.pop(0)
                    if card is self.trump_card:
                        self._trump_drawn_by = s
                    hands[s].append(card)

    def replay(self, moves: Iterable[Move]) -> Deal:
        for move in moves:
            self.apply(move)
        return self


def _display_key(trump: Suit) -> Callable[[Card], tuple[bool, int, int]]:
    suit_order = {s: i for i, s in enumerate(Suit)}

    def key(card: Card) -> tuple[bool, int, int]:
        return (card.suit is trump, suit_order[card.suit], card.rank)

    return key
