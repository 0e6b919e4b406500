"""Burkozel in the Mini App: its part of a seat's state JSON (docs/webapp-api.md), built
only from that seat's view (``Deal.view``: never another hand nor, B1, another seat's
closed discard; an onlooker's, ``PUBLIC``, neither hand nor closed discard), and its
legal moves in the kinds the text buttons carry (``codec``)."""

from __future__ import annotations

from bot.games.base import codes
from bot.games.burkozel import codec, house
from bot.games.burkozel.keyboard import PLAY_LABELS
from bot.games.labels import without_cards
from bot.i18n import Texts, plain
from bot.json import Json
from bot.views.render import cards_text
from engine.burkozel import Deal, Series
from engine.burkozel.actions import Play
from engine.game import PUBLIC


def app_state(out: Json, t: Texts, series: Series, me: int, playing: bool) -> bool:
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


def _burkozel(out: Json, t: Texts, series: Series, deal: Deal, me: int, playing: bool) -> None:
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


def burkozel_actions(t: Texts, deal: Deal, me: int) -> list[Json]:
    """Every legal move of ``me`` now (R6, R7; B6 shows C1/C2 and leads out of turn
    C3/C4), as the text hand offers them, in the codec's kinds (``bot.games.burkozel
    .codec``), each with its place among the main button's choices and its label without
    cards (for a button standing for every play of its kind)."""
    if me not in deal.actors():
        return []
    actions: list[Json] = []
    for move in deal.legal_actions(me):
        kind = codec.kind_of(move)
        if move.show is not None:
            label = plain(t(f"house.show_{move.show}"))
            actions.append(_action(kind, label, label, None))
            continue
        chosen = tuple(sorted(move.cards))
        key = "house.stop" if move.stop else PLAY_LABELS[move.beat]
        label = plain(t(key, cards=cards_text(chosen, deal.trump)))
        actions.append(_action(kind, label, without_cards(t, key), codes(chosen)))
    return actions


def _action(kind: str, label: str, short: str, cards: list[str] | None) -> Json:
    return {
        "kind": kind,
        "label": label,
        "short": short,
        "rank": codec.main_rank(kind),
        "cards": cards,
    }
