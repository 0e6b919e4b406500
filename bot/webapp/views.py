"""The Mini App's state JSON of one seat (docs/webapp-api.md), built only from that
seat's engine view (``Deal.view`` / ``BuraDeal.view``): never another hand, another
seat's closed discard (B1, D3) or the stock's order. The actions listed are the seat's
legal actions, in the same ``kind`` + cards encoding the text buttons carry
(``bot.views.callbacks.PlayCb``, parsed back by ``BotGame.parse_action``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.games.bura.game import last_trick_taken
from bot.games.burkozel import house
from bot.i18n import Texts, plain
from bot.service.core import LiveGame
from bot.views.render import cards_text
from engine import Card
from engine.bura.actions import Answer, Dave, DaveReply, Declare, Lead, Show
from engine.bura.deal import BuraDeal
from engine.bura.view import BuraView, SeenPlay
from engine.burkozel.actions import Move, Play
from storage import Seat

Json = dict[str, Any]


def codes(cards: Sequence[Card]) -> list[str]:
    return [c.code() for c in cards]


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
    # The page puts it in as text (never as HTML).
    return seat.name if seat.bot_level is None else f"🤖 {seat.name}"


def state(live: LiveGame, me: int, *, selected: Sequence[Card] = ()) -> Json:
    """The state JSON of seat ``me`` of ``live`` as it is now."""
    game = live.game
    out: Json = {
        "game": game.id,
        "kind": live.ui.name,
        "version": game.version,
        "status": game.status,
        "finished": game.status != "playing",
        "lang": live.t.language,
        "me": me,
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
    series = live.series
    if series is None:
        return out
    deal = series.deals[-1]
    out["deal"] = len(series.deals)
    totals = list(series.totals)
    for row in out["seats"]:
        row["score"] = totals[row["seat"]]
    teams = None
    if live.ui.name == "burkozel" and house.pairs(series.rules):  # B5
        teams = [totals[0] + totals[2], totals[1] + totals[3]]
    out["tally"] = {"deal": len(series.deals), "totals": totals, "teams": teams}
    playing = game.status == "playing"
    if live.ui.name == "bura":
        _bura(out, live.t, deal, me, playing)
    elif live.ui.name == "burkozel":
        _burkozel(out, live.t, series, deal, me, playing)
    else:  # a game the Mini App cannot draw yet: its tally only, played by text
        return out
    deadline = game.deadline
    if playing and out["turn"] is not None and deadline is not None:
        human = game.seats[deadline.seat].bot_level is None
        out["deadline"] = deadline.due_at if human else None
    out["notes"] = _notes(live)
    if playing:
        held = set(out["hand"])
        out["selected"] = [c for c in codes(selected) if c in held]
    return out


def _notes(live: LiveGame) -> list[str]:
    """The last finished deal's result (while the next has seen no trick yet), and the
    series' result once it is over: as the group reads them, in plain text."""
    series = live.series
    notes: list[str] = []
    if series is None:
        return notes
    ui, t, game = live.ui, live.t, live.game
    deal = series.deals[-1]
    finished = [i for i, d in enumerate(series.deals) if d.finished]
    if finished and (deal.finished or deal.trick_number == 0):
        index = finished[-1]
        notes.append(plain(ui.deal_end_text(t, game, series, index)))
    if series.finished:
        notes.append(plain(ui.series_end_text(t, game, series)))
    return notes


# --- Burkozel ----------------------------------------------------------------------


def _play_json(play: Play, me: int, closed_rule: bool, role: str | None = None) -> Json:
    if role is None:
        role = {None: "lead", True: "beat", False: "discard"}[play.declared_beat]
    return {
        "seat": play.seat,
        "cards": codes(play.cards),
        "closed": play.face_down,
        "role": role,
        "mine_closed": closed_rule and play.seat == me and play.declared_beat is False,
    }


def _burkozel(out: Json, t: Texts, series: Any, deal: Any, me: int, playing: bool) -> None:
    view = deal.view(me)
    closed_rule = view.rules.discards == "closed" and not view.finished
    out["turn"] = view.turn if playing else None
    out["trump"] = {
        "suit": view.trump.value,
        "card": view.trump_card.code(),
        "in_stock": view.trump_card_in_stock and view.stock_size > 0,
    }
    out["stock"] = view.stock_size
    seats_in = set(series.seats_in()) if series.elimination else None
    for row in out["seats"]:
        s = row["seat"]
        row["cards"] = view.hand_sizes[s]
        row["pile"] = len(deal.won_cards[s])  # how many cards a seat took is public (R8)
        row["points"] = None if view.points is None else view.points[s]
        row["out"] = seats_in is not None and s not in seats_in
    out["table"] = [_play_json(p, me, closed_rule) for p in view.table]
    if view.last_trick is not None and not view.table:
        trick = view.last_trick
        masked = any(p.face_down for p in trick.plays)
        out["last_trick"] = {
            "taker": trick.winner,
            "points": None if masked else trick.points,
            "plays": [_play_json(p, me, closed_rule) for p in trick.plays],
        }
    out["hand"] = codes(view.hand)
    if playing:
        out["actions"] = burkozel_actions(t, deal, me)


def burkozel_actions(t: Texts, deal: Any, me: int) -> list[Json]:
    """Every legal move of ``me`` now (R6, R7; B6 shows C1/C2 and leads out of turn
    C3/C4), as the text hand offers them: kinds l/b/d/o/s (``BurkozelBot.parse_action``)."""
    if me not in deal.actors():
        return []
    actions: list[Json] = []
    moves: list[Move] = deal.legal_moves(me)
    for move in moves:
        if move.show is not None:
            actions.append(
                {"kind": "s", "label": plain(t(f"house.show_{move.show}")), "cards": None}
            )
            continue
        chosen = tuple(sorted(move.cards))
        shown = cards_text(chosen, deal.trump)
        if move.stop:
            kind, label = "o", t("house.stop", cards=shown)
        elif move.beat is None:
            kind, label = "l", t("hand.act_lead", cards=shown)
        elif move.beat:
            kind, label = "b", t("hand.act_beat", cards=shown)
        else:
            kind, label = "d", t("hand.act_discard", cards=shown)
        actions.append({"kind": kind, "label": plain(label), "cards": codes(chosen)})
    return actions


# --- Bura --------------------------------------------------------------------------


def _seen_json(play: SeenPlay, me: int) -> Json:
    if play.beat is None:
        role = "stop" if play.stop else "lead"
    else:
        role = "beat" if play.beat else "discard"
    hidden = play.cards is None
    return {
        "seat": play.seat,
        "cards": [] if play.cards is None else codes(play.cards),
        "closed": play.count if hidden else 0,
        "role": role,
        # Bura's SeenPlay shows a face-down discard's cards to its owner only.
        "mine_closed": False,
    }


def _bura(out: Json, t: Texts, deal: BuraDeal, me: int, playing: bool) -> None:
    view: BuraView = deal.view(me)
    out["turn"] = view.turn if playing else None
    out["trump"] = {
        "suit": view.trump.value,
        "card": view.trump_card.code(),
        "in_stock": view.trump_card_in_stock,
    }
    out["stock"] = view.stock_size
    for row in out["seats"]:
        s = row["seat"]
        row["cards"] = view.hand_sizes[s]
        pile = view.piles[s]
        row["pile"] = len(pile.open_cards) + len(pile.closed_by)
        row["tricks"] = len({pc.trick for pc in deal.piles[s]})  # (public: tricks taken)
        if view.result is not None:  # D3: the points are public once the deal is over
            row["points"] = view.result.points[s]
    mine = {c for c, _owner in view.my_closed}
    out["table"] = [_bura_play(p, me, mine) for p in view.table]
    if view.last_trick and not view.table:
        taker = deal.last_taker
        out["last_trick"] = {
            "taker": taker,
            "points": None,
            "plays": [_bura_play(p, me, mine) for p in view.last_trick],
        }
    out["hand"] = codes(view.hand)
    if playing:
        out["actions"] = bura_actions(t, deal, me)


def _bura_play(play: SeenPlay, me: int, mine: set[Card]) -> Json:
    row = _seen_json(play, me)
    if play.seat == me and play.cards is not None and play.beat is False:
        row["mine_closed"] = any(c in mine for c in play.cards)
    return row


def bura_actions(t: Texts, deal: BuraDeal, me: int) -> list[Json]:
    """Every legal action of ``me`` now (D2-D8), as the text hand offers them, in the
    kinds ``BuraBot.parse_action`` reads: l/b/d/s with cards; v/n/B/M/D/a/f without."""
    actions: list[Json] = []
    closed = deal.rules.discards == "closed"
    for action in deal.legal_actions(me):
        if isinstance(action, Lead | Answer):
            chosen = tuple(sorted(action.cards))
            shown = cards_text(chosen, deal.trump)
            if isinstance(action, Lead):
                kind = "s" if action.stop else "l"
                key = "bura.act_stop" if action.stop else "hand.act_lead"
            elif action.beat:
                kind, key = "b", "hand.act_beat"
            else:
                kind = "d"
                key = "bura.act_discard_closed" if closed else "hand.act_discard"
            label = t(key, cards=shown)
            actions.append({"kind": kind, "label": plain(label), "cards": codes(chosen)})
            continue
        if isinstance(action, Declare):
            if action.declare:
                kind, label = "v", t("bura.act_declare")
            else:
                key = "bura.act_pass_last" if last_trick_taken(deal) else "bura.act_draw"
                kind, label = "n", t(key)
        elif isinstance(action, Show):
            kind = "B" if action.kind == "bura" else "M"
            label = t(f"bura.act_show_{action.kind}")
        elif isinstance(action, Dave):
            kind, label = "D", t("bura.act_dave")
        elif isinstance(action, DaveReply):
            key = "bura.act_accept" if action.accept else "bura.act_fold"
            kind, label = ("a" if action.accept else "f"), t(key, n=deal.stakes * 2)
        else:  # pragma: no cover - a new engine action the app does not know yet
            continue
        actions.append({"kind": kind, "label": plain(label), "cards": None})
    return actions
