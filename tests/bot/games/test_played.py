"""A game in play (``bot.games.base.Played``) takes back only the actions it handed out:
the flows hold every game alike, so an action that reached the wrong game (another
table's, another game's) is refused before the engine sees it, and the series is
unchanged."""

from __future__ import annotations

import random

import pytest

from bot.games.base import ForgedAction
from bot.games.bura.game import BURA_BOT
from bot.games.burkozel.game import BURKOZEL_BOT
from bot.i18n import texts
from engine import shuffled_deck
from storage import Game, Seat


def test_a_game_refuses_another_games_action_and_changes_nothing() -> None:
    burkozel = BURKOZEL_BOT.start(2, {}, 0)
    burkozel.series.start_deal(shuffled_deck(rng=random.Random(1)))
    bura = BURA_BOT.start(2, {"game": "bura"}, 0)
    bura.series.start_deal(shuffled_deck(rng=random.Random(1)))
    turn = bura.turn()
    assert turn is not None
    foreign = bura.stand_in_action(turn)  # a Bura lead: a seat and cards, as a move has
    before = burkozel.record()
    seats = (Seat(0, 1, None, "A"), Seat(1, 2, None, "B"))
    game = Game(1, -100, None, "playing", {}, 1, seats, 1, 0.0, 0, None, None, None)
    with pytest.raises(ForgedAction):
        burkozel.apply(foreign)
    with pytest.raises(ForgedAction):
        burkozel.move_notes(texts("en"), game, foreign)
    assert burkozel.record() == before
    # Its own action, handed back, is played.
    own = burkozel.stand_in_action(burkozel.turn() or 0)
    burkozel.apply(own)
    assert burkozel.record()["deals"][0]["moves"] == [own.to_json()]
