"""A game record as the screens are drawn for, without a database."""

from __future__ import annotations

from storage import Game, Seat


def game_of(players: int, rules: dict[str, object] | None = None) -> Game:
    seats = tuple(Seat(i, 100 + i, None, f"P{i} <&>") for i in range(players))
    return Game(
        id=7,
        chat_id=-1,
        thread_id=None,
        status="playing",
        rules=rules or {},
        version=3,
        created_by=100,
        created_at=0.0,
        first_dealer=0,
        seats=seats,
        deadline=None,
        lobby_expires_at=None,
        winners=None,
    )
