"""Burkozel's hand keyboard: a button per card (a tap plays it, or selects it), the plays
of several cards listed as buttons of their own, the ``PICK`` switch, the buttons that
confirm a selection, and under B6 the combinations (C1-C4); with the plays each reaches.
Pure: state in, buttons out."""

from __future__ import annotations

from collections.abc import Sequence

from bot.games.base import PICK
from bot.games.burkozel import codec, house
from bot.games.taps import listed_plays, pick_button, pick_offered, tap_play
from bot.i18n import Texts
from bot.views.callbacks import card_data, play_data
from bot.views.render import Keyboard, button, card_text, cards_text, keyboard
from engine import Card
from engine.burkozel import Action, Deal
from engine.tricks import covers
from storage import Game

PLAY_LABELS: dict[bool | None, str] = {
    None: "hand.act_lead",
    True: "hand.act_beat",
    False: "hand.act_discard",
}
"""The label of a play of cards by its ``beat``: a lead (R6), a beat or a discard (R7)."""


def hand_keyboard(
    t: Texts,
    game: Game,
    deal: Deal,
    seat: int,
    selection: Sequence[Card],
    picking: bool = False,
) -> Keyboard | None:
    view = deal.view(seat)
    if not view.hand:
        return None
    version = game.version
    card_row = [
        button(
            ("✅ " if card in selection else "") + card_text(card, view.trump),
            card_data(game.id, version, card.code()),
        )
        for card in view.hand
    ]
    rows = [card_row]
    listed = [] if picking else listed_plays(card_plays(deal, seat), deal.trump)
    shown = [play_button(t, game, deal, move) for move in listed]
    rows += [shown[i : i + 2] for i in range(0, len(shown), 2)]  # short labels: two a row
    if view.turn == seat and selection:
        rows += [[b] for b in action_buttons(t, game, deal, seat, selection) if b not in shown]
    if picking or offers_pick(deal, seat):
        label = pick_button(t, lead=not view.table, picking=picking)
        rows.append([button(label, card_data(game.id, version, PICK))])
    for move in house.combination_moves(deal, seat):  # C1-C4, only while legal
        if move.show is not None:
            text = t(f"house.show_{move.show}")
            # No cards: the engine knows which combination it is (a name here was parsed
            # as card codes and refused every show as a forged button).
            rows.append([button(text, play_data(game.id, version, codec.SHOW, ""))])
        else:
            codes = ".".join(c.code() for c in move.cards)
            text = t("house.stop", cards=cards_text(move.cards, view.trump))
            rows.append([button(text, play_data(game.id, version, codec.STOP, codes))])
    return keyboard(rows)


def card_plays(deal: Deal, seat: int) -> list[Action]:
    """The seat's legal plays of cards on its turn (no shows, no C3/C4 stop)."""
    if deal.turn != seat:
        return []
    return [m for m in deal.legal_actions() if m.show is None and not m.stop]


def offers_pick(deal: Deal, seat: int) -> bool:
    """The hand shows the «➕ Several cards» / «🗑 Discard, don't beat» switch."""
    return pick_offered(card_plays(deal, seat), deal.hand(seat))


def one_tap_move(deal: Deal, seat: int, card: Card) -> Action | None:
    """The move a tap on ``card`` makes at once: a lead of it alone (R6), or an answer to
    one card, beating with it if it can (R7), else discarding it; None for an answer of
    several cards, which is chosen and confirmed."""
    return tap_play(card_plays(deal, seat), card)


def card_taps(deal: Deal, move: Action) -> tuple[list[str], bool]:
    """The card buttons (codes, ``PICK`` first if needed) a person taps to make ``move``,
    and whether the last of them makes it (else a button confirms; no card at all: the
    move is a listed button of its own): for drivers that play through the keyboard,
    like the benchmarks."""
    seat = deal.turn
    assert seat is not None
    if len(move.cards) == 1 and one_tap_move(deal, seat, move.cards[0]) == move:
        return [move.cards[0].code()], True
    if move in listed_plays(card_plays(deal, seat)):
        return [], False
    codes = [c.code() for c in move.cards]
    if offers_pick(deal, seat):
        codes.insert(0, PICK)
    return codes, False


def play_button(t: Texts, game: Game, deal: Deal, move: Action) -> dict[str, str]:
    """A listed play of several cards (``listed_plays``): a lead, a beat or a discard."""
    chosen = tuple(sorted(move.cards))
    label = t(PLAY_LABELS[move.beat], cards=cards_text(chosen, deal.trump))
    codes = ".".join(c.code() for c in chosen)
    return button(label, play_data(game.id, game.version, codec.kind_of(move), codes))


def action_buttons(
    t: Texts, game: Game, deal: Deal, seat: int, selection: Sequence[Card]
) -> list[dict[str, str]]:
    """Only the actions legal for this selection (R6, R7)."""
    chosen = tuple(sorted(selection))
    codes = ".".join(c.code() for c in chosen)
    shown = cards_text(chosen, deal.trump)
    buttons = []

    def act(kind: str, key: str) -> dict[str, str]:
        return button(t(key, cards=shown), play_data(game.id, game.version, kind, codes))

    if not deal.table:
        try:
            deal.check(Action(seat, chosen))
            buttons.append(act(codec.LEAD, PLAY_LABELS[None]))
        except ValueError:
            pass
    elif deal.lead_size() == len(chosen):
        claim = next(p.cards for p in deal.table if p.seat == deal.claimant)
        if covers(chosen, claim, deal.trump):
            buttons.append(act(codec.BEAT, PLAY_LABELS[True]))
        buttons.append(act(codec.DISCARD, PLAY_LABELS[False]))
    return buttons
