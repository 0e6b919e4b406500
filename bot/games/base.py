"""The one interface of each game's bot side: its buttons, the actions its taps parse
to, its texts and its table and hand drawing. The flows (``bot.service``) only talk to
:class:`BotGame`, so a third game is added as a module and one registry line.

The engine's game interface (``engine.game``) says who may act (``actors``: several
seats at once in Bura, or a C3/C4 stopper in Burkozel), what is legal and how an action
applies; this one adds what a player sees and taps. A game's actions are the engine's
own values; buttons carry them as ``kind`` + card codes (``bot.views.callbacks.PlayCb``), and
the game module alone knows what its kinds mean (Burkozel: lead/beat/discard; Bura adds
declare, «Стоп!», show, даве...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from bot.i18n import Html, Texts
from bot.views.render import Keyboard
from engine import Card, Suit
from storage import Game, PlayerRecord

Json = dict[str, Any]


def codes(cards: Sequence[Card]) -> list[str]:
    return [c.code() for c in cards]


# An engine series, deal and action of the game at hand (each game has its own types;
# the flows pass them back to the same game module without looking inside).
Series = Any
Deal = Any
Action = Any


@dataclass(frozen=True, slots=True)
class ByItself:
    """The move made for a person whose turn it is unless they make another first: Bura's
    draw after a trick (D4), which only a declaration (D5) comes before. ``at_once``:
    nothing else can be right as far as that seat knows, so it is made without a pause
    (and that tells them nothing they did not know). The same engine move a tap makes."""

    action: Action
    at_once: bool


class BotGame(Protocol):
    name: str  # the engine's game name (``engine.registry``, ``game_of_rules``)

    # --- the rules and the engine -------------------------------------------------
    def new_series(self, players: int, rules: Mapping[str, Any], first_dealer: int) -> Series:
        """A series under the stored rules (which may name the game: ``{"game": ...}``)."""
        ...

    def from_record(self, record: dict[str, Any]) -> Series: ...

    def record(self, series: Series) -> dict[str, Any]: ...

    def deal_rows(self, series: Series) -> tuple[list[Sequence[int]], list[Sequence[int]]]:
        """Each finished deal's trick points and its addition to the tally."""
        ...

    def winners(self, series: Series) -> tuple[int, ...]: ...

    # --- who acts, and with what ------------------------------------------------
    def turn(self, deal: Deal) -> int | None:
        """The seat whose turn runs the timer (the others in ``actors`` may act, never must)."""
        ...

    def actors(self, deal: Deal) -> tuple[int, ...]: ...

    def moment(self, deal: Deal) -> int:
        """A number that changes with every action of the deal."""
        ...

    def trick_open(self, deal: Deal) -> bool:
        """Cards of a trick not yet taken lie on the table (a hand that is not redrawn
        then shows an older trick; the group table shows every card, R8)."""
        ...

    def trick_shown(self, series: Series) -> str | None:
        """The finished trick the screens show while no trick is open, named by its deal
        and number (None: a trick is open, or none has been taken). A hand's edit showing
        it is an outbox milestone (``OutboxOp.milestone``): the next lead's edit, which
        no longer shows it, cannot replace it unseen (R8: every play reaches everyone)."""
        ...

    def holds(self, deal: Deal, seat: int, card: Card) -> bool: ...

    def fits(self, deal: Deal, seat: int, cards: Sequence[Card]) -> bool:
        """Some legal play of ``seat``'s cards on its turn holds all of ``cards`` (True when
        it is not the seat's turn: nothing to judge a selection by)."""
        ...

    def one_tap(self, deal: Deal, seat: int, card: Card) -> Action | None:
        """The action a tap on ``card`` takes at once (``tap_play``); None: the tap selects."""
        ...

    def offers_pick(self, deal: Deal, seat: int) -> bool:
        """The hand shows ``PICK`` to choose what one tap cannot reach (``pick_offered``)."""
        ...

    def parse_action(self, deal: Deal, seat: int, kind: str, cards: tuple[Card, ...]) -> Action:
        """A button's action; ``ValueError`` if it is forged or not legal now."""
        ...

    def action_json(self, action: Action) -> dict[str, Any]: ...

    def computer_action(self, level: str, seed: int, series: Series, seat: int) -> Action | None:
        """A computer player's choice for ``seat`` (``None``: it lets an optional chance
        pass). Blocking: the flows run it in a thread."""
        ...

    def stand_in_action(self, series: Series, seat: int) -> Action:
        """A cheap action for a human who let the timer run out (never an optional call)."""
        ...

    def by_itself(self, series: Series) -> ByItself | None:
        """The move that comes by itself if the seat whose turn it is taps nothing (no
        tap is asked for it); None: the turn waits for the player (or their timer)."""
        ...

    # --- what players see --------------------------------------------------------
    def lobby_title(self, t: Texts) -> str: ...

    def lobby_seat_lines(self, t: Texts, game: Game) -> list[Html]:
        """The lobby's seats as the rules arrange them (B5: two pairs); [] for one line
        per seat."""
        ...

    def lobby_hint(self, t: Texts, game: Game) -> str:
        """What is needed to start (how many players)."""
        ...

    def score_lines(self, t: Texts, game: Game, series: Series) -> list[Html]:
        """Lines /score adds under the seats' totals (B5: each pair's pooled total)."""
        ...

    def table_text(
        self, t: Texts, game: Game, series: Series, *, turn_seconds: int | None
    ) -> str: ...

    def hand_text(
        self,
        t: Texts,
        game: Game,
        chat_title: str,
        series: Series,
        seat: int,
        *,
        turn_seconds: int | None,
        picking: bool = False,
    ) -> str:
        """``picking``: the player asked to choose cards (``PICK``), so taps select."""
        ...

    def hand_keyboard(
        self,
        t: Texts,
        game: Game,
        series: Series,
        seat: int,
        selection: Sequence[Card],
        picking: bool = False,
    ) -> Keyboard | None: ...

    def deal_end_text(self, t: Texts, game: Game, series: Series, index: int) -> str:
        """The result of deal ``index`` (0-based), said in words."""
        ...

    def move_notes(self, t: Texts, game: Game, series: Series, action: Action) -> list[str]:
        """Group messages an action calls for beyond the table's redraw (a «Стоп!»...)."""
        ...

    def series_end_text(self, t: Texts, game: Game, series: Series) -> str: ...

    def app_state(self, out: Json, t: Texts, series: Series, me: int, playing: bool) -> bool:
        """Fill the game's part of seat ``me``'s Mini App state (docs/webapp-api.md:
        turn, trump, stock, seats' counts, table, last trick, hand, legal actions) from
        that seat's view alone; False: the app shows only the tally (played by text)."""
        ...

    def stats_lines(self, t: Texts, stats: PlayerRecord) -> list[Html]:
        """Lines /stats adds for this game (Bura: declarations true and false, D5)."""
        ...


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


# --- one tap or a choice -----------------------------------------------------------
#
# Issue 9: every Telegram operation counts, and most moves are one card. A tap on a card
# plays that card at once: a lead of it alone, or an answer that beats with it where it
# can and is discarded where it cannot. Whatever one tap cannot reach (several cards, a
# card discarded that could beat) is one button away: ``PICK`` switches the hand to
# choosing, where taps select and buttons confirm, and back.

PICK = "+"
"""The card code of the «➕ Several cards» / «🗑 Discard, don't beat» / «↩ Back» button
(``CardCb``): never a card's code."""

P = TypeVar("P")


def tap_play(plays: Sequence[P], card: Card) -> P | None:
    """The play a tap on ``card`` makes among ``plays`` (the seat's card plays on its turn,
    each with ``cards`` and, for answers, ``beat``): ``card`` alone, beating if it can."""
    alone = [p for p in plays if tuple(getattr(p, "cards", ())) == (card,)]
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
    instead of choosing the cards and confirming (issue 9: no redraw while choosing):
    the leads of several cards (R6, D2) when at most ``LISTED_MOST``; for an answer of
    several cards (R7) the beats when at most ``LISTED_MOST``, then the discards, the
    cheapest first (fewest ``trump`` cards, then fewest points), when at most
    ``LISTED_DISCARDS``."""
    several = [p for p in plays if len(getattr(p, "cards", ())) > 1]
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


def _fewest_first(play: Any) -> tuple[int, tuple[Card, ...]]:
    return len(play.cards), tuple(sorted(play.cards))


def _cheapest_first(play: Any, trump: Suit | None) -> tuple[int, int, tuple[Card, ...]]:
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
