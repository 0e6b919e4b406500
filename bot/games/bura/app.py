"""Bura in the Mini App: its part of a seat's state JSON (docs/webapp-api.md), built
only from that seat's view (``BuraDeal.view``: never another hand nor, D3, another
seat's closed discard; an onlooker's, ``PUBLIC``, neither), and its legal actions in the kinds the text buttons carry."""

from __future__ import annotations

from typing import Any

from bot.games.base import Json, codes
from bot.i18n import Texts, plain
from bot.views.render import cards_text
from engine import Card
from engine.bura.actions import Answer, Dave, DaveReply, Declare, Lead, Show
from engine.bura.deal import BuraDeal
from engine.bura.view import BuraView, SeenPlay
from engine.game import PUBLIC


def app_state(out: Json, t: Texts, series: Any, me: int, playing: bool) -> bool:
    _bura(out, t, series.deals[-1], me, playing)
    return True


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
    view: BuraView = deal.public_view() if me == PUBLIC else deal.view(me)
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
    out["hand"] = codes(view.hand)  # (none in the public view)
    if playing and me != PUBLIC:
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
                key = "bura.act_pass_last" if deal.last_trick_taken() else "bura.act_draw"
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
