"""Bura's hand keyboard: a button per card (a tap plays it, or selects it), the plays of
several cards listed as buttons of their own, the ``PICK`` switch, the button that
confirms a selection, and the calls (D5-D8, D11: «Стоп!», declaring, the draw, shows,
даве); with the plays each reaches and every action's label, which the Mini App shows
too. Pure: state in, buttons out."""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.base import PICK
from bot.games.bura import codec
from bot.games.taps import listed_plays, pick_button, pick_offered, tap_play
from bot.i18n import Texts
from bot.views.callbacks import card_data, play_data
from bot.views.render import Keyboard, button, card_text, cards_text, keyboard
from engine.bura.actions import Action, Answer, Dave, DaveReply, Declare, Lead, Show
from engine.bura.deal import ANSWER, LEAD, Deal
from engine.bura.series import Series
from engine.cards import Card
from storage import Game


def card_actions(deal: Deal, seat: int) -> list[Lead | Answer]:
    """The seat's legal plays of cards on its own turn (not «Стоп!»)."""
    if deal.turn != seat or deal.phase not in (LEAD, ANSWER):
        return []
    return [
        a
        for a in deal.legal_actions(seat)
        if isinstance(a, Answer) or (isinstance(a, Lead) and not a.stop)
    ]


def offers_pick(deal: Deal, seat: int) -> bool:
    """The hand shows the «➕ Several cards» / «🗑 Discard, don't beat» switch."""
    return pick_offered(card_actions(deal, seat), deal.hands[seat])


def one_tap_action(deal: Deal, seat: int, card: Card) -> Action | None:
    """A tap plays ``card`` at once: a lead of it alone, or an answer to one card that
    beats with it if it can, else discards it (face down under D3's closed discards);
    None for an answer of several cards, which is chosen and confirmed."""
    return tap_play(card_actions(deal, seat), card)


def played_cards(action: Action) -> tuple[Card, ...]:
    """The cards an action puts on the table, in the order buttons carry them."""
    return tuple(sorted(action.cards)) if isinstance(action, Lead | Answer) else ()


def label_key(deal: Deal, action: Action) -> str:
    """The text key of the action's button."""
    match action:
        case Lead(stop=True):
            return "bura.act_stop"
        case Lead():
            return "hand.act_lead"
        case Answer(beat=True):
            return "hand.act_beat"
        case Answer():
            closed = deal.rules.discards == "closed"
            return "bura.act_discard_closed" if closed else "hand.act_discard"
        case Declare(declare=True):
            return "bura.act_declare"
        case Declare():  # the draw also comes by itself: this only saves the wait
            return "bura.act_pass_last" if deal.last_trick_taken() else "bura.act_draw"
        case Show(kind=kind):
            return f"bura.act_show_{kind}"
        case Dave():
            return "bura.act_dave"
        case DaveReply(accept=accept):
            return "bura.act_accept" if accept else "bura.act_fold"
    raise TypeError(action)


def action_label(t: Texts, deal: Deal, action: Action) -> str:
    key = label_key(deal, action)
    if isinstance(action, Lead | Answer):
        return t(key, cards=cards_text(played_cards(action), deal.trump))
    if isinstance(action, DaveReply):
        return t(key, n=deal.stakes * 2)
    return t(key)


def hand_keyboard(
    t: Texts,
    game: Game,
    series: Series,
    seat: int,
    selection: Sequence[Card],
    picking: bool = False,
) -> Keyboard | None:
    deal = series.deals[-1]
    hand = sorted(deal.hands[seat])
    legal = deal.legal_actions(seat)
    if not (hand or legal):
        return None  # (a taker holding no card still declares or draws, D5)
    version = game.version

    def action_button(action: Action) -> dict[str, str]:
        codes = ".".join(c.code() for c in played_cards(action))
        data = play_data(game.id, version, codec.kind_of(action), codes)
        return button(action_label(t, deal, action), data)

    cards = [
        button(
            ("✅ " if card in selection else "") + card_text(card, deal.trump),
            card_data(game.id, version, card.code()),
        )
        for card in hand
    ]
    rows = [cards] if cards else []
    own_plays = card_actions(deal, seat)
    listed = [] if picking else [action_button(a) for a in listed_plays(own_plays, deal.trump)]
    rows += [listed[i : i + 2] for i in range(0, len(listed), 2)]  # short labels: two a row
    chosen = tuple(sorted(selection))
    if chosen:
        for action in own_plays:
            if played_cards(action) == chosen and action_button(action) not in listed:
                rows.append([action_button(action)])
    if picking or offers_pick(deal, seat):
        label = pick_button(t, lead=deal.phase == LEAD, picking=picking)
        rows.append([button(label, card_data(game.id, version, PICK))])
    # The calls, below: «Стоп!» (a lead out of turn), declaring, the draw, shows, даве.
    calls = [
        a for a in legal if (isinstance(a, Lead) and a.stop) or not isinstance(a, Lead | Answer)
    ]
    rows += [[action_button(a)] for a in calls]
    return keyboard(rows)
