"""Bura in the Mini App: its part of a seat's state JSON (docs/webapp-api.md), built
only from that seat's view (``Deal.view``: never another hand nor, D3, another
seat's closed discard; an onlooker's, ``PUBLIC``, neither), and its legal actions in the kinds the text buttons carry (``codec``)."""

from __future__ import annotations

from bot.games.base import codes
from bot.games.bura import codec
from bot.games.bura.keyboard import action_label, label_key, played_cards
from bot.games.labels import without_cards
from bot.i18n import Texts, plain
from bot.json import Json
from engine import Card
from engine.bura.actions import Answer, Lead
from engine.bura.deal import Deal
from engine.bura.series import Series
from engine.bura.view import SeenPlay, View
from engine.game import PUBLIC


def app_state(out: Json, t: Texts, series: Series, me: int, playing: bool) -> bool:
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


def _bura(out: Json, t: Texts, deal: Deal, me: int, playing: bool) -> None:
    view: View = deal.public_view() if me == PUBLIC else deal.view(me)
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


def bura_actions(t: Texts, deal: Deal, me: int) -> list[Json]:
    """Every legal action of ``me`` now (D2-D8), as the text hand offers them, in the
    codec's kinds (``bot.games.bura.codec``: leads and answers with cards, the calls
    without), each with its place among the main button's choices and its label without
    cards (for a button standing for every play of its kind)."""
    actions: list[Json] = []
    for action in deal.legal_actions(me):
        kind = codec.kind_of(action)
        label = plain(action_label(t, deal, action))
        played = isinstance(action, Lead | Answer)
        actions.append(
            {
                "kind": kind,
                "label": label,
                "short": without_cards(t, label_key(deal, action)) if played else label,
                "rank": codec.main_rank(kind),
                "cards": codes(played_cards(action)) if played else None,
            }
        )
    return actions
