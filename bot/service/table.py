"""The table flow: taps on cards and action buttons, a stale keyboard redrawn, and the
hand shown on request (inside the group, or again once the Mini App is closed)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.base import PICK, ForgedAction
from bot.json import Json
from bot.service.errors import UserError
from bot.service.games import Games
from bot.service.live import LiveGame, in_private_chat
from bot.service.moves import Moves
from bot.service.outbox import Outbox, in_group
from bot.service.screens import Screens
from bot.service.settings import ServiceSettings
from engine import Card, CardCodeError, EngineError
from storage import Backend, Seat


def cards_of(codes: str) -> tuple[Card, ...]:
    """The cards a play button names (codes joined by "."); CardCodeError for a non-card."""
    return tuple(Card.parse(c) for c in codes.split(".")) if codes else ()


@dataclass(eq=False)
class TableFlow:
    storage: Backend
    games: Games
    outbox: Outbox
    screens: Screens
    moves: Moves
    settings: ServiceSettings

    async def hand_here(
        self, game_id: int, user_id: int
    ) -> tuple[int, int | None, tuple[str, Json | None]]:
        """What «🂠 My cards» shows the tapper inside the group: the group, its topic, and
        their private hand's text and buttons as they are now (``hand_op``); UserError
        for anyone not seated, a game over, or a chat that turned it off."""
        async with self.games.lock(game_id):
            live = await self.games.load(game_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("hand_here.not_seated")
            if live.game.status != "playing" or live.played is None:
                raise UserError("error.game_over")
            if live.settings.group_hands == "off" or in_private_chat(live.game):
                raise UserError("hand_here.off")
            payload = self.screens.hand_op(live, seat).payload
            content = (str(payload["text"]), in_group(payload.get("reply_markup")))
            return live.game.chat_id, live.game.thread_id, content

    async def app_left(self, game_id: int, user_id: int, since: int | None = None) -> None:
        """The user closed the Mini App, opened at game version ``since``: their hand
        message, not edited meanwhile, is brought up to date once (if the game moved)."""
        async with self.games.lock(game_id):
            live = await self.games.load(game_id)
            seat = live.seat_of(user_id)
            if seat is None or live.game.status != "playing" or live.played is None:
                return
            if since is not None and live.game.version == since:
                return
            await self.outbox.redraw(live, (self.screens.hand_op(live, seat),))

    async def _playing(self, game_id: int, user_id: int, version: int) -> tuple[LiveGame, Seat]:
        live = await self.games.load(game_id)
        seat = live.seat_of(user_id)
        if seat is None:
            raise UserError("error.not_seated")
        if live.game.status != "playing" or live.played is None:
            raise UserError("error.game_over")
        if not 0 < version <= live.game.version:
            raise UserError("error.forged")  # no keyboard was ever drawn at that version
        if version < live.game.state_version:
            # A keyboard from before the last move: redraw the current one so the next tap
            # works. (One drawn before a reminder only is as good as the current one.)
            await self.outbox.redraw(live, (self.screens.hand_op(live, seat),))
            raise UserError("error.stale")
        return live, seat

    async def toggle(self, game_id: int, user_id: int, version: int, code: str) -> bool:
        """A tap on a card: plays it if one tap makes a move of it (True), else selects or
        unselects it (False). ``PICK`` switches the hand between the two. (With a shared
        database the lock has read the selections, whichever instance took the earlier
        taps.)"""
        async with self.games.lock(game_id, tapper=user_id):
            live, seat = await self._playing(game_id, user_id, version)
            played = live.played
            assert played is not None
            live.last_tap[user_id] = self.settings.clock()
            chosen = live.selections.setdefault(user_id, [])
            if code == PICK:
                if user_id in live.picking:
                    live.picking.discard(user_id)
                elif played.offers_pick(seat.seat):
                    live.picking.add(user_id)
                else:  # the hand shows no such button (a forged one, or taps select anyway)
                    raise UserError("error.forged")
                chosen.clear()
            else:
                try:
                    card = Card.parse(code)
                except CardCodeError:
                    raise UserError("error.forged") from None
                if not played.in_hand(seat.seat, card):
                    raise UserError("error.not_your_card")
                picking = user_id in live.picking
                action = None if chosen or picking else played.one_tap(seat.seat, card)
                if action is not None:
                    await self.moves.apply(live, action, seat.seat, autoplayed=False)
                    return True
                if card in chosen:
                    chosen.remove(card)
                elif played.could_play_together(seat.seat, [*chosen, card]):
                    chosen.append(card)
                else:  # a fast tapper's third card for a two-card answer, two suits in a lead
                    raise UserError("error.does_not_fit")
            stored = [c.code() for c in chosen]
            if user_id in live.picking:
                stored.insert(0, PICK)
            await self.storage.set_selection(game_id, user_id, live.game.version, stored)
            await self.outbox.redraw(live, (self.screens.hand_op(live, seat),))
            return False

    async def play(self, game_id: int, user_id: int, version: int, kind: str, codes: str) -> None:
        """An action button: ``kind`` and the cards it names, as the game's keyboard drew them."""
        async with self.games.lock(game_id, tapper=user_id):
            live, seat = await self._playing(game_id, user_id, version)
            played = live.played
            assert played is not None
            if seat.seat not in played.actors():
                raise UserError("error.not_your_turn")
            live.last_tap[user_id] = self.settings.clock()
            try:
                cards = cards_of(codes)
            except CardCodeError:
                raise UserError("error.forged") from None
            try:
                action = played.parse_action(seat.seat, kind, cards)
            except ForgedAction:
                raise UserError("error.forged") from None
            except EngineError:
                raise UserError("error.illegal") from None
            await self.moves.apply(live, action, seat.seat, autoplayed=False)
