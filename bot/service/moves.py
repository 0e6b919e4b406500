"""Applying an action to a game, and ending a game: the engine moved, the change and
what it shows committed together, then whatever follows at once (the move that comes by
itself, a deal void from the deal dealt again)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.games.base import SeatAction
from bot.service.deadlines import deadline_for
from bot.service.games import Games
from bot.service.live import LiveGame, in_private_chat, private_seat
from bot.service.outbox import Outbox
from bot.service.screens import Screens
from bot.service.settings import ServiceSettings
from bot.views import render
from bot.views.picture import with_series_picture
from bot.views.stats import series_end_of
from engine import shuffled_deck
from storage import DealStart, DealTally, Game, GameChange, LoggedMove, OutboxOp


@dataclass(eq=False)
class Moves:
    games: Games
    outbox: Outbox
    screens: Screens
    settings: ServiceSettings

    async def close(self, live: LiveGame, status: str, reason: str | None = None) -> Game:
        live.game = replace(live.game, status=status, deadline=None)
        ops = tuple(self.screens.closing_ops(live, reason or status))
        return await self.games.commit(live, GameChange(status=status, deadline=None, outbox=ops))

    async def deal_again(self, live: LiveGame) -> None:
        """Deals void straight from the deal (D9: a combination in a hand) are told and
        dealt again, one commit each, until a deal is played or the series is over."""
        played = live.played
        while (
            played is not None
            and live.game.status == "playing"
            and played.series.deals[-1].finished
            and not played.series.finished
        ):
            t = live.t
            index = len(played.series.deals) - 1
            points, penalties = played.deal_rows()
            ops = []
            if not in_private_chat(live.game):  # there the next deal's screen says it
                ops.append(self.outbox.group_send(live, played.deal_end_text(t, live.game, index)))
            nxt = played.series.start_deal(shuffled_deck(rng=self.settings.rng))
            deadline = deadline_for(live, self.settings)
            live.game = replace(live.game, deadline=deadline)
            ops += self.screens.play_ops(live, last_mover=None)
            change = GameChange(
                tally=DealTally(index, tuple(points[index]), tuple(penalties[index])),
                new_deal=DealStart(index + 1, nxt.dealer, tuple(c.code() for c in nxt.deck)),
                deadline=deadline,
                outbox=tuple(ops),
            )
            await self.games.commit(live, change)

    def _at_once(self, live: LiveGame) -> tuple[SeatAction, int] | None:
        """The move that comes by itself at once for a person (``Played.by_itself``),
        and their seat; a computer makes its own choice."""
        assert live.played is not None
        coming = live.played.by_itself()
        turn = live.played.turn()
        if coming is None or not coming.at_once or turn is None:
            return None
        return None if live.game.seats[turn].bot_level is not None else (coming.action, turn)

    async def apply(
        self,
        live: LiveGame,
        action: SeatAction,
        mover_seat: int,
        *,
        autoplayed: bool,
        by_itself: bool = False,
    ) -> Game:
        """``by_itself``: the move came by itself (``Played.by_itself``), nobody's tap nor
        a stand-in's: the mover's away count stays as it was."""
        played = live.played
        assert played is not None
        series = played.series
        deal = series.deals[-1]
        deal_index = len(series.deals) - 1
        game = live.game
        t = live.t
        # Hands whose buttons mattered before the move are redrawn after it, trick open or not.
        keep = set(played.actors())
        keep.update(s.seat for s in game.seats if live.selections.get(s.user_id or 0))
        keep.update(s.seat for s in game.seats if s.user_id in live.picking)
        played.apply(action)  # checked by the caller; the cache is dropped if the commit fails
        live.selections.clear()
        live.picking.clear()
        seats = list(game.seats)
        mover = seats[mover_seat]
        if mover.user_id is not None and not by_itself:
            if autoplayed:
                streak = mover.autoplayed + 1
                seats[mover_seat] = replace(
                    mover, autoplayed=streak, away=streak >= self.settings.away_after
                )
            else:
                seats[mover_seat] = replace(mover, autoplayed=0, away=False)
        live.game = game = replace(game, seats=tuple(seats))
        ops: list[OutboxOp] = []
        if mover.user_id is not None:
            ops += self.outbox.unping(live, mover.user_id)
        if autoplayed:
            ops.append(
                self.outbox.group_send(live, t("afk.autoplayed", name=render.seat_name(mover)))
            )
            if seats[mover_seat].away and not mover.away:
                ops.append(
                    self.outbox.group_send(live, t("afk.away", name=render.seat_name(mover)))
                )
        ops += [self.outbox.group_send(live, note) for note in played.move_notes(t, game, action)]
        change = GameChange(move=LoggedMove(deal_index, action.to_json()))
        status = None
        record: str | None = None
        if deal.finished:
            points, penalties = played.deal_rows()
            tally = DealTally(deal_index, tuple(points[deal_index]), tuple(penalties[deal_index]))
            change = replace(change, tally=tally)
            # The deal as it ended; in the private chat as its player saw it (B1, D3).
            viewer = private_seat(game)
            record = played.table_text(t, game, turn_seconds=None, viewer=viewer)
            record += "\n\n" + played.deal_end_text(t, game, deal_index)
            if series.finished:
                status = "finished"
                # Stats and ratings are recorded by the commit that finishes the series.
                ended = series_end_of(game, played)
                change = replace(change, winners=played.winners(), series_end=ended)
            else:
                nxt = series.start_deal(shuffled_deck(rng=self.settings.rng))  # R4 dealer
                next_deal = DealStart(deal_index + 1, nxt.dealer, tuple(c.code() for c in nxt.deck))
                change = replace(change, new_deal=next_deal)
                ops.append(self.screens.deal_record(live, deal_index, record))
        follow = None
        humans = [s for s in game.seats if s.user_id is not None]
        if status is None and humans and all(s.away for s in humans):
            status = "abandoned"
            ops.append(self.outbox.group_send(live, t("afk.abandoned")))
        if status is not None:
            change = replace(change, status=status, deadline=None)
            live.game = replace(game, deadline=None, status=status)
            ops += self.screens.closing_ops(live, status, record if series.finished else None)
            if series.finished:
                # After the table's closing edit, which shows how the last deal went: the
                # group's messages go in the order queued, and a reader told «🏆» first
                # saw the last deal's result only later.
                result_op = self.outbox.group_send(
                    live, played.series_end_text(t, game), render.again_keyboard(t, game)
                )
                ops.append(with_series_picture(result_op))
        else:
            deadline = deadline_for(live, self.settings)
            change = replace(change, deadline=deadline)
            live.game = replace(game, deadline=deadline)
            follow = self._at_once(live)
            if follow is None:  # else the move that follows at once shows both
                dealt = deal.finished  # the new deal's table comes with its first change
                last = None if by_itself else mover_seat  # (whose turn it is now is pinged)
                ops += self.screens.play_ops(live, last_mover=last, keep=keep, table=not dealt)
        committed = await self.games.commit(
            live, replace(change, seats=game.seats, outbox=tuple(ops))
        )
        if follow is not None:
            # A second commit, as the move a tap would make (one logged move a commit).
            return await self.apply(live, *follow, autoplayed=False, by_itself=True)
        await self.deal_again(live)
        return committed
