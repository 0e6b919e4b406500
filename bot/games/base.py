"""The one seam between a game and the bot: :class:`GameSide`, typed with the game's own
series, deal and action, and :class:`Played`, a series in play with its side, which the
flows (``bot.service``) hold and ask whichever game it is: mypy checks every call across
the seam with the game's own types (``tests/test_layout.py`` keeps ``Any`` out of it).
A third game is added as a package and one registry line (``bot.games``).

The engine's game interface (``engine.game``) says who may act (``actors``: several
seats at once in Bura, or a C3/C4 stopper in Burkozel), what is legal and how an action
applies; this one adds what a player sees and taps. A game's actions are the engine's
own values; buttons and the Mini App carry them as a kind letter and card codes, and the
game's codec (``bot/games/<game>/codec.py``) alone knows what its letters mean.

What every game does the same way is written here once; a game's side writes only its
own: its screens (``screens.py``), its keyboard (``keyboard.py``), its codec, and its
adapter (the computer's choice, the stand-in's, the move that comes by itself).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeGuard, TypeVar

from bot.i18n import Html, Texts
from bot.json import Json
from bot.views.render import Keyboard, series_end_text
from engine import Card
from engine.game import SeriesResultLike
from storage import Game, PlayerRecord


def codes(cards: Sequence[Card]) -> list[str]:
    return [c.code() for c in cards]


class SeatAction(Protocol):
    """What the seam needs of an engine action: whose it is, and its record form."""

    @property
    def seat(self) -> int: ...

    def to_json(self) -> Json: ...


ActionT = TypeVar("ActionT", bound=SeatAction)
ActionT_co = TypeVar("ActionT_co", bound=SeatAction, covariant=True)


class TurnDeal(Protocol):
    """What the seam needs of an engine deal (``engine.game.DealState`` and its turn)."""

    @property
    def turn(self) -> int | None:
        """The seat whose turn runs the timer (the others in ``actors`` may act, never
        must); None once the deal is over."""
        ...

    @property
    def finished(self) -> bool: ...

    @property
    def dealer(self) -> int: ...

    @property
    def deck(self) -> Sequence[Card]:
        """The deck's order as dealt (a deal's start is stored by it)."""
        ...

    @property
    def trick_number(self) -> int:
        """How many tricks have been taken."""
        ...

    @property
    def history(self) -> Sequence[SeatAction]: ...

    def actors(self) -> tuple[int, ...]: ...

    def hand(self, seat: int) -> tuple[Card, ...]: ...


DealT = TypeVar("DealT", bound=TurnDeal)


class DealSeries(Protocol):
    """What the seam needs of an engine series: its deals one after another (the last
    one being played, or over when the series is), the tally and the result."""

    @property
    def deals(self) -> Sequence[TurnDeal]: ...

    @property
    def current(self) -> TurnDeal | None:
        """The deal being played; None between deals and once the series is over."""
        ...

    @property
    def results(self) -> Sequence[object]:
        """The finished deals' results."""
        ...

    @property
    def totals(self) -> tuple[int, ...]: ...

    @property
    def finished(self) -> bool: ...

    def result(self) -> SeriesResultLike: ...

    def start_deal(self, deck: Sequence[Card], dealer: int | None = None) -> TurnDeal:
        """Deal the next deal; ``dealer``, if given, must be the one the rules name."""
        ...


SeriesT = TypeVar("SeriesT", bound=DealSeries)


@dataclass(frozen=True, slots=True)
class ByItself(Generic[ActionT_co]):
    """The move made for a person whose turn it is unless they make another first: Bura's
    draw after a trick (D4), which only a declaration (D5) comes before. ``at_once``:
    nothing else can be right as far as that seat knows, so it is made without a pause
    (and that tells them nothing they did not know). The same engine move a tap makes."""

    action: ActionT_co
    at_once: bool


class BotGame(ABC):
    """A registered game as the bot knows it before a series is dealt: its lobby and its
    lines in /stats, and its series started or read back as a :class:`Played`. Which
    game it is, the caller need not know (``bot.games.GAMES``)."""

    name: str
    min_players: int
    max_players: int

    @abstractmethod
    def start(self, players: int, rules: Mapping[str, object], first_dealer: int) -> Played:
        """A series under the stored rules (which may name the game: ``{"game": ...}``)."""

    @abstractmethod
    def load(self, record: Json) -> Played:
        """The series a record holds, as far as it was played."""

    def lobby_title(self, t: Texts) -> str:
        return t("lobby.title_game", game=t(f"game.{self.name}"))

    def lobby_seat_lines(self, t: Texts, game: Game) -> list[Html]:
        """The lobby's seats as the rules arrange them (B5: two pairs); [] for one line
        per seat."""
        return []

    def lobby_hint(self, t: Texts, game: Game) -> str:
        """What is needed to start (how many players)."""
        return t("lobby.hint", min=self.min_players, max=self.max_players)

    def stats_lines(self, t: Texts, stats: PlayerRecord) -> list[Html]:
        """Lines /stats adds for this game (Bura: declarations true and false, D5)."""
        return []


class Played(ABC):
    """A series being played, with its game's bot side: what the flows hold
    (``LiveGame.played``) and ask, whichever game it is. Each question is about the deal
    being played (``series.deals[-1]``); an action it hands out is given back to it
    alone (:meth:`apply`, :meth:`move_notes`)."""

    series: DealSeries

    # --- who acts, and with what ------------------------------------------------
    @abstractmethod
    def turn(self) -> int | None:
        """The seat whose turn runs the timer (the others in ``actors`` may act, never must)."""

    @abstractmethod
    def actors(self) -> tuple[int, ...]: ...

    @abstractmethod
    def actions_played(self) -> int:
        """How many actions the deal has seen: it changes with every one."""

    @abstractmethod
    def trick_open(self) -> bool:
        """Cards of a trick not yet taken lie on the table (a hand that is not redrawn
        then shows an older trick; the group table shows every card, R8)."""

    @abstractmethod
    def trick_shown(self) -> str | None:
        """The finished trick the screens show while no trick is open, named by its deal
        and number (None: a trick is open, or none has been taken). A hand's edit showing
        it is an outbox milestone (``OutboxOp.milestone``): the next lead's edit, which
        no longer shows it, cannot replace it unseen (R8: every play reaches everyone)."""

    @abstractmethod
    def in_hand(self, seat: int, card: Card) -> bool: ...

    @abstractmethod
    def could_play_together(self, seat: int, cards: Sequence[Card]) -> bool:
        """Some legal play of ``seat``'s cards on its turn holds all of ``cards`` (True when
        it is not the seat's turn: nothing to judge a selection by)."""

    @abstractmethod
    def one_tap(self, seat: int, card: Card) -> SeatAction | None:
        """The action a tap on ``card`` takes at once (``tap_play``); None: the tap selects."""

    @abstractmethod
    def offers_pick(self, seat: int) -> bool:
        """The hand shows ``PICK`` to choose what one tap cannot reach (``pick_offered``)."""

    @abstractmethod
    def parse_action(self, seat: int, kind: str, cards: tuple[Card, ...]) -> SeatAction:
        """A button's action; ``ValueError`` if it is forged or not legal now."""

    @abstractmethod
    def computer_action(self, level: str, seed: int, seat: int) -> SeatAction | None:
        """A computer player's choice for ``seat`` (``None``: it lets an optional chance
        pass). Blocking: the flows run it in a thread."""

    @abstractmethod
    def stand_in_action(self, seat: int) -> SeatAction:
        """A cheap action for a human who let the timer run out (never an optional call)."""

    @abstractmethod
    def by_itself(self) -> ByItself[SeatAction] | None:
        """The move that comes by itself if the seat whose turn it is taps nothing (no
        tap is asked for it); None: the turn waits for the player (or their timer)."""

    @abstractmethod
    def apply(self, action: SeatAction) -> None:
        """Play one of this series' own actions (``ForgedAction`` for any other: one
        handed out by another game); an illegal one raises the engine's error."""

    @abstractmethod
    def apply_json(self, data: Json) -> None:
        """Play an action as the move log stores it (``SeatAction.to_json``)."""

    # --- the record -------------------------------------------------------------
    @abstractmethod
    def record(self) -> Json: ...

    @abstractmethod
    def deal_rows(self) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        """Each finished deal's trick points and its addition to the tally."""

    @abstractmethod
    def winners(self) -> tuple[int, ...]: ...

    # --- what players see --------------------------------------------------------
    @abstractmethod
    def score_lines(self, t: Texts, game: Game) -> list[Html]:
        """Lines /score and the series' end add under the seats' totals (B5: each
        pair's pooled total)."""

    @abstractmethod
    def table_text(
        self, t: Texts, game: Game, *, turn_seconds: int | None, viewer: int | None = None
    ) -> str: ...

    @abstractmethod
    def hand_text(
        self,
        t: Texts,
        game: Game,
        chat_title: str,
        seat: int,
        *,
        turn_seconds: int | None,
        picking: bool = False,
    ) -> str:
        """``picking``: the player asked to choose cards (``PICK``), so taps select."""

    @abstractmethod
    def hand_keyboard(
        self, t: Texts, game: Game, seat: int, selection: Sequence[Card], picking: bool = False
    ) -> Keyboard | None: ...

    @abstractmethod
    def deal_end_text(self, t: Texts, game: Game, index: int) -> str:
        """The result of deal ``index`` (0-based), said in words."""

    @abstractmethod
    def move_notes(self, t: Texts, game: Game, action: SeatAction) -> list[str]:
        """Group messages an action just played calls for beyond the table's redraw (a
        «Стоп!»...)."""

    @abstractmethod
    def series_end_text(self, t: Texts, game: Game) -> str: ...

    @abstractmethod
    def app_state(self, out: Json, t: Texts, me: int, playing: bool) -> bool:
        """Fill the game's part of seat ``me``'s Mini App state (docs/webapp-api.md:
        turn, trump, stock, seats' counts, table, last trick, hand, legal actions) from
        that seat's view alone; False: the app shows only the tally (played by text)."""


class GameSide(BotGame, Generic[SeriesT, DealT, ActionT]):
    """A game's bot side, typed with the game's own series, deal and action. ``name`` is
    the engine's game name (``engine.registry``, ``game_of_rules``); ``min_players`` and
    ``max_players`` its table's sizes. Where a function of the game's own modules already
    is one of these methods, the game names it (``table_text =
    staticmethod(screens.table_text)``) rather than forwarding to it; mypy holds it to
    the signature written here all the same."""

    # --- the rules and the engine -------------------------------------------------
    def start(self, players: int, rules: Mapping[str, object], first_dealer: int) -> Played:
        return SeriesPlayed(self, self.new_series(players, rules, first_dealer))

    def load(self, record: Json) -> Played:
        return SeriesPlayed(self, self.from_record(record))

    def new_series(self, players: int, rules: Mapping[str, object], first_dealer: int) -> SeriesT:
        switches = {k: v for k, v in rules.items() if k != "game"}
        return self.start_series(players, switches, first_dealer)

    @abstractmethod
    def start_series(
        self, players: int, switches: Mapping[str, object], first_dealer: int
    ) -> SeriesT:
        """A series under the game's own rule switches."""

    @abstractmethod
    def from_record(self, record: Json) -> SeriesT: ...

    @abstractmethod
    def record(self, series: SeriesT) -> Json: ...

    @abstractmethod
    def owns(self, action: SeatAction) -> TypeGuard[ActionT]:
        """``action`` is one of this game's (the flows hand back what the game gave them)."""

    @abstractmethod
    def action_from_json(self, data: Json) -> ActionT: ...

    @abstractmethod
    def deal(self, series: SeriesT) -> DealT:
        """The deal being played: the series' last."""

    @abstractmethod
    def apply(self, series: SeriesT, action: ActionT, /) -> object:
        """Play ``action`` in the series' deal (the engine's ``Series.apply``)."""

    @abstractmethod
    def deal_rows(self, series: SeriesT) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        """Each finished deal's trick points and its addition to the tally."""

    # --- who acts, and with what ------------------------------------------------
    @abstractmethod
    def trick_open(self, deal: DealT) -> bool: ...

    @abstractmethod
    def trick_shown(self, series: SeriesT) -> str | None: ...

    @abstractmethod
    def could_play_together(self, deal: DealT, seat: int, cards: Sequence[Card]) -> bool: ...

    @abstractmethod
    def one_tap(self, deal: DealT, seat: int, card: Card) -> ActionT | None: ...

    def offers_pick(self, deal: DealT, seat: int) -> bool:
        return False

    @abstractmethod
    def parse_action(
        self, deal: DealT, seat: int, kind: str, cards: tuple[Card, ...]
    ) -> ActionT: ...

    @abstractmethod
    def computer_action(
        self, level: str, seed: int, series: SeriesT, seat: int
    ) -> ActionT | None: ...

    @abstractmethod
    def stand_in_action(self, series: SeriesT, seat: int) -> ActionT: ...

    def by_itself(self, series: SeriesT) -> ByItself[ActionT] | None:
        return None

    # --- what players see --------------------------------------------------------
    def score_lines(self, t: Texts, game: Game, series: SeriesT) -> list[Html]:
        return []

    @abstractmethod
    def table_text(
        self,
        t: Texts,
        game: Game,
        series: SeriesT,
        *,
        turn_seconds: int | None,
        viewer: int | None = None,
    ) -> str:
        """The table as the group sees it; ``viewer``: the seat of the one player who
        reads it (a game in the private chat), whose own closed discards show (B1, D3)."""

    @abstractmethod
    def hand_text(
        self,
        t: Texts,
        game: Game,
        chat_title: str,
        series: SeriesT,
        seat: int,
        *,
        turn_seconds: int | None,
        picking: bool = False,
    ) -> str: ...

    @abstractmethod
    def hand_keyboard(
        self,
        t: Texts,
        game: Game,
        series: SeriesT,
        seat: int,
        selection: Sequence[Card],
        picking: bool = False,
    ) -> Keyboard | None: ...

    @abstractmethod
    def deal_end_text(self, t: Texts, game: Game, series: SeriesT, index: int) -> str: ...

    def move_notes(self, t: Texts, game: Game, series: SeriesT, action: ActionT) -> list[str]:
        return []

    @abstractmethod
    def app_state(self, out: Json, t: Texts, series: SeriesT, me: int, playing: bool) -> bool: ...


@dataclass(eq=False, slots=True)
class SeriesPlayed(Played, Generic[SeriesT, DealT, ActionT]):
    """A series with its game's side: each question passed on with the series (and its
    deal) the side is typed for. What every game does the same way is answered here."""

    side: GameSide[SeriesT, DealT, ActionT]
    series: SeriesT

    def _own(self, action: SeatAction) -> ActionT:
        if not self.side.owns(action):
            raise ForgedAction(f"not a {self.side.name} action: {action!r}")
        return action

    def turn(self) -> int | None:
        return self.side.deal(self.series).turn

    def actors(self) -> tuple[int, ...]:
        return self.side.deal(self.series).actors()

    def actions_played(self) -> int:
        return len(self.side.deal(self.series).history)

    def trick_open(self) -> bool:
        return self.side.trick_open(self.side.deal(self.series))

    def trick_shown(self) -> str | None:
        return self.side.trick_shown(self.series)

    def in_hand(self, seat: int, card: Card) -> bool:
        return card in self.side.deal(self.series).hand(seat)

    def could_play_together(self, seat: int, cards: Sequence[Card]) -> bool:
        return self.side.could_play_together(self.side.deal(self.series), seat, cards)

    def one_tap(self, seat: int, card: Card) -> ActionT | None:
        return self.side.one_tap(self.side.deal(self.series), seat, card)

    def offers_pick(self, seat: int) -> bool:
        return self.side.offers_pick(self.side.deal(self.series), seat)

    def parse_action(self, seat: int, kind: str, cards: tuple[Card, ...]) -> ActionT:
        return self.side.parse_action(self.side.deal(self.series), seat, kind, cards)

    def computer_action(self, level: str, seed: int, seat: int) -> ActionT | None:
        return self.side.computer_action(level, seed, self.series, seat)

    def stand_in_action(self, seat: int) -> ActionT:
        return self.side.stand_in_action(self.series, seat)

    def by_itself(self) -> ByItself[ActionT] | None:
        return self.side.by_itself(self.series)

    def apply(self, action: SeatAction) -> None:
        self.side.apply(self.series, self._own(action))

    def apply_json(self, data: Json) -> None:
        self.side.apply(self.series, self.side.action_from_json(data))

    def record(self) -> Json:
        return self.side.record(self.series)

    def deal_rows(self) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        return self.side.deal_rows(self.series)

    def winners(self) -> tuple[int, ...]:
        return self.series.result().winners

    def score_lines(self, t: Texts, game: Game) -> list[Html]:
        return self.side.score_lines(t, game, self.series)

    def table_text(
        self, t: Texts, game: Game, *, turn_seconds: int | None, viewer: int | None = None
    ) -> str:
        return self.side.table_text(t, game, self.series, turn_seconds=turn_seconds, viewer=viewer)

    def hand_text(
        self,
        t: Texts,
        game: Game,
        chat_title: str,
        seat: int,
        *,
        turn_seconds: int | None,
        picking: bool = False,
    ) -> str:
        return self.side.hand_text(
            t, game, chat_title, self.series, seat, turn_seconds=turn_seconds, picking=picking
        )

    def hand_keyboard(
        self, t: Texts, game: Game, seat: int, selection: Sequence[Card], picking: bool = False
    ) -> Keyboard | None:
        return self.side.hand_keyboard(t, game, self.series, seat, selection, picking)

    def deal_end_text(self, t: Texts, game: Game, index: int) -> str:
        return self.side.deal_end_text(t, game, self.series, index)

    def move_notes(self, t: Texts, game: Game, action: SeatAction) -> list[str]:
        return self.side.move_notes(t, game, self.series, self._own(action))

    def series_end_text(self, t: Texts, game: Game) -> str:
        outcome = self.series.result()
        extra = self.score_lines(t, game)
        return series_end_text(t, game, outcome.totals, outcome.winners, extra)

    def app_state(self, out: Json, t: Texts, me: int, playing: bool) -> bool:
        return self.side.app_state(out, t, self.series, me, playing)


def private_screen(table: str, hand: str) -> str:
    """The table and the hand as one message, for a game in the player's private chat
    (one message a second there: one edit a move). Both games draw their texts in
    paragraphs: the table's first two are its title (trump, stakes) and the seats with
    their counts and totals; the hand's first is its title, and the rest are the cards on
    the table as this player sees them (their own closed discards too, B1), what they may
    do, and their cards."""
    head = table.split("\n\n")[:2]
    body = hand.split("\n\n")[1:]
    return "\n\n".join([*head, *body])


class ForgedAction(ValueError):
    """A button's action that no honest keyboard draws (an unknown kind...)."""


PICK = "+"
"""The card code of the «➕ Several cards» / «🗑 Discard, don't beat» / «↩ Back» button
(``CardCb``): never a card's code (``bot.games.taps``)."""
