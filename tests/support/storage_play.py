"""Drive real engine games through the Storage API (shared by storage tests, the kill child
and bench/storage.py). Not a test module itself."""

from __future__ import annotations

import random
import time

from engine import card_codes, shuffled_deck
from engine.burkozel import BASE_RULES, Series, from_record
from storage import (
    UNSET,
    Deadline,
    DealStart,
    DealTally,
    Game,
    GameChange,
    LoggedMove,
    OutboxOp,
    Seat,
    Storage,
)

TURN_SECONDS = 90.0


def outbox_count(version: int) -> int:
    """How many outbox rows the commit that produces ``version`` carries (2 or 3)."""
    return 2 + version % 2


def make_seats(rng: random.Random, players: int, user_base: int) -> tuple[Seat, ...]:
    """Seat 0 is always a person; the rest are people or bots at random."""
    seats = []
    for s in range(players):
        if s == 0 or rng.random() < 0.6:
            uid = user_base + s
            seats.append(Seat(s, uid, None, f"user{uid}"))
        else:
            seats.append(Seat(s, None, rng.choice(("easy", "hard")), f"bot{s}"))
    return tuple(seats)


async def new_game(
    storage: Storage, rng: random.Random, chat_id: int, thread_id: int | None = None
) -> Game:
    players = rng.randint(2, 4)
    seats = make_seats(rng, players, user_base=rng.choice((100, 200, 300)))
    return await storage.create_game(
        chat_id,
        thread_id,
        BASE_RULES.to_dict(),
        created_by=seats[0].user_id or 0,
        seats=seats,
        lobby_expires_at=time.time() + 600,
        outbox=(OutboxOp(chat_id, "send", {"text": "lobby"}, role="lobby"),),
    )


def series_of(record: dict[str, object], game: Game, rng: random.Random) -> Series:
    """The live state rebuilt from the stored move log (a fresh series for a lobby)."""
    if record["deals"]:
        return from_record(record)
    return Series(len(game.seats), BASE_RULES, rng.randrange(len(game.seats)))


def next_change(game: Game, series: Series, rng: random.Random) -> GameChange:
    """One random legal move as a GameChange; ``series`` is advanced to match."""
    new_version = game.version + 1
    new_deal = None
    if series.current is None:
        dealer = series.next_dealer()
        deck = shuffled_deck(rng=rng)
        series.start_deal(deck, dealer)
        new_deal = DealStart(len(series.deals) - 1, dealer, tuple(card_codes(deck)))
    deal = series.current
    assert deal is not None
    move = rng.choice(deal.legal_actions())
    series.apply(move)
    deal_index = len(series.deals) - 1
    tally = None
    if deal.finished:
        result = deal.result()
        tally = DealTally(deal_index, result.points, result.penalties)
    finished = series.finished
    status = "finished" if finished else ("playing" if game.status == "lobby" else None)
    now = time.time()
    deadline = None if finished else Deadline(next_turn(series), now + TURN_SECONDS, now + 60)
    ops = [
        OutboxOp(game.chat_id, "edit", {"v": new_version, "i": 0}, role="table"),
        OutboxOp(game.chat_id, "edit", {"v": new_version, "i": 1}, role=f"hand:{move.seat}"),
    ]
    if outbox_count(new_version) == 3:
        ops.append(OutboxOp(game.chat_id, "send", {"v": new_version, "i": 2}))
    return GameChange(
        status=status,
        first_dealer=series.first_dealer if game.status == "lobby" else None,
        new_deal=new_deal,
        move=LoggedMove(deal_index, move.to_json()),
        tally=tally,
        deadline=deadline,
        lobby_expires_at=None if game.status == "lobby" else UNSET,
        winners=series.result().winners if finished else None,
        outbox=tuple(ops),
    )


def next_turn(series: Series) -> int:
    """The seat that must act next (the leader of the next deal between deals)."""
    deal = series.current
    if deal is not None and deal.turn is not None:
        return deal.turn
    return (series.next_dealer() + 1) % series.players


async def play_to_end(storage: Storage, game: Game, rng: random.Random) -> Game:
    series = series_of(await storage.export_record(game.id), game, rng)
    while game.status in ("lobby", "playing"):
        game = await storage.commit(game.id, game.version, next_change(game, series, rng))
    return game
