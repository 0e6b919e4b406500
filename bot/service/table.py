"""The table flow: taps on cards and action buttons, applying an action, and what the
group and each hand are shown after it. Every game-specific step goes through the
game's bot side (``live.game_side``, :class:`bot.games.base.GameSide`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.chat_settings import NO_TIMER_REMINDER
from bot.games.base import PICK, ForgedAction, private_screen
from bot.service.core import (
    PING_AFTER_IDLE,
    LiveGame,
    ServiceCore,
    UserError,
    in_group,
    in_private_chat,
    out_of_group,
)
from bot.views import render
from bot.views.callbacks import MyCardsCb
from bot.views.picture import with_series_picture
from bot.views.stats import series_end_of
from engine import Card, CardCodeError, EngineError, shuffled_deck
from storage import Deadline, DealStart, DealTally, Game, GameChange, LoggedMove, OutboxOp, Seat


def cards_of(codes: str) -> tuple[Card, ...]:
    """The cards a play button names (codes joined by "."); CardCodeError for a non-card."""
    return tuple(Card.parse(c) for c in codes.split(".")) if codes else ()


class TableFlow(ServiceCore):
    # --- what players are shown -------------------------------------------------

    def hand_op(self, live: LiveGame, seat: Seat, *, version: int | None = None) -> OutboxOp:
        """The player's hand redrawn. ``version``: the game version its buttons are for;
        ops committed with a change must pass the version that commit creates
        (``live.game.version + 1``), or the new keyboard would be stale at once."""
        assert live.series is not None and seat.user_id is not None
        game = live.game if version is None else replace(live.game, version=version)
        ui = live.game_side
        deal = live.series.deals[-1]
        t = live.t
        seconds = self._seconds_left(live) if ui.turn(deal) == seat.seat else None
        picking = seat.user_id in live.picking
        text = ui.hand_text(
            t, game, live.chat_title, live.series, seat.seat, turn_seconds=seconds, picking=picking
        )
        if in_private_chat(game):
            text = self._private_screen(live, game, text)
        selection = live.selections.get(seat.user_id, [])
        markup = ui.hand_keyboard(t, game, live.series, seat.seat, selection, picking)
        if self.webapp_url is not None:
            markup = with_app_button(t, markup, self.webapp_url, game.id)
        # A hand showing a finished trick is shown before it moves on to the next lead,
        # however fast the moves come (the player's chat takes about an edit a second,
        # shared by every table they sit at): R8, every play reaches every player.
        milestone = ui.trick_shown(live.series)
        return self.dm_edit(live, seat.user_id, text, markup, milestone)

    def table_keyboard(self, live: LiveGame, *, playing: bool = True) -> render.Keyboard | None:
        """The group's table's buttons: «🂠 My cards» while the game is played (unless the
        chat turned hands in the group off), each player's hand shown there to them alone
        (``hand_here``); «🃏 Table», the Mini App by its direct link, opened in the group
        (a seated player gets their seat there, anyone else watches)."""
        row: list[dict[str, Any]] = []
        if playing and live.settings.group_hands != "off":
            data = MyCardsCb(game=live.game.id).pack()
            row.append({"text": live.t("table.my_cards"), "callback_data": data})
        if self.table_link is not None:
            link = self.table_link(live.game.id)
            row.append({"text": live.t("webapp.table_button"), "url": link})
        return render.keyboard([row]) if row else None

    async def hand_here(
        self, game_id: int, user_id: int
    ) -> tuple[int, int | None, tuple[str, dict[str, Any] | None]]:
        """What «🂠 My cards» shows the tapper inside the group: the group, its topic, and
        their private hand's text and buttons as they are now (``hand_op``); UserError
        for anyone not seated, a game over, or a chat that turned it off."""
        async with self.lock(game_id):
            live = await self._load(game_id)
            seat = live.seat_of(user_id)
            if seat is None:
                raise UserError("hand_here.not_seated")
            if live.game.status != "playing" or live.series is None:
                raise UserError("error.game_over")
            if live.settings.group_hands == "off" or in_private_chat(live.game):
                raise UserError("hand_here.off")
            payload = self.hand_op(live, seat).payload
            content = (str(payload["text"]), in_group(payload.get("reply_markup")))
            return live.game.chat_id, live.game.thread_id, content

    @staticmethod
    def _private_screen(live: LiveGame, game: Game, hand: str) -> str:
        """A game in the private chat shows the table and the hand in one message
        (``one_message``); while the first round of a deal is played, the deal before's
        result stays above it (a computer's lead would otherwise replace it at once)."""
        assert live.series is not None
        ui, t, series = live.game_side, live.t, live.series
        text = private_screen(ui.table_text(t, game, series, turn_seconds=None), hand)
        if len(series.deals) > 1 and ui.actions_played(series.deals[-1]) < len(game.seats):
            text = ui.deal_end_text(t, game, series, len(series.deals) - 2) + "\n\n" + text
        return text

    def _hand_ops(self, live: LiveGame, only: set[int] | None = None) -> list[OutboxOp]:
        """Every hand (or the seats in ``only``) redrawn, for a commit (so drawn for the
        version it creates)."""
        after = live.game.version + 1
        return [
            self.hand_op(live, s, version=after)
            for s in live.game.seats
            if s.user_id is not None
            and (only is None or s.seat in only)
            and not self._in_app(live, s.user_id, skipping=True)
        ]

    def _in_app(self, live: LiveGame, user_id: int, *, skipping: bool = False) -> bool:
        """The user has this game open in the Mini App: their hand message is
        not edited on each move (``skipping``: one is being skipped now; it is brought up
        to date once they leave, ``app_left``) and they are not pinged."""
        if not self.watchers.in_app(live.game.id, user_id):
            return False
        if skipping:
            self.watchers.skipped(live.game.id, user_id)
        return True

    def _all_in_app(self, live: LiveGame) -> bool:
        users = [s.user_id for s in live.game.seats if s.user_id is not None]
        return bool(users) and all(self._in_app(live, u) for u in users)

    async def app_left(self, game_id: int, user_id: int, since: int | None = None) -> None:
        """The user closed the Mini App, opened at game version ``since``: their hand
        message, not edited meanwhile, is brought up to date once (if the game moved)."""
        async with self.lock(game_id):
            live = await self._load(game_id)
            seat = live.seat_of(user_id)
            if seat is None or live.game.status != "playing" or live.series is None:
                return
            if since is not None and live.game.version == since:
                return
            redrawn = (self.hand_op(live, seat),)
            await self.storage.enqueue(redrawn)
            self.copy_hands(live, redrawn)
            self.outbox_ready.set()

    def _play_ops(
        self,
        live: LiveGame,
        *,
        last_mover: int | None,
        keep: set[int] | None = None,
        table: bool = True,
    ) -> list[OutboxOp]:
        """Table and hands redrawn for the new state, and a ping for the player to act.
        They are committed with the change, so keyboards carry the version it creates.

        ``keep``: seats whose hands had buttons that mattered before the move (who could
        act, who had cards selected). While a trick is open only they, the mover and who
        may act now are redrawn: the group table shows every card on the table (R8), the
        other hands catch up when the trick is taken (and show it until the next lead),
        and a tap on their older keyboard redraws it. That saves n - 2 edits per play."""
        assert live.series is not None
        ui = live.game_side
        deal = live.series.deals[-1]
        ops: list[OutboxOp] = []
        if table and ui.trick_open(deal) and self._all_in_app(live):
            # Everyone at the table follows it in the Mini App: the group's table is
            # edited once a trick (when it is taken), not on every play.
            table = False
        private = in_private_chat(live.game)  # one message: the hand shows the table
        if table and not private:  # False: a deal ended; its table shows the result
            seconds = self._seconds_left(live)
            text = ui.table_text(live.t, live.game, live.series, turn_seconds=seconds)
            ops.append(
                self.group_edit(live, table_role(live.series), text, self.table_keyboard(live))
            )
        only = None
        if keep is not None and last_mover is not None and ui.trick_open(deal) and not private:
            only = keep | {last_mover} | set(ui.actors(deal))
        ops += self._hand_ops(live, only)
        turn = ui.turn(deal)
        # No ping for a moment that passes by itself (Bura's draw): the turn after it pings.
        if turn is not None and turn != last_mover and ui.by_itself(live.series) is None:
            seat = live.game.seats[turn]
            if seat.user_id is not None and not seat.away and self._idle(live, seat.user_id):
                ops += self.ping(live, seat.user_id, live.t("ping.your_turn", chat=live.chat_title))
        for other in ui.actors(deal):
            seat = live.game.seats[other]
            if other not in (turn, last_mover) and seat.user_id is not None and not seat.away:
                text = live.t("ping.out_of_turn", chat=live.chat_title)
                ops += self.ping(live, seat.user_id, text)
        return ops

    def _deal_record(self, live: LiveGame, index: int, record: str) -> OutboxOp:
        """Deal ``index`` (0-based) just ended and the next one is dealt: its table becomes
        its record, ``record`` (the table as it ended, with the last trick, R8, and the
        result; the result says who starts the next deal). The next deal's table is a
        new message, sent with that deal's first change: the group sees one message per
        deal, the newest at the bottom, and a deal's end costs no operation of its own
        (a result message beside the table edit made n + 1.03 per move)."""
        assert live.series is not None
        if not live.series.deals[-1].finished:  # else void from the deal: ``_deal_again``
            record += "\n\n" + live.t("deal.next", deal=len(live.series.deals))
        return self.group_edit(live, table_role(live.series, index), record)

    def _idle(self, live: LiveGame, user_id: int) -> bool:
        tapped = live.last_tap.get(user_id)
        return tapped is None or self.clock() - tapped > PING_AFTER_IDLE

    def _closing_ops(
        self, live: LiveGame, status: str, record: str | None = None
    ) -> list[OutboxOp]:
        """The table and hands once the game is over; ``record``: the last deal just
        ended (``_deal_record``), and its table shows it above the final tally."""
        t = live.t
        ops: list[OutboxOp] = []
        if live.series is None:
            text = render.lobby_closed_text(t, live.game, status)
            ops.append(self.group_edit(live, "lobby", text))
            return ops
        final = render.final_table_text(t, live.game, live.series, status)
        if record is not None:
            final = record + "\n\n" + final
        markup = self.table_keyboard(live, playing=False)  # (the page shows the results too)
        ops.append(self.group_edit(live, table_role(live.series), final, markup))

        if in_private_chat(live.game):  # its one message shows how it ended
            return [self.dm_edit(live, live.game.chat_id, final, None)]
        ops.append(self.group_edit(live, table_role(live.series), final))
        for seat in live.game.seats:
            if seat.user_id is not None:
                text = render.hand_over_text(t, live.chat_title, status)
                ops.append(self.dm_edit(live, seat.user_id, text, None))
                ops.append(self.ping_delete(live, seat.user_id))
        return ops

    async def _close(self, live: LiveGame, status: str, reason: str | None = None) -> Game:
        live.game = replace(live.game, status=status, deadline=None)
        ops = tuple(self._closing_ops(live, reason or status))
        return await self._commit(live, GameChange(status=status, deadline=None, outbox=ops))

    def _deadline_for(self, live: LiveGame) -> Deadline | None:
        """Whose timer runs: a computer that may act out of turn (a «Стоп!», C3/C4) is
        asked first, once per moment; then the seat whose turn it is, under the chat's
        turn timer (none: a gentle reminder now and then, never auto-play)."""
        series, game = live.series, live.game
        if out_of_group(game.deadline):
            return game.deadline  # stopped until the bot is back in the group
        deal = None if series is None else series.current
        if deal is None:
            return None
        ui = live.game_side
        turn = ui.turn(deal)
        if turn is None:
            return None
        now = self.clock()
        moment = (len(series.deals), ui.actions_played(deal))
        for seat in ui.actors(deal):
            optional = seat != turn and game.seats[seat].bot_level is not None
            if optional and (*moment, seat) not in live.declined:
                return Deadline(seat, now + self.computer_pause, None)
        seat_ = game.seats[turn]
        timeout = self._turn_timeout(live)
        if seat_.bot_level is not None:
            return Deadline(turn, now + self.computer_pause, None)
        if ui.by_itself(series) is not None:  # stored: a restart or another instance makes it
            return Deadline(turn, now + self.by_itself_after, None)
        if timeout == 0:
            return Deadline(turn, now + NO_TIMER_REMINDER, None)
        if seat_.away:
            return Deadline(turn, now + min(3.0, timeout), None)
        return Deadline(turn, now + timeout, now + timeout * 2 / 3)

    async def _deal_again(self, live: LiveGame) -> None:
        """Deals void straight from the deal (D9: a combination in a hand) are told and
        dealt again, one commit each, until a deal is played or the series is over."""
        series = live.series
        while (
            series is not None
            and live.game.status == "playing"
            and series.deals[-1].finished
            and not series.finished
        ):
            ui, t = live.game_side, live.t
            index = len(series.deals) - 1
            points, penalties = ui.deal_rows(series)
            ops = []
            if not in_private_chat(live.game):  # there the next deal's screen says it
                ops.append(self.group_send(live, ui.deal_end_text(t, live.game, series, index)))
            nxt = series.start_deal(shuffled_deck(rng=self.rng))
            deadline = self._deadline_for(live)
            live.game = replace(live.game, deadline=deadline)
            ops += self._play_ops(live, last_mover=None)
            change = GameChange(
                tally=DealTally(index, tuple(points[index]), tuple(penalties[index])),
                new_deal=DealStart(index + 1, nxt.dealer, tuple(c.code() for c in nxt.deck)),
                deadline=deadline,
                outbox=tuple(ops),
            )
            await self._commit(live, change)

    # --- taps ------------------------------------------------------------------

    async def _playing(self, game_id: int, user_id: int, version: int) -> tuple[LiveGame, Seat]:
        live = await self._load(game_id)
        seat = live.seat_of(user_id)
        if seat is None:
            raise UserError("error.not_seated")
        if live.game.status != "playing" or live.series is None:
            raise UserError("error.game_over")
        if not 0 < version <= live.game.version:
            raise UserError("error.forged")  # no keyboard was ever drawn at that version
        if version < live.game.state_version:
            # A keyboard from before the last move: redraw the current one so the next tap
            # works. (One drawn before a reminder only is as good as the current one.)
            redrawn = (self.hand_op(live, seat),)
            await self.storage.enqueue(redrawn)
            self.copy_hands(live, redrawn)
            self.outbox_ready.set()
            raise UserError("error.stale")
        return live, seat

    async def toggle(self, game_id: int, user_id: int, version: int, code: str) -> bool:
        """A tap on a card: plays it if one tap makes a move of it (True), else selects or
        unselects it (False). ``PICK`` switches the hand between the two. (With a shared
        database the lock has read the selections, whichever instance took the earlier
        taps.)"""
        async with self.lock(game_id, tapper=user_id):
            live, seat = await self._playing(game_id, user_id, version)
            assert live.series is not None
            ui = live.game_side
            deal = live.series.deals[-1]
            live.last_tap[user_id] = self.clock()
            chosen = live.selections.setdefault(user_id, [])
            if code == PICK:
                if user_id in live.picking:
                    live.picking.discard(user_id)
                elif ui.offers_pick(deal, seat.seat):
                    live.picking.add(user_id)
                else:  # the hand shows no such button (a forged one, or taps select anyway)
                    raise UserError("error.forged")
                chosen.clear()
            else:
                try:
                    card = Card.parse(code)
                except CardCodeError:
                    raise UserError("error.forged") from None
                if not ui.in_hand(deal, seat.seat, card):
                    raise UserError("error.not_your_card")
                picking = user_id in live.picking
                action = None if chosen or picking else ui.one_tap(deal, seat.seat, card)
                if action is not None:
                    await self._apply(live, action, seat.seat, autoplayed=False)
                    return True
                if card in chosen:
                    chosen.remove(card)
                elif ui.could_play_together(deal, seat.seat, [*chosen, card]):
                    chosen.append(card)
                else:  # a fast tapper's third card for a two-card answer, two suits in a lead
                    raise UserError("error.does_not_fit")
            stored = [c.code() for c in chosen]
            if user_id in live.picking:
                stored.insert(0, PICK)
            await self.storage.set_selection(game_id, user_id, live.game.version, stored)
            redrawn = (self.hand_op(live, seat),)
            await self.storage.enqueue(redrawn)
            self.copy_hands(live, redrawn)
            self.outbox_ready.set()
            return False

    async def play(self, game_id: int, user_id: int, version: int, kind: str, codes: str) -> None:
        """An action button: ``kind`` and the cards it names, as the game's keyboard drew them."""
        async with self.lock(game_id, tapper=user_id):
            live, seat = await self._playing(game_id, user_id, version)
            assert live.series is not None
            ui = live.game_side
            deal = live.series.deals[-1]
            if seat.seat not in ui.actors(deal):
                raise UserError("error.not_your_turn")
            live.last_tap[user_id] = self.clock()
            try:
                cards = cards_of(codes)
            except CardCodeError:
                raise UserError("error.forged") from None
            try:
                action = ui.parse_action(deal, seat.seat, kind, cards)
            except ForgedAction:
                raise UserError("error.forged") from None
            except EngineError:
                raise UserError("error.illegal") from None
            await self._apply(live, action, seat.seat, autoplayed=False)

    # --- applying an action --------------------------------------------------------

    def _at_once(self, live: LiveGame) -> tuple[Any, int] | None:
        """The move that comes by itself at once for a person (``GameSide.by_itself``),
        and their seat; a computer makes its own choice."""
        assert live.series is not None
        ui = live.game_side
        coming = ui.by_itself(live.series)
        turn = ui.turn(live.series.deals[-1])
        if coming is None or not coming.at_once or turn is None:
            return None
        return None if live.game.seats[turn].bot_level is not None else (coming.action, turn)

    async def _apply(
        self,
        live: LiveGame,
        action: Any,
        mover_seat: int,
        *,
        autoplayed: bool,
        by_itself: bool = False,
    ) -> Game:
        """``by_itself``: the move came by itself (``GameSide.by_itself``), nobody's tap nor
        a stand-in's: the mover's away count stays as it was."""
        series = live.series
        assert series is not None
        ui = live.game_side
        deal = series.deals[-1]
        deal_index = len(series.deals) - 1
        game = live.game
        t = live.t
        # Hands whose buttons mattered before the move are redrawn after it, trick open or not.
        keep = set(ui.actors(deal))
        keep.update(s.seat for s in game.seats if live.selections.get(s.user_id or 0))
        keep.update(s.seat for s in game.seats if s.user_id in live.picking)
        series.apply(action)  # checked by the caller; the cache is dropped if the commit fails
        live.selections.clear()
        live.picking.clear()
        seats = list(game.seats)
        mover = seats[mover_seat]
        if mover.user_id is not None and not by_itself:
            if autoplayed:
                streak = mover.autoplayed + 1
                seats[mover_seat] = replace(
                    mover, autoplayed=streak, away=streak >= self.away_after
                )
            else:
                seats[mover_seat] = replace(mover, autoplayed=0, away=False)
        live.game = game = replace(game, seats=tuple(seats))
        ops: list[OutboxOp] = []
        if mover.user_id is not None:
            ops += self.unping(live, mover.user_id)
        if autoplayed:
            ops.append(self.group_send(live, t("afk.autoplayed", name=render.seat_name(mover))))
            if seats[mover_seat].away and not mover.away:
                ops.append(self.group_send(live, t("afk.away", name=render.seat_name(mover))))
        ops += [self.group_send(live, note) for note in ui.move_notes(t, game, series, action)]
        change: dict[str, Any] = {"move": LoggedMove(deal_index, ui.action_json(action))}
        status = None
        record: str | None = None
        if deal.finished:
            points, penalties = ui.deal_rows(series)
            change["tally"] = DealTally(
                deal_index, tuple(points[deal_index]), tuple(penalties[deal_index])
            )
            record = ui.table_text(t, game, series, turn_seconds=None)  # the deal as it ended
            record += "\n\n" + ui.deal_end_text(t, game, series, deal_index)
            if series.finished:
                status = "finished"
                change["winners"] = ui.winners(series)
                # Stats and ratings are recorded by the commit that finishes the series.
                change["series_end"] = series_end_of(game, ui, series)
            else:
                nxt = series.start_deal(shuffled_deck(rng=self.rng))  # R4 dealer
                change["new_deal"] = DealStart(
                    deal_index + 1, nxt.dealer, tuple(c.code() for c in nxt.deck)
                )
                ops.append(self._deal_record(live, deal_index, record))
        follow = None
        humans = [s for s in game.seats if s.user_id is not None]
        if status is None and humans and all(s.away for s in humans):
            status = "abandoned"
            ops.append(self.group_send(live, t("afk.abandoned")))
        if status is not None:
            change["status"] = status
            change["deadline"] = None
            live.game = replace(game, deadline=None, status=status)
            ops += self._closing_ops(live, status, record if series.finished else None)
            if series.finished:
                # After the table's closing edit, which shows how the last deal went: the
                # group's messages go in the order queued, and a reader told «🏆» first
                # saw the last deal's result only later.
                result_op = self.group_send(
                    live, ui.series_end_text(t, game, series), render.again_keyboard(t, game)
                )
                ops.append(with_series_picture(result_op))
        else:
            deadline = self._deadline_for(live)
            change["deadline"] = deadline
            live.game = replace(game, deadline=deadline)
            follow = self._at_once(live)
            if follow is None:  # else the move that follows at once shows both
                dealt = deal.finished  # the new deal's table comes with its first change
                last = None if by_itself else mover_seat  # (whose turn it is now is pinged)
                ops += self._play_ops(live, last_mover=last, keep=keep, table=not dealt)
        committed = await self._commit(
            live, GameChange(seats=game.seats, outbox=tuple(ops), **change)
        )
        if follow is not None:
            # A second commit, as the move a tap would make (one logged move a commit).
            return await self._apply(live, *follow, autoplayed=False, by_itself=True)
        await self._deal_again(live)
        return committed


def with_app_button(
    t: Any, markup: render.Keyboard | None, base_url: str, game_id: int
) -> render.Keyboard:
    """The hand's keyboard with the Mini App's «🃏 Open table» button below (a ``web_app``
    button: Telegram allows those in private chats only, and the hand is private)."""
    rows = list(markup["inline_keyboard"]) if markup else []
    url = f"{base_url}/webapp/?game={game_id}"
    rows.append([{"text": t("webapp.open_table"), "web_app": {"url": url}}])
    return render.keyboard(rows)


def table_role(series: Any, index: int | None = None) -> str:
    """The role of the group message showing deal ``index`` (0-based; default: the
    current deal): each deal has its own table message (``_deal_record``)."""
    index = len(series.deals) - 1 if index is None else index
    return "table" if index == 0 else f"table:{index + 1}"
