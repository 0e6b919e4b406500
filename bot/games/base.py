"""The one seam between a game and the bot: :class:`GameSide`, typed with the game's own
series, deal and action. The flows (``bot.service``) only talk to it, so a third game is
added as a package and one registry line (``bot.games``).

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
from typing import Generic, Protocol, TypeVar

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


class TurnDeal(Protocol):
    """What the seam needs of an engine deal (``engine.game.DealState`` and its turn)."""

    @property
    def turn(self) -> int | None:
        """The seat whose turn runs the timer (the others in ``actors`` may act, never
        must); None once the deal is over."""
        ...

    @property
    def history(self) -> Sequence[SeatAction]: ...

    def actors(self) -> tuple[int, ...]: ...

    def hand(self, seat: int) -> tuple[Card, ...]: ...


DealT = TypeVar("DealT", bound=TurnDeal)


class DealSeries(Protocol):
    """What the seam needs of an engine series: its result so far."""

    def result(self) -> SeriesResultLike: ...


SeriesT = TypeVar("SeriesT", bound=DealSeries)


@dataclass(frozen=True, slots=True)
class ByItself(Generic[ActionT]):
    """The move made for a person whose turn it is unless they make another first: Bura's
    draw after a trick (D4), which only a declaration (D5) comes before. ``at_once``:
    nothing else can be right as far as that seat knows, so it is made without a pause
    (and that tells them nothing they did not know). The same engine move a tap makes."""

    action: ActionT
    at_once: bool


class GameSide(ABC, Generic[SeriesT, DealT, ActionT]):
    """A game's bot side. ``name`` is the engine's game name (``engine.registry``,
    ``game_of_rules``); ``min_players`` and ``max_players`` its table's sizes. Where a
    function of the game's own modules already is one of these methods, the game names
    it (``table_text = staticmethod(screens.table_text)``) rather than forwarding to it;
    mypy holds it to the signature written here all the same."""

    name: str
    min_players: int
    max_players: int

    # --- the rules and the engine -------------------------------------------------
    def new_series(self, players: int, rules: Mapping[str, object], first_dealer: int) -> SeriesT:
        """A series under the stored rules (which may name the game: ``{"game": ...}``)."""
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
    def deal_rows(self, series: SeriesT) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        """Each finished deal's trick points and its addition to the tally."""

    def winners(self, series: SeriesT) -> tuple[int, ...]:
        return series.result().winners

    # --- who acts, and with what ------------------------------------------------
    def turn(self, deal: DealT) -> int | None:
        """The seat whose turn runs the timer (the others in ``actors`` may act, never must)."""
        return deal.turn

    def actors(self, deal: DealT) -> tuple[int, ...]:
        return deal.actors()

    def actions_played(self, deal: DealT) -> int:
        """How many actions the deal has seen: it changes with every one."""
        return len(deal.history)

    @abstractmethod
    def trick_open(self, deal: DealT) -> bool:
        """Cards of a trick not yet taken lie on the table (a hand that is not redrawn
        then shows an older trick; the group table shows every card, R8)."""

    @abstractmethod
    def trick_shown(self, series: SeriesT) -> str | None:
        """The finished trick the screens show while no trick is open, named by its deal
        and number (None: a trick is open, or none has been taken). A hand's edit showing
        it is an outbox milestone (``OutboxOp.milestone``): the next lead's edit, which
        no longer shows it, cannot replace it unseen (R8: every play reaches everyone)."""

    def in_hand(self, deal: DealT, seat: int, card: Card) -> bool:
        return card in deal.hand(seat)

    @abstractmethod
    def could_play_together(self, deal: DealT, seat: int, cards: Sequence[Card]) -> bool:
        """Some legal play of ``seat``'s cards on its turn holds all of ``cards`` (True when
        it is not the seat's turn: nothing to judge a selection by)."""

    @abstractmethod
    def one_tap(self, deal: DealT, seat: int, card: Card) -> ActionT | None:
        """The action a tap on ``card`` takes at once (``tap_play``); None: the tap selects."""

    def offers_pick(self, deal: DealT, seat: int) -> bool:
        """The hand shows ``PICK`` to choose what one tap cannot reach (``pick_offered``)."""
        return False

    @abstractmethod
    def parse_action(self, deal: DealT, seat: int, kind: str, cards: tuple[Card, ...]) -> ActionT:
        """A button's action; ``ValueError`` if it is forged or not legal now."""

    def action_json(self, action: ActionT) -> Json:
        return action.to_json()

    @abstractmethod
    def computer_action(self, level: str, seed: int, series: SeriesT, seat: int) -> ActionT | None:
        """A computer player's choice for ``seat`` (``None``: it lets an optional chance
        pass). Blocking: the flows run it in a thread."""

    @abstractmethod
    def stand_in_action(self, series: SeriesT, seat: int) -> ActionT:
        """A cheap action for a human who let the timer run out (never an optional call)."""

    def by_itself(self, series: SeriesT) -> ByItself[ActionT] | None:
        """The move that comes by itself if the seat whose turn it is taps nothing (no
        tap is asked for it); None: the turn waits for the player (or their timer)."""
        return None

    # --- what players see --------------------------------------------------------
    def lobby_title(self, t: Texts) -> str:
        return t("lobby.title_game", game=t(f"game.{self.name}"))

    def lobby_seat_lines(self, t: Texts, game: Game) -> list[Html]:
        """The lobby's seats as the rules arrange them (B5: two pairs); [] for one line
        per seat."""
        return []

    def lobby_hint(self, t: Texts, game: Game) -> str:
        """What is needed to start (how many players)."""
        return t("lobby.hint", min=self.min_players, max=self.max_players)

    def score_lines(self, t: Texts, game: Game, series: SeriesT) -> list[Html]:
        """Lines /score and the series' end add under the seats' totals (B5: each
        pair's pooled total)."""
        return []

    @abstractmethod
    def table_text(
        self, t: Texts, game: Game, series: SeriesT, *, turn_seconds: int | None
    ) -> str: ...

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
    ) -> str:
        """``picking``: the player asked to choose cards (``PICK``), so taps select."""

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
    def deal_end_text(self, t: Texts, game: Game, series: SeriesT, index: int) -> str:
        """The result of deal ``index`` (0-based), said in words."""

    def move_notes(self, t: Texts, game: Game, series: SeriesT, action: ActionT) -> list[str]:
        """Group messages an action calls for beyond the table's redraw (a «Стоп!»...)."""
        return []

    def series_end_text(self, t: Texts, game: Game, series: SeriesT) -> str:
        outcome = series.result()
        extra = self.score_lines(t, game, series)
        return series_end_text(t, game, outcome.totals, outcome.winners, extra)

    @abstractmethod
    def app_state(self, out: Json, t: Texts, series: SeriesT, me: int, playing: bool) -> bool:
        """Fill the game's part of seat ``me``'s Mini App state (docs/webapp-api.md:
        turn, trump, stock, seats' counts, table, last trick, hand, legal actions) from
        that seat's view alone; False: the app shows only the tally (played by text)."""

    def stats_lines(self, t: Texts, stats: PlayerRecord) -> list[Html]:
        """Lines /stats adds for this game (Bura: declarations true and false, D5)."""
        return []


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
