"""Two bot instances on one PostgreSQL database, taking turns at the same game.

An instance whose cached game the other moved on plays the moves logged since
(``catch_up``) instead of rebuilding the game from its whole record; every tap must
still see the game as stored, whichever instance takes it.
"""

from __future__ import annotations

import random

import engine
from bot.games.burkozel import BEAT_OF_KIND
from bot.service import GameService, UserInfo
from engine.cards import Card
from storage import GameChange, open_storage
from tests.test_engine_support import build_deck
from tests.test_service_cache import ALICE, BOB, FixedDeck

KIND_OF_BEAT = {v: k for k, v in BEAT_OF_KIND.items() if k != "o"}


async def test_instances_taking_turns_keep_the_game_as_stored(pg_url: str) -> None:
    stores = [await open_storage(pg_url) for _ in range(2)]
    try:
        services = [GameService(s, bot_username="cards_bot", computer_pause=0) for s in stores]
        ann, bob = UserInfo(1, "Ann"), UserInfo(2, "Bob")
        for user in (ann, bob):
            await stores[0].upsert_user(user.id, user.name, None, None)
            await stores[0].set_user_started(user.id, True)
        game = await services[0].new_game(-100, "Group", None, ann)
        await services[1].join(game.id, bob)
        await services[0].start(game.id, ann.id)
        rng = random.Random(5)
        caught_up = 0
        for n in range(40):
            service = services[n % 2]  # as a load balancer alternates
            stored = await stores[0].get_game(game.id)
            assert stored is not None
            if stored.status != "playing":
                break
            series = engine.from_record(await stores[0].export_record(game.id))
            deal = series.current
            if deal is None or deal.turn is None:
                break
            cached = service._live.get(game.id)
            move = rng.choice(deal.legal_moves())
            user = stored.seats[deal.turn].user_id
            assert user is not None
            codes = ".".join(c.code() for c in sorted(move.cards))
            await service.play(game.id, user, stored.version, KIND_OF_BEAT[move.beat], codes)
            live = service._live.get(game.id)
            if live is not None and live is cached:
                caught_up += 1  # moved on in place, not rebuilt
            if live is not None:
                # The copy in memory is the stored game, and its series the replay's.
                assert live.game == await stores[0].get_game(game.id)
                replay = engine.from_record(await stores[0].export_record(game.id))
                assert engine.to_record(live.series) == engine.to_record(replay)
        assert caught_up > 10
        # A change that logged no move cannot be caught up by moves: the copy is rebuilt.
        this = services[1]
        stored = await stores[0].get_game(game.id)
        assert stored is not None and stored.status == "playing"
        before = this._live[game.id]
        await stores[1].commit(game.id, stored.version, GameChange(deadline=None))
        assert await stores[0].catch_up(game.id, stored.version) is None
        async with this.lock(game.id):
            assert game.id not in this._live or this._live[game.id] is not before
    finally:
        for s in stores:
            await s.close()


async def test_choosing_several_cards_goes_on_whichever_instance_takes_the_tap(
    pg_url: str,
) -> None:
    """Issue 9/15: «➕ Several cards» and the cards chosen after it live in the database, so
    a tap on the other instance selects (it must not play the card alone) and the lead of
    two confirmed on either instance is the one chosen."""
    deck = build_deck(2, 0, [["6H", "7H", "8C", "9C"], ["6S", "7S", "JD", "QD"]], "AD")
    stores = [await open_storage(pg_url) for _ in range(2)]
    try:
        services = [
            GameService(s, bot_username="cards_bot", computer_pause=0, rng=FixedDeck(deck))
            for s in stores
        ]
        for user in (ALICE, BOB):
            await stores[0].upsert_user(user.id, user.name, None, None)
            await stores[0].set_user_started(user.id, True)
        game = await services[0].new_game(-100, "Group", None, ALICE)
        await services[1].join(game.id, BOB)
        game = await services[0].start(game.id, ALICE.id)
        for n, code in enumerate(("+", "6S", "7S")):
            assert await services[n % 2].toggle(game.id, BOB.id, game.version, code) is False
        live = await services[1]._load(game.id)
        assert BOB.id in live.picking  # read back with the cards when the tap came
        await services[1].play(game.id, BOB.id, game.version, "l", "6S.7S")
        series = engine.from_record(await stores[0].export_record(game.id))
        assert [p.cards for p in series.deals[0].table] == [(Card.parse("6S"), Card.parse("7S"))]
    finally:
        for s in stores:
            await s.close()
