"""What the group and each hand are shown after a change, as outbox operations committed
with it. Every game-specific text goes through the game's bot side (``live.played``,
:class:`bot.games.base.Played`)."""

from __future__ import annotations

from dataclasses import replace

from bot.games.base import DealSeries, private_screen
from bot.i18n import Texts
from bot.json import Json
from bot.service.deadlines import seconds_left
from bot.service.live import LiveGame, in_private_chat
from bot.service.outbox import Outbox
from bot.service.settings import ServiceSettings
from bot.views import render
from bot.views.callbacks import MyCardsCb
from storage import Game, OutboxOp, Seat

# A player who tapped this recently is looking at their hand: the hand's edit shows
# the turn, so no ping (a message that notifies) is sent.
PING_AFTER_IDLE = 30.0


class Screens:
    def __init__(self, outbox: Outbox, settings: ServiceSettings) -> None:
        self.outbox = outbox
        self.settings = settings

    def hand_op(self, live: LiveGame, seat: Seat, *, version: int | None = None) -> OutboxOp:
        """The player's hand redrawn. ``version``: the game version its buttons are for;
        ops committed with a change must pass the version that commit creates
        (``live.game.version + 1``), or the new keyboard would be stale at once."""
        played = live.played
        assert played is not None and seat.user_id is not None
        game = live.game if version is None else replace(live.game, version=version)
        t = live.t
        seconds = self.seconds_left(live) if played.turn() == seat.seat else None
        picking = seat.user_id in live.picking
        text = played.hand_text(
            t, game, live.chat_title, seat.seat, turn_seconds=seconds, picking=picking
        )
        if in_private_chat(game):
            text = self._private_screen(live, game, text)
        selection = live.selections.get(seat.user_id, [])
        markup = played.hand_keyboard(t, game, seat.seat, selection, picking)
        if self.settings.webapp_url is not None:
            markup = with_app_button(t, markup, self.settings.webapp_url, game.id)
        # A hand showing a finished trick is shown before it moves on to the next lead,
        # however fast the moves come (the player's chat takes about an edit a second,
        # shared by every table they sit at): R8, every play reaches every player.
        milestone = played.trick_shown()
        return self.outbox.dm_edit(live, seat.user_id, text, markup, milestone)

    def seconds_left(self, live: LiveGame) -> int | None:
        return seconds_left(live, self.settings.clock())

    def table_keyboard(self, live: LiveGame, *, playing: bool = True) -> render.Keyboard | None:
        """The group's table's buttons: «🂠 My cards» while the game is played (unless the
        chat turned hands in the group off), each player's hand shown there to them alone
        (``hand_here``); «🃏 Table», the Mini App by its direct link, opened in the group
        (a seated player gets their seat there, anyone else watches)."""
        row: list[Json] = []
        if playing and live.settings.group_hands != "off":
            data = MyCardsCb(game=live.game.id).pack()
            row.append({"text": live.t("table.my_cards"), "callback_data": data})
        if self.settings.table_link is not None:
            link = self.settings.table_link(live.game.id)
            row.append({"text": live.t("webapp.table_button"), "url": link})
        return render.keyboard([row]) if row else None

    @staticmethod
    def _private_screen(live: LiveGame, game: Game, hand: str) -> str:
        """A game in the private chat shows the table and the hand in one message
        (``one_message``); while the first round of a deal is played, the deal before's
        result stays above it (a computer's lead would otherwise replace it at once)."""
        played, t = live.played, live.t
        assert played is not None
        text = private_screen(played.table_text(t, game, turn_seconds=None), hand)
        deals = len(played.series.deals)
        if deals > 1 and played.actions_played() < len(game.seats):
            text = played.deal_end_text(t, game, deals - 2) + "\n\n" + text
        return text

    def hand_ops(self, live: LiveGame, only: set[int] | None = None) -> list[OutboxOp]:
        """Every hand (or the seats in ``only``) redrawn, for a commit (so drawn for the
        version it creates)."""
        after = live.game.version + 1
        return [
            self.hand_op(live, s, version=after)
            for s in live.game.seats
            if s.user_id is not None
            and (only is None or s.seat in only)
            and not self.outbox.in_app(live, s.user_id, skipping=True)
        ]

    def _all_in_app(self, live: LiveGame) -> bool:
        users = [s.user_id for s in live.game.seats if s.user_id is not None]
        return bool(users) and all(self.outbox.in_app(live, u) for u in users)

    def play_ops(
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
        played = live.played
        assert played is not None
        ops: list[OutboxOp] = []
        if table and played.trick_open() and self._all_in_app(live):
            # Everyone at the table follows it in the Mini App: the group's table is
            # edited once a trick (when it is taken), not on every play.
            table = False
        private = in_private_chat(live.game)  # one message: the hand shows the table
        if table and not private:  # False: a deal ended; its table shows the result
            seconds = self.seconds_left(live)
            text = played.table_text(live.t, live.game, turn_seconds=seconds)
            role = table_role(played.series)
            ops.append(self.outbox.group_edit(live, role, text, self.table_keyboard(live)))
        only = None
        if keep is not None and last_mover is not None and played.trick_open() and not private:
            only = keep | {last_mover} | set(played.actors())
        ops += self.hand_ops(live, only)
        turn = played.turn()
        # No ping for a moment that passes by itself (Bura's draw): the turn after it pings.
        if turn is not None and turn != last_mover and played.by_itself() is None:
            seat = live.game.seats[turn]
            if seat.user_id is not None and not seat.away and self._idle(live, seat.user_id):
                text = live.t("ping.your_turn", chat=live.chat_title)
                ops += self.outbox.ping(live, seat.user_id, text)
        for other in played.actors():
            seat = live.game.seats[other]
            if other not in (turn, last_mover) and seat.user_id is not None and not seat.away:
                text = live.t("ping.out_of_turn", chat=live.chat_title)
                ops += self.outbox.ping(live, seat.user_id, text)
        return ops

    def deal_record(self, live: LiveGame, index: int, record: str) -> OutboxOp:
        """Deal ``index`` (0-based) just ended and the next one is dealt: its table becomes
        its record, ``record`` (the table as it ended, with the last trick, R8, and the
        result; the result says who starts the next deal). The next deal's table is a
        new message, sent with that deal's first change: the group sees one message per
        deal, the newest at the bottom, and a deal's end costs no operation of its own
        (a result message beside the table edit made n + 1.03 per move)."""
        assert live.played is not None
        series = live.played.series
        if not series.deals[-1].finished:  # else void from the deal: ``deal_again``
            record += "\n\n" + live.t("deal.next", deal=len(series.deals))
        return self.outbox.group_edit(live, table_role(series, index), record)

    def _idle(self, live: LiveGame, user_id: int) -> bool:
        tapped = live.last_tap.get(user_id)
        return tapped is None or self.settings.clock() - tapped > PING_AFTER_IDLE

    def closing_ops(self, live: LiveGame, status: str, record: str | None = None) -> list[OutboxOp]:
        """The table and hands once the game is over; ``record``: the last deal just
        ended (``deal_record``), and its table shows it above the final tally."""
        t = live.t
        ops: list[OutboxOp] = []
        if live.played is None:
            text = render.lobby_closed_text(t, live.game, status)
            ops.append(self.outbox.group_edit(live, "lobby", text))
            return ops
        series = live.played.series
        final = render.final_table_text(t, live.game, series, status)
        if record is not None:
            final = record + "\n\n" + final
        markup = self.table_keyboard(live, playing=False)  # (the page shows the results too)
        ops.append(self.outbox.group_edit(live, table_role(series), final, markup))

        if in_private_chat(live.game):  # its one message shows how it ended
            return [self.outbox.dm_edit(live, live.game.chat_id, final, None)]
        ops.append(self.outbox.group_edit(live, table_role(series), final))
        for seat in live.game.seats:
            if seat.user_id is not None:
                text = render.hand_over_text(t, live.chat_title, status)
                ops.append(self.outbox.dm_edit(live, seat.user_id, text, None))
                ops.append(self.outbox.ping_delete(live, seat.user_id))
        return ops


def with_app_button(
    t: Texts, markup: render.Keyboard | None, base_url: str, game_id: int
) -> render.Keyboard:
    """The hand's keyboard with the Mini App's «🃏 Open table» button below (a ``web_app``
    button: Telegram allows those in private chats only, and the hand is private)."""
    rows = list(markup["inline_keyboard"]) if markup else []
    url = f"{base_url}/webapp/?game={game_id}"
    rows.append([{"text": t("webapp.open_table"), "web_app": {"url": url}}])
    return render.keyboard(rows)


def table_role(series: DealSeries, index: int | None = None) -> str:
    """The role of the group message showing deal ``index`` (0-based; default: the
    current deal): each deal has its own table message (``deal_record``)."""
    index = len(series.deals) - 1 if index is None else index
    return "table" if index == 0 else f"table:{index + 1}"
