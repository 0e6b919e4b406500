"""Taps answered before their chat's queue: those that need no game state, and a flood.

A chat's updates are handled one at a time (chat_order.py), so a tap in a chat with a
backlog waits behind it, and Telegram gives up on an answer after about ten seconds
(«query is too old»): strangers flooding a game's group with forged buttons used to make
every tap there, a player's included, wait for thousands of refusals. Each tap is looked
at here as it arrives, before it is queued:

- A person tapping faster than a person can (a token bucket per user: ``BURST`` taps at
  once, then ``RATE`` a second) gets a short answer and the tap is dropped, so one
  person cannot hold a table. Selecting four cards and playing them takes five. A seated
  player's cards and plays in their own game are never shed: they move only that game.
- A tap whose refusal needs no game state is refused here, with the answer the handlers
  give (bot/handlers/play.py, lobby.py, errors.py): data no button of the bot carries, a
  button of a game that does not exist, a lobby button of a game past its lobby, a card
  of a game the tapper is not seated in, a confirmed cancel of a game that is over.

A refusal here must be the one the handlers would give, whatever is still queued: it
rests only on what cannot change any more. A game that exists keeps existing, a game
over stays over, and the seats of a game past its lobby stay the same (only a lobby
seats and unseats people). So the facts come from the service's cache or one read, and
are kept only for games past their lobby. Anything else (a seated player's tap, a
lobby's buttons, a rematch, settings) is queued as before: when unsure, queue.

Answers are sent by a few workers, not a task per tap, with at most ``PENDING`` waiting
(each a few hundred bytes: the tapped message is not kept); past that a refused tap goes
unanswered (Telegram stops the button's spinner by itself).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InaccessibleMessage, Update

from bot import metrics
from bot.delivery import lean_api
from bot.handlers.common import tap_texts
from bot.handlers.stats import HistoryCb, ResetCb
from bot.service import GameService
from bot.views.callbacks import ALL_FACTORIES, CancelCb, CardCb, LobbyCb, MyCardsCb, PlayCb
from engine.game import COMPUTER_LEVELS
from storage import Game

log = logging.getLogger(__name__)

# A person's taps: a burst of BURST at once, then RATE a second. Someone picking four
# cards and playing them fast taps five times in a second or two, and nobody keeps up
# ten a second for long (the e2e tests' players, tapping as fast as the bot answers for
# a whole series, keep above five); a script's flood spends the burst at once and is
# shed. The
# burst is that large for taps a person made while the bot was away (a restart, an
# outage): they wait at Telegram and arrive together, a tap every second or two for
# half a minute, and the newest of them is the one that counts.
BURST: Final = 30
RATE: Final = 10.0
# Games whose facts are kept (past the lobby, read from storage): a flood naming many
# game ids reads each once it exists, and forgets the oldest.
KNOWN_GAMES: Final = 1024
ANSWERING: Final = 8  # answers sent at once
PENDING: Final = 4096  # answers waiting to be sent

# Every kind of button the bot draws: data none of them unpacks reaches no handler but
# the one that says "this button is not valid".
BUTTONS: Final[tuple[type[CallbackData], ...]] = (*ALL_FACTORIES, HistoryCb, ResetCb)
FACTORIES: Final = {factory.__prefix__: factory for factory in BUTTONS}
LOBBY_ACTIONS: Final = ("join", "leave", "start")
# The buttons whose refusal looks at their game (``refusal``).
GAME_BUTTONS: Final = (LobbyCb, CardCb, PlayCb, MyCardsCb, CancelCb)


@dataclass(frozen=True)
class Refusal:
    """The answer a handler would give: a text key, as a pop-up (``alert``) or a toast."""

    key: str
    alert: bool = True


@dataclass(frozen=True)
class Settled:
    """A game past its lobby: who sits in it cannot change any more."""

    over: bool
    seated: frozenset[int]


NO_GAME: Final = "no game"
NOT_VALID: Final = Refusal("error.forged", alert=False)  # bot/handlers/play.py unknown_button
TOO_FAST: Final = Refusal("error.too_many_taps", alert=False)


def unpack(data: str | None) -> CallbackData | None:
    """The button ``data`` is, as the handlers' filters read it; None: no handler's."""
    if not data:
        return None
    factory = FACTORIES.get(data.split(":", 1)[0])
    if factory is None:
        return None
    try:
        return factory.unpack(data)
    except (TypeError, ValueError):  # (pydantic's ValidationError is a ValueError)
        return None


class TokenBuckets:
    """A token bucket per user: ``burst`` taps at once, refilled at ``rate`` a second."""

    def __init__(
        self,
        burst: int = BURST,
        rate: float = RATE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst, self.rate, self.clock = burst, rate, clock
        self._buckets: dict[int, tuple[float, float]] = {}  # user -> (tokens, at)
        self._sweep_at = 1024

    def take(self, user_id: int, need: float = 1) -> bool:
        """One tap of ``user_id``: False if they are over their rate (the tap is shed),
        that is if fewer than ``need`` tokens are left (one is taken)."""
        now = self.clock()
        tokens, at = self._buckets.get(user_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < need:
            self._buckets[user_id] = (tokens, now)
            return False
        self._buckets[user_id] = (tokens - 1, now)
        if len(self._buckets) >= self._sweep_at:
            self._sweep(now)
        return True

    def _sweep(self, now: float) -> None:
        """Forget users whose bucket is full again (as good as never seen)."""
        self._buckets = {
            user: (tokens, at)
            for user, (tokens, at) in self._buckets.items()
            if tokens + (now - at) * self.rate < self.burst
        }
        self._sweep_at = max(1024, 2 * len(self._buckets))


class TapScreen:
    """``await screen(update)``: True if the update was a tap answered (or shed) here,
    which is then not queued; False: queue it as usual."""

    def __init__(self, service: GameService, bot: Bot, buckets: TokenBuckets | None = None):
        self.service = service
        self.bot = bot
        self.buckets = buckets or TokenBuckets()
        self._known: OrderedDict[int, Settled] = OrderedDict()
        self._answers: deque[tuple[CallbackQuery, Refusal]] = deque()
        self._workers: set[asyncio.Task[None]] = set()
        self._shedding: set[int] = set()  # users whose latest tap was shed
        # What look_ahead read for polling's batch being screened: game id -> its facts.
        self._batch: dict[int, Settled | str | None] = {}

    async def __call__(self, update: Update) -> bool:
        query = update.callback_query
        if query is None:
            return False
        tapper = query.from_user.id
        if not await self.plays_own_game(query) and not self.buckets.take(tapper):
            if tapper not in self._shedding:
                self._shedding.add(tapper)
                log.info("user %s taps faster than a person: shedding their taps", tapper)
            self._answer(query, TOO_FAST, "shed")
            return True
        self._shedding.discard(tapper)
        try:
            refusal = await self.refusal(query)
        except Exception:  # storage unreachable, say: the handlers will say what is wrong
            log.warning("could not screen tap %s; queued", update.update_id, exc_info=True)
            return False
        if refusal is None:
            return False
        self._answer(query, refusal, "refused")
        return True

    async def plays_own_game(self, query: CallbackQuery) -> bool:
        """A card or play tap of a player seated in that game (past its lobby): never shed.
        Such taps wait in their own game's line and move only that game, and a player
        tapping as fast as the bot answers (the tests' players do) would otherwise be."""
        button = unpack(query.data)
        if not isinstance(button, CardCb | PlayCb):
            return False
        try:
            facts = await self.facts(button.game)
        except Exception:  # storage unreachable, say: the bucket decides
            return False
        return isinstance(facts, Settled) and query.from_user.id in facts.seated

    def seats(self, user_id: int) -> bool:
        """Whether ``user_id`` sits at a table this screen has seen played (a game past
        its lobby, not over when read: one whose players' taps came by)."""
        return any(user_id in game.seated for game in self._known.values() if not game.over)

    async def refusal(self, query: CallbackQuery) -> Refusal | None:
        """The handlers' refusal of ``query`` if it is certain without game state."""
        button = unpack(query.data)
        if button is None:
            return NOT_VALID
        tapper = query.from_user.id
        if isinstance(button, LobbyCb):  # bot/handlers/lobby.py, bot/service/lobby.py
            action = button.action
            if action == "again":
                return None  # a rematch opens a new game: queued
            if action.startswith("bot-"):
                if action[4:] not in COMPUTER_LEVELS:
                    return Refusal("computer.bad_level")
            elif action not in LOBBY_ACTIONS:
                return Refusal("error.forged")
            facts = await self.facts(button.game)
            if facts == NO_GAME:
                return Refusal("error.no_game")
            return Refusal("lobby.not_open") if isinstance(facts, Settled) else None
        if isinstance(button, CardCb | PlayCb):  # TableFlow._playing: seats first
            facts = await self.facts(button.game)
            if facts == NO_GAME:
                return Refusal("error.no_game")
            if isinstance(facts, Settled) and tapper not in facts.seated:
                return Refusal("error.not_seated")
            return None  # a seated player's tap (or a lobby's): the game decides
        if isinstance(button, MyCardsCb):  # TableFlow.hand_here: seats first
            facts = await self.facts(button.game)
            if facts == NO_GAME:
                return Refusal("error.no_game")
            if isinstance(facts, Settled) and tapper not in facts.seated:
                return Refusal("hand_here.not_seated", alert=False)
            return None
        if isinstance(button, CancelCb) and button.confirm:  # LobbyFlow.cancel: over first
            facts = await self.facts(button.game)
            if facts == NO_GAME:
                return Refusal("error.no_game")
            if isinstance(facts, Settled) and facts.over:
                return Refusal("error.game_over")
        return None

    async def look_ahead(self, updates: Sequence[Update]) -> None:
        """Polling's next batch, before its updates are screened one by one: the games its
        taps name that are not known yet are read now, all at once. One by one, each read
        waited its turn at the storage behind the handlers' work while polling waited
        (bench/junk.py --trace: nearly all of a batch's screening time went to reads for
        forged taps naming games that do not exist, and a player's tap behind them waited
        at Telegram meanwhile).

        What is read is kept for this batch only: a game absent now may be created later,
        and a lobby's seats change. For the batch it holds: its taps were all made before
        it was read, and a real button's game existed before anyone could tap it (so one
        absent now was named by forged data); a lobby is queued, never refused."""
        self._batch = {}
        wanted: set[int] = set()
        for update in updates:
            query = update.callback_query
            button = unpack(query.data) if query is not None else None
            if isinstance(button, GAME_BUTTONS) and button.game not in self._known:
                wanted.add(button.game)
        games = list(wanted)
        found = await asyncio.gather(*(self._read(g) for g in games), return_exceptions=True)
        for game_id, facts in zip(games, found, strict=True):
            if not isinstance(facts, BaseException):  # (the screen reads it again, or queues)
                self._batch[game_id] = facts

    async def facts(self, game_id: int) -> Settled | str | None:
        """What cannot change any more about game ``game_id``: that it does not exist
        (NO_GAME), or its seats once past the lobby; None: a lobby (seats may change)."""
        known = self._known.get(game_id)
        if known is not None:
            self._known.move_to_end(game_id)
            return known
        if game_id in self._batch:
            return self._batch[game_id]
        return await self._read(game_id)

    async def _read(self, game_id: int) -> Settled | str | None:
        game = self.service.cached_game(game_id)
        if game is None:
            game = await self.service.storage.get_game(game_id)
        if game is None:
            return NO_GAME  # (not kept: a game of that id may be created later)
        if game.status == "lobby":
            return None
        settled = _settled(game)
        self._known[game_id] = settled
        if len(self._known) > KNOWN_GAMES:
            self._known.popitem(last=False)
        return settled

    def _answer(self, query: CallbackQuery, refusal: Refusal, why: str) -> None:
        if len(self._answers) >= PENDING:
            metrics.TAPS_SCREENED.labels("unanswered").inc()
            return
        metrics.TAPS_SCREENED.labels(why).inc()
        self._answers.append((_light(query), refusal))
        if len(self._workers) < ANSWERING:
            worker = asyncio.create_task(self._send_answers(), name="tap-answers")
            self._workers.add(worker)
            worker.add_done_callback(self._workers.discard)

    async def _send_answers(self) -> None:
        while self._answers:
            query, refusal = self._answers.popleft()
            try:
                t = await tap_texts(self.service, query)
                await lean_api.answer_callback(
                    self.bot, query.id, t.alert(refusal.key), show_alert=refusal.alert
                )
            except TelegramAPIError as exc:  # too late, say: nothing else to do
                log.debug("could not answer a screened tap: %s", exc.message)
            except Exception:
                log.warning("could not answer a screened tap", exc_info=True)

    async def close(self) -> None:
        """Stop sending answers (stopping)."""
        self._answers.clear()
        for worker in list(self._workers):
            worker.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)


def _settled(game: Game) -> Settled:
    seated = frozenset(s.user_id for s in game.seats if s.user_id is not None)
    return Settled(over=game.status not in ("lobby", "playing"), seated=seated)


def _light(query: CallbackQuery) -> CallbackQuery:
    """What answering needs of ``query`` (its id, and tap_texts' chat, data and tapper),
    without the tapped message it carries (up to ~30 KB)."""
    message = query.message
    return CallbackQuery(
        id=query.id,
        from_user=query.from_user,
        chat_instance=query.chat_instance,
        data=query.data,
        message=None
        if message is None
        else InaccessibleMessage(chat=message.chat, message_id=message.message_id),
    )
