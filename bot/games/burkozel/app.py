"""Burkozel in the Mini App: its part of a seat's state JSON (docs/webapp-api.md), built
only from that seat's view (``Deal.view``: never another hand nor, B1, another seat's
closed discard; an onlooker's, ``PUBLIC``, neither hand nor closed discard), and its
legal moves in the kinds the text buttons carry."""

from __future__ import annotations

from typing import Any

from bot.games.base import Json, codes
from bot.games.burkozel import house
from bot.i18n import Texts, plain
from bot.views.render import cards_text
from engine.burkozel.actions import Move, Play
from engine.game import PUBLIC


def app_state(out: Json, t: Texts, series: Any, me: int, playing: bool) -> bool:
    totals = out["tally"]["totals"]
    if house.pairs(series.rules):  # B5
        out["tally"]["teams"] = [totals[0] + totals[2], totals[1] + totals[3]]
    _burkozel(out, t, series, series.deals[-1], me, playing)
    return True


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
    view = deal.view(me)  # (PUBLIC: the group's view, no hand and no closed discard)
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
    out["hand"] = codes(view.hand)  # (none in the public view)
    if playing and me != PUBLIC:
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
