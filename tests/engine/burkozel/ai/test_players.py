"""Computer players: legal, seeded, blind to hidden cards, and ordered in strength."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.burkozel.ai import (
    LEVELS,
    GreedyPlayer,
    Player,
    RandomPlayer,
    StrongPlayer,
    make_player,
    safe_move,
)
from engine.burkozel.deal import Action, Deal, DealResult
from engine.cards import DECK, Card, shuffled_deck
from tests.support.sim import swapped_twin

Factory = Callable[[int], Player]

FACTORIES: dict[str, Factory] = {
    "random": lambda seed: RandomPlayer(seed),
    "greedy": lambda seed: GreedyPlayer(seed),
    "easy": lambda seed: make_player("easy", seed),
    "strong-tiny": lambda seed: StrongPlayer(seed, worlds=2),
}


def play_deal(
    players: Sequence[Player], deck: Sequence[Card], dealer: int = 0
) -> tuple[DealResult, list[Action]]:
    deal = Deal.start(len(players), deck, dealer)
    while not deal.finished:
        seat = deal.turn
        assert seat is not None
        legal = deal.legal_actions()
        move = players[seat].choose(deal.view(seat), legal)
        assert move in legal
        deal.apply(move)
    return deal.result(), list(deal.history)


@pytest.mark.parametrize("name", sorted(FACTORIES))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_players_only_play_legal_moves(name: str, n: int) -> None:
    for game in range(6 if name == "strong-tiny" else 25):
        seats = [FACTORIES[name](game * 10 + s) for s in range(n)]
        play_deal(seats, shuffled_deck(seed=f"{name}{n}{game}"), game % n)


@settings(max_examples=30, deadline=None)
@given(st.permutations(DECK), st.integers(2, 4), st.integers(0, 3))
def test_safe_move_is_legal_and_deterministic(deck: list[Card], n: int, dealer: int) -> None:
    deal = Deal.start(n, deck, dealer % n)
    while not deal.finished:
        seat = deal.turn
        assert seat is not None
        legal = deal.legal_actions()
        view = deal.view(seat)
        move = safe_move(view, legal)
        assert move in legal
        assert safe_move(view, list(reversed(legal))) == move
        deal.apply(move)


@pytest.mark.parametrize("level", LEVELS)
def test_make_player_levels_play_legal_moves(level: str) -> None:
    seats = [make_player(level, 1), make_player(level, 2)]
    if level == "hard":
        seats = [StrongPlayer(1, worlds=3), StrongPlayer(2, worlds=3)]  # keep the suite fast
    play_deal(seats, shuffled_deck(seed=level))


def test_make_player_rejects_unknown_level() -> None:
    with pytest.raises(ValueError, match="unknown level"):
        make_player("grandmaster", 0)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_same_seed_same_game(name: str) -> None:
    deck = shuffled_deck(seed=99)
    first = play_deal([FACTORIES[name](5), FACTORIES[name](6)], deck)
    again = play_deal([FACTORIES[name](5), FACTORIES[name](6)], deck)
    assert first == again


def test_decision_does_not_depend_on_history_of_calls() -> None:
    """A decision is a function of (seed, view): a resumed bot decides the same."""
    deal = Deal.start(2, shuffled_deck(seed=3), 0)
    for _ in range(5):
        deal.apply(safe_move(deal.view(deal.turn or 0), deal.legal_actions()))
    seat = deal.turn
    assert seat is not None
    used = StrongPlayer(7, worlds=4)
    other = Deal.start(2, shuffled_deck(seed=4), 0)
    used.choose(other.view(other.turn or 0), other.legal_actions())  # some earlier decision
    fresh = StrongPlayer(7, worlds=4)
    view, legal = deal.view(seat), deal.legal_actions()
    assert used.choose(view, legal) == fresh.choose(view, legal)


@pytest.mark.parametrize("n", [2, 3])
def test_decisions_ignore_hidden_cards(n: int) -> None:
    rng = random.Random(n)
    players: dict[str, Player] = {
        "greedy": GreedyPlayer(1),
        "easy": make_player("easy", 1),
        "random": RandomPlayer(1),
        "strong": StrongPlayer(1, worlds=6),
        "normal": make_player("normal", 1),  # exact worlds, pruning
        "pruning": StrongPlayer(1, worlds=34, belief=0.05, prune=1.0),
        "informed": StrongPlayer(1, worlds=6, rollout="informed"),
        "inference": StrongPlayer(1, worlds=6, infer=1.0, exact_worlds=12),
        "halving": StrongPlayer(1, worlds=6, halving=True),
    }
    checked = 0
    for game in range(40):
        deal = Deal.start(n, shuffled_deck(seed=game), game % n)
        for _ in range(rng.randrange(20)):
            if deal.finished:
                break
            deal.apply(safe_move(deal.view(deal.turn or 0), deal.legal_actions()))
        if deal.finished:
            continue
        seat = deal.turn
        assert seat is not None
        twin = swapped_twin(deal, seat, rng)
        if twin is None:
            continue
        assert twin.deck != deal.deck
        hidden_differs = [twin.hand(s) for s in range(n)] != [deal.hand(s) for s in range(n)]
        assert hidden_differs or twin._stock != deal._stock
        for name, player in players.items():
            a = player.choose(deal.view(seat), deal.legal_actions())
            b = player.choose(twin.view(seat), twin.legal_actions())
            # The twin's internal hand order may differ, so compare the cards as a set.
            assert (sorted(a.cards), a.beat) == (sorted(b.cards), b.beat), name
        checked += 1
    assert checked >= 15


def duplicate_margin(make_a: Factory, make_b: Factory, decks: int) -> tuple[float, float]:
    """Mean point margin of A over B and A's deal win rate, each deck played with seats swapped."""
    margins: list[int] = []
    for d in range(decks):
        deck = shuffled_deck(seed=f"dup{d}")
        for a_seat in (0, 1):
            seats = [make_b(d), make_b(d)]
            seats[a_seat] = make_a(d)
            result, _ = play_deal(seats, deck, dealer=1)
            margins.append(result.points[a_seat] - result.points[1 - a_seat])
    return sum(margins) / len(margins), sum(m > 0 for m in margins) / len(margins)


def test_strong_beats_random() -> None:
    margin, wins = duplicate_margin(lambda s: StrongPlayer(s, worlds=4), RandomPlayer, 8)
    assert margin > 30
    assert wins >= 0.75


def test_greedy_beats_random() -> None:
    margin, wins = duplicate_margin(GreedyPlayer, RandomPlayer, 25)
    assert margin > 30
    assert wins >= 0.75
