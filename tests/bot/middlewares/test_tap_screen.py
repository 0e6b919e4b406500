"""bot/middlewares/tap_screen.py: a person tapping at a person's speed is never shed, a
script's flood is; every button the bot draws is known to the screen."""

from __future__ import annotations

import importlib
import pkgutil

from aiogram.filters.callback_data import CallbackData

import bot
from bot.middlewares.tap_screen import BURST, BUTTONS, TokenBuckets, unpack
from bot.views.callbacks import CardCb, LobbyCb


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_person_picking_cards_fast_move_after_move_is_never_shed() -> None:
    clock = Clock()
    buckets = TokenBuckets(clock=clock)
    # Five taps in a second (four cards chosen, then played), then the next move two
    # seconds later, for ten minutes: far faster than anyone plays for long.
    for _ in range(200):
        for _ in range(5):
            assert buckets.take(1)
            clock.now += 0.2
        clock.now += 2.0
    # Twelve taps as fast as a thumb goes (0.12 s apart), now and then.
    for _ in range(20):
        for _ in range(12):
            assert buckets.take(2)
            clock.now += 0.12
        clock.now += 5.0


def test_a_scripts_flood_gets_a_burst_and_the_rate_then_the_rest_is_shed() -> None:
    clock = Clock()
    buckets = TokenBuckets(burst=20, rate=5.0, clock=clock)
    taken = 0
    for _ in range(1000):  # a thousand taps in one second
        taken += buckets.take(7)
        clock.now += 0.001
    assert 20 + 4 <= taken <= 20 + 5  # the burst, and about a second at the rate
    assert buckets.take(8)  # another person is not held by it
    clock.now += 10
    assert buckets.take(7)  # nor is the flooder for ever


def test_buckets_of_people_gone_quiet_are_forgotten() -> None:
    clock = Clock()
    buckets = TokenBuckets(clock=clock)
    for user in range(5000):
        buckets.take(user)
        clock.now += 0.01  # each bucket is full again 0.2 s after its one tap
    assert len(buckets._buckets) < 1100


def test_unpack_reads_buttons_as_the_handlers_filters_do() -> None:
    assert unpack(CardCb(game=5, v=3, card="AS").pack()) == CardCb(game=5, v=3, card="AS")
    assert unpack(LobbyCb(game=5, action="join").pack()) == LobbyCb(game=5, action="join")
    for junk in (None, "", "t:", "t:0:1:AS", "t:5:1", "t:5:x:AS", "zz:1", "l:1:join:more"):
        assert unpack(junk) is None, junk


def test_taps_made_while_the_bot_was_away_arrive_together_and_are_not_shed() -> None:
    """A restart or an outage of half a minute: a tap every second or two waited at
    Telegram, and all of them are read at once; the newest is the one that counts."""
    clock = Clock()
    buckets = TokenBuckets(clock=clock)
    assert BURST >= 25
    assert all(buckets.take(3) for _ in range(25))


def test_every_kind_of_button_the_bot_draws_is_known_to_the_screen() -> None:
    """Data the screen cannot unpack is refused as not valid: a new kind of button left
    out of BUTTONS would be refused before any handler saw it."""
    for module in pkgutil.walk_packages(bot.__path__, "bot."):
        importlib.import_module(module.name)
    drawn = {
        factory for factory in _subclasses(CallbackData) if factory.__module__.startswith("bot.")
    }
    assert drawn and drawn <= set(BUTTONS)


def test_every_kind_of_button_has_a_prefix_of_its_own() -> None:
    """A tap is routed by its data's prefix: two kinds sharing one would send one's taps
    to the other's handler («🂠 My cards» once answered «Sending the record.»)."""
    prefixes = [factory.__prefix__ for factory in BUTTONS]
    assert len(prefixes) == len(set(prefixes)), sorted(prefixes)


def _subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= _subclasses(sub)
    return found
