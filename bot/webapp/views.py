"""The Mini App's state JSON of one seat (docs/webapp-api.md), built only from that
seat's engine view (each game fills its part: ``GameSide.app_state``): never another hand, another
seat's closed discard (B1, D3) or the stock's order. The actions listed are the seat's
legal actions, in the same ``kind`` + cards encoding the text buttons carry
(``bot.views.callbacks.PlayCb``, parsed back by ``GameSide.parse_action``).

An onlooker (``watching_state``) gets the public seat's view, what the group's table
shows: no hand, no face of a closed discard, no points the group cannot count."""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.base import codes
from bot.i18n import plain
from bot.json import Json
from bot.service.live import LiveGame
from engine import Card
from engine.game import PUBLIC
from storage import Seat


def _seat_rows(live: LiveGame, me: int) -> list[Json]:
    game = live.game
    partner = (me + 2) % 4 if len(game.seats) == 4 else None
    return [
        {
            "seat": s.seat,
            "name": _name(s),
            "me": s.seat == me,
            "computer": s.bot_level is not None,
            "away": s.away,
            "cards": 0,
            "pile": None,
            "tricks": None,
            "points": None,
            "out": False,
            "partner": False if partner is None else s.seat == partner,
            "score": 0,
        }
        for s in game.seats
    ]


def _name(seat: Seat) -> str:
    # The page puts it in as text (never as HTML); a computer's name has its 🤖 already.
    return seat.name


def watching_state(live: LiveGame) -> Json:
    """The state JSON of an onlooker: the public view, as the group sees the table."""
    out = state(live, PUBLIC)
    out["me"] = None
    out["watching"] = True
    return out


def state(live: LiveGame, me: int, *, selected: Sequence[Card] = ()) -> Json:
    """The state JSON of seat ``me`` of ``live`` as it is now (``PUBLIC``: an onlooker's,
    through ``watching_state``)."""
    game = live.game
    out: Json = {
        "game": game.id,
        "kind": live.game_side.name,
        "version": game.version,
        "status": game.status,
        "finished": game.status != "playing",
        "lang": live.t.language,
        "me": me,
        "watching": False,
        "turn": None,
        "deadline": None,
        "deal": 0,
        "seats": _seat_rows(live, me),
        "trump": None,
        "stock": 0,
        "table": [],
        "last_trick": None,
        "hand": [],
        "selected": [],
        "actions": [],
        "notes": [],
        "tally": None,
    }
    played = live.played
    if played is None:
        return out
    series = played.series
    out["deal"] = len(series.deals)
    totals = list(series.totals)
    for row in out["seats"]:
        row["score"] = totals[row["seat"]]
    out["tally"] = {"deal": len(series.deals), "totals": totals, "teams": None}
    playing = game.status == "playing"
    if not played.app_state(out, live.t, me, playing):
        return out  # a game the Mini App cannot draw: its tally only, played by text
    deadline = game.deadline  # (a negative seat: stopped while the bot is out of the group)
    if playing and out["turn"] is not None and deadline is not None and deadline.seat >= 0:
        human = game.seats[deadline.seat].bot_level is None
        out["deadline"] = deadline.due_at if human else None
    out["notes"] = _notes(live)
    if playing and me != PUBLIC:
        held = set(out["hand"])
        out["selected"] = [c for c in codes(selected) if c in held]
    return out


def _notes(live: LiveGame) -> list[str]:
    """The last finished deal's result (while the next has seen no trick yet), and the
    series' result once it is over: as the group reads them, in plain text."""
    played = live.played
    notes: list[str] = []
    if played is None:
        return notes
    series, t, game = played.series, live.t, live.game
    deal = series.deals[-1]
    finished = [i for i, d in enumerate(series.deals) if d.finished]
    if finished and (deal.finished or deal.trick_number == 0):
        index = finished[-1]
        notes.append(plain(played.deal_end_text(t, game, index)))
    if series.finished:
        notes.append(plain(played.series_end_text(t, game)))
    return notes
