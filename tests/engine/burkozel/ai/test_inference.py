"""Inference from the other seats' open answers (engine/burkozel/ai/belief.py): soft
weights on sampled worlds that assume no particular style of play (R7: a seat may
discard even when it could beat)."""

from __future__ import annotations

import random

import pytest

from engine.burkozel.ai import GreedyPlayer, RandomPlayer, StrongPlayer, safe_move
from engine.burkozel.ai.belief import (
    P_PLAIN_COVER,
    P_TRUMP_COVER,
    P_WASTE,
    Observation,
    PublicSampler,
    history_observations,
    observations,
    past_tricks,
    public_weight,
)
from engine.burkozel.ai.sim import SUIT_INDEX, Sim, covers
from engine.burkozel.deal import Deal
from engine.cards import Card, Suit, shuffled_deck
from tests.support.sim import idx, table_sim

SPADES = SUIT_INDEX[Suit.SPADES]


def answer_obs(claim: str, cards: str, beat: bool, drawn: int = 0) -> Observation:
    """Seat 1 answered seat 0's lead ``claim`` with ``cards`` (two players)."""
    return Observation(
        seat=1,
        cards=tuple(idx(cards)),
        beat=beat,
        claim=tuple(idx(claim)),
        table_pts=sum(Card.parse(c).points for c in claim.split()),
        after=0,
        limit=3,
        stock_left=10,
        extra=(),
        drawn=drawn,
    )


def world(other_hand: str) -> Sim:
    """Spades trump; seat 1 holds ``other_hand`` now (after its answer)."""
    return table_sim(["7D 8D 9D", other_hand], Suit.SPADES)


def test_r7_discard_with_a_plain_cover_in_hand_is_unlikely() -> None:
    """Lead K♥, answer 6♣ discarded: a hand that held A♥ could have beaten it plainly."""
    obs = [answer_obs("KH", "6C", beat=False)]
    assert public_weight(world("AH 7C 8C"), obs, 1.0) == pytest.approx(P_PLAIN_COVER)


def test_r5_r7_discard_with_only_a_trump_cover_is_less_unlikely() -> None:
    obs = [answer_obs("KH", "6C", beat=False)]
    assert public_weight(world("6S 7C 8C"), obs, 1.0) == pytest.approx(P_TRUMP_COVER)


def test_r7_discard_without_any_cover_is_fully_explained() -> None:
    obs = [answer_obs("KH", "6C", beat=False)]
    assert public_weight(world("QH 7C 8C"), obs, 1.0) == 1.0


def test_r12_discard_with_points_when_a_pointless_card_was_held() -> None:
    """Discarding K♣ (4 points) while holding 7♣ (none) gives points away needlessly."""
    obs = [answer_obs("KH", "KC", beat=False)]
    assert public_weight(world("QH 7C 8C"), obs, 1.0) == pytest.approx(P_WASTE)
    assert public_weight(world("AD AC 10C"), obs, 1.0) == 1.0


def test_r5_beat_with_a_trump_when_a_plain_cover_was_held() -> None:
    obs = [answer_obs("KH", "6S", beat=True)]
    assert public_weight(world("AH 7C 8C"), obs, 1.0) == pytest.approx(P_WASTE)
    assert public_weight(world("QH 7C 8C"), obs, 1.0) == 1.0


def test_r10_drawn_cards_are_averaged_over() -> None:
    """After the trick seat 1 drew one card, unknown which: the A♥ is the drawn one in
    1 case of 4 (then the discard is fully explained), else it could have beaten."""
    obs = [answer_obs("KH", "6C", beat=False, drawn=1)]
    got = public_weight(world("AH 7C 8C 9C"), obs, 1.0)
    assert got == pytest.approx((1.0 + 3 * P_PLAIN_COVER) / 4)


def test_strength_raises_each_factor() -> None:
    obs = [answer_obs("KH", "6C", beat=False)]
    assert public_weight(world("AH 7C 8C"), obs, 2.0) == pytest.approx(P_PLAIN_COVER**2)
    assert public_weight(world("AH 7C 8C"), obs, 0.0) == 1.0


def discard_position() -> Deal:
    """Two players, a deal in which seat 1 discarded on the lead of the last trick."""
    for seed in range(200):
        deal = Deal.start(2, shuffled_deck(seed=seed), 1)
        lead = min(
            (m for m in deal.legal_actions() if len(m.cards) == 1), key=lambda m: m.cards[0].index
        )
        deal.apply(lead)
        discards = [m for m in deal.legal_actions() if not m.beat]
        if not any(m.beat for m in deal.legal_actions()):
            continue
        deal.apply(discards[0])
        if deal.turn == 0 and deal.stock_size > 0:
            return deal
    raise AssertionError("no such deal")


def test_r7_sampler_prefers_worlds_where_the_discarding_seat_could_not_beat() -> None:
    """Seat 1 discarded although it could beat (R7): with inference the sampled worlds
    give it a cover less often than uniform worlds do; only the view is used."""
    deal = discard_position()
    view = deal.view(0)
    obs = [o for o in observations(view) if o.claim]
    assert len(obs) == 1 and obs[0].seat == 1 and obs[0].beat is False

    o = obs[0]

    def could_beat(sim: Sim) -> float:
        """Seat 1 holds a card that covers the lead (it may have drawn it since)."""
        hand = sim.hands[1] + list(o.cards)
        return float(any(covers((c,), o.claim, sim.trump) for c in hand))

    rng = random.Random(5)
    uniform = PublicSampler(view, 0.0)
    weighted = PublicSampler(view, 1.0)
    u = sum(could_beat(uniform(rng)) for _ in range(300)) / 300
    w = sum(could_beat(weighted(rng)) for _ in range(300)) / 300
    assert w < u


def test_inference_player_plays_whole_deals_legally() -> None:
    for n in (2, 3):
        deal = Deal.start(n, shuffled_deck(seed=n), 0)
        player = StrongPlayer(3, worlds=8, infer=1.0, exact_worlds=12)
        while not deal.finished:
            seat = deal.turn
            assert seat is not None
            move = player.choose(deal.view(seat), deal.legal_actions())
            assert move in deal.legal_actions()
            deal.apply(move)


def played_tricks(deal: Deal) -> list[tuple[int, tuple[tuple[int, ...], ...], tuple[bool, ...]]]:
    """The finished tricks of ``deal`` from its history: leader, plays, declared beats."""
    n = deal.players
    done = deal.history[: len(deal.history) - len(deal.table)]
    out = []
    for i in range(0, len(done), n):
        moves = done[i : i + n]
        plays = tuple(tuple(c.index for c in m.cards) for m in moves)
        out.append((moves[0].seat, plays, tuple(m.beat is True for m in moves[1:])))
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("style", ["greedy", "random"])
def test_r8_past_tricks_rebuilt_from_open_cards_are_the_ones_played(n: int, style: str) -> None:
    """R8: every card played is seen, in order; the tricks rebuilt from them (R4, R6,
    R7 including covers declared as discards, R9-R11, R12 points) are the real ones,
    and in at least half the positions the last two can be told."""
    rebuilt = 0
    positions = 0
    for game in range(12):
        rng = random.Random(game)
        deal = Deal.start(n, shuffled_deck(rng=rng), game % n)
        player = GreedyPlayer(game) if style == "greedy" else RandomPlayer(game)
        while not deal.finished:
            seat = deal.turn
            assert seat is not None
            view = deal.view(seat)
            tricks = past_tricks(view)
            real = played_tricks(deal)
            if real:
                positions += 1
            if tricks is not None:
                got = [(t[0], t[2], t[4]) for t in tricks]
                assert got == real[len(real) - len(got) :]
                rebuilt += len(tricks) >= min(2, len(real))
            deal.apply(player.choose(view, deal.legal_actions()))
    assert rebuilt >= 0.5 * positions


def test_r10_history_observations_count_cards_drawn_since() -> None:
    """Two players, greedy play: each answer of the other seat within the last tricks
    is an observation; the number of cards it drew since grows with its age (R10)."""
    deal = Deal.start(2, shuffled_deck(seed=11), 1)
    greedy = GreedyPlayer(0)
    seen_old = False
    while not deal.finished and deal.stock_size > 6:
        seat = deal.turn
        assert seat is not None
        view = deal.view(seat)
        obs = history_observations(view, 3)
        assert obs is not None or view.last_trick is None
        for o in obs or []:
            assert o.seat != seat and o.claim and 0 <= o.drawn <= 3
            seen_old |= o.drawn >= 2
        deal.apply(greedy.choose(view, deal.legal_actions()))
    assert seen_old


def test_decisions_with_history_ignore_hidden_cards() -> None:
    """Only the view is used: the same move whatever the hidden hand and stock hold."""
    from tests.support.sim import swapped_twin

    player = StrongPlayer(1, worlds=6, infer=1.0, infer_history=3)
    rng = random.Random(2)
    checked = 0
    for game in range(20):
        deal = Deal.start(2, shuffled_deck(seed=game), game % 2)
        for _ in range(rng.randrange(4, 16)):
            if deal.finished:
                break
            deal.apply(safe_move(deal.view(deal.turn or 0), deal.legal_actions()))
        if deal.finished or deal.turn is None:
            continue
        twin = swapped_twin(deal, deal.turn, rng)
        if twin is None:
            continue
        a = player.choose(deal.view(deal.turn), deal.legal_actions())
        b = player.choose(twin.view(deal.turn), twin.legal_actions())
        assert (sorted(a.cards), a.beat) == (sorted(b.cards), b.beat)
        checked += 1
    assert checked >= 8
