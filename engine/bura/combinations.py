"""Bura's three-card combinations (D6–D8) and who may use them (D9 and "Precisely")."""

from __future__ import annotations

from collections.abc import Sequence

from engine.bura.rules import HAND_SIZE, Rules
from engine.cards import Card, Rank, Suit


def is_bura(hand: Sequence[Card], trump: Suit) -> bool:
    """D6: three trumps."""
    return len(hand) == HAND_SIZE and all(c.suit is trump for c in hand)


def is_moscow(hand: Sequence[Card], rules: Rules) -> bool:
    """D8: three aces (with ``moscow: on``)."""
    return rules.moscow == "on" and len(hand) == HAND_SIZE and all(c.rank is Rank.ACE for c in hand)


def is_small_moscow(hand: Sequence[Card], trump: Suit, rules: Rules) -> bool:
    """D8: малая Москва, three sixes including the trump six (with ``moscow: on``)."""
    return (
        rules.moscow == "on"
        and len(hand) == HAND_SIZE
        and all(c.rank is Rank.SIX for c in hand)
        and any(c.suit is trump for c in hand)
    )


def is_molodka(hand: Sequence[Card], trump: Suit, rules: Rules) -> bool:
    """D7: three cards of one suit, not trumps (with ``molodka: out_of_turn``)."""
    return (
        rules.molodka == "out_of_turn"
        and len(hand) == HAND_SIZE
        and hand[0].suit is not trump
        and all(c.suit is hand[0].suit for c in hand)
    )


def winning_show(hands: Sequence[Sequence[Card]], trump: Suit, rules: Rules) -> tuple[int, str]:
    """D6/D8 and Part C: every бура or Москва counts as shown at once; Москва wins,
    otherwise the бура with the highest top trump. Returns (seat, "moscow" | "bura")."""
    for seat, hand in enumerate(hands):
        if is_moscow(hand, rules):
            return seat, "moscow"
    holders = [s for s, h in enumerate(hands) if is_bura(h, trump)]
    if not holders:
        raise ValueError("nobody holds бура or Москва")
    return max(holders, key=lambda s: max(c.rank for c in hands[s])), "bura"


def show_kind(hand: Sequence[Card], trump: Suit, rules: Rules) -> str | None:
    """What ``hand`` may show (D6, D8): ``"moscow"``, ``"bura"`` or ``None``."""
    if is_moscow(hand, rules):
        return "moscow"
    return "bura" if is_bura(hand, trump) else None


def dealt_combination(hand: Sequence[Card], trump: Suit, rules: Rules) -> str | None:
    """D9: the combination switched on that ``hand`` holds (``"bura"``, ``"moscow"``,
    ``"small_moscow"`` or ``"molodka"``; a hand of three holds at most one), or ``None``."""
    if is_small_moscow(hand, trump, rules):
        return "small_moscow"
    if is_molodka(hand, trump, rules):
        return "molodka"
    return show_kind(hand, trump, rules)


def void_from_deal(hands: Sequence[Sequence[Card]], trump: Suit, rules: Rules) -> bool:
    """D9: a combination switched on, in any hand straight from the deal."""
    return any(dealt_combination(h, trump, rules) is not None for h in hands)


def stop_refusal(
    hands: Sequence[Sequence[Card]], seat: int, leader: int, trump: Suit, rules: Rules
) -> str | None:
    """Why ``seat`` may not say «Стоп!» now (D7/D8 "Precisely"), or ``None`` if it may."""
    players = len(hands)
    hand = hands[seat]
    if seat == leader:
        return "the rightful leader leads in turn; «Стоп!» is for another seat (D7)"
    small = is_small_moscow(hand, trump, rules)
    if not small and not is_molodka(hand, trump, rules):
        if rules.molodka == "off" and rules.moscow == "off":
            return "«Стоп!» is switched off (molodka: off, D7)"
        return "«Стоп!» needs a молодка or малая Москва as the whole hand (D7, D8)"
    others = [s for s in range(players) if s != seat]
    for other in others:
        if is_bura(hands[other], trump) or is_moscow(hands[other], rules):
            return f"seat {other} holds бура or Москва, which come first (D8 precedence)"
    if small:
        return None
    for other in others:
        if is_small_moscow(hands[other], trump, rules):
            return f"seat {other} holds малая Москва, which comes before молодка (D8)"
    if is_molodka(hands[leader], trump, rules):
        return "the rightful leader's own молодка keeps the lead (D7)"
    for step in range(1, players):
        other = (leader + step) % players
        if other == seat:
            return None
        if is_molodka(hands[other], trump, rules):
            return f"seat {other} holds a молодка first clockwise from the leader (D7)"
    return None  # pragma: no cover - seat is reached before the loop ends


# What a hand holds, as a small code (hand_kind), for the engine's fast paths.
NOTHING_HELD, BURA_HELD, MOSCOW_HELD, SMALL_MOSCOW_HELD, MOLODKA_HELD = range(5)


def hand_kind(hand: Sequence[Card], trump: Suit, moscow: bool, molodka: bool) -> int:
    """The one combination switched on that ``hand`` is (a hand of three is at most
    one), ``moscow`` and ``molodka`` the D8 and D7 switches: :func:`is_bura`,
    :func:`is_moscow`, :func:`is_small_moscow` and :func:`is_molodka` in a few identity
    tests (the engine asks it on every move); tests/engine/bura hold it equal to them."""
    if len(hand) != HAND_SIZE:
        return NOTHING_HELD
    a, b, c = hand
    suit = a.suit
    if suit is b.suit and suit is c.suit:
        if suit is trump:
            return BURA_HELD
        return MOLODKA_HELD if molodka else NOTHING_HELD
    rank = a.rank
    if moscow and rank is b.rank and rank is c.rank:
        if rank is Rank.ACE:
            return MOSCOW_HELD
        if rank is Rank.SIX and (suit is trump or b.suit is trump or c.suit is trump):
            return SMALL_MOSCOW_HELD
    return NOTHING_HELD


def may_stop(
    hands: Sequence[Sequence[Card]], seat: int, leader: int, trump: Suit, rules: Rules
) -> bool:
    """``stop_refusal(...) is None``, without building a reason (the engine asks it of
    every candidate seat on every lead): the same tests in the same order."""
    if seat == leader:
        return False
    moscow, molodka = rules.moscow == "on", rules.molodka == "out_of_turn"
    kinds = [hand_kind(hand, trump, moscow, molodka) for hand in hands]
    mine = kinds[seat]
    if mine != SMALL_MOSCOW_HELD and mine != MOLODKA_HELD:
        return False
    for other, kind in enumerate(kinds):
        if other != seat and kind in (BURA_HELD, MOSCOW_HELD):
            return False  # D8 precedence
    if mine == SMALL_MOSCOW_HELD:
        return True
    for other, kind in enumerate(kinds):
        if other != seat and kind == SMALL_MOSCOW_HELD:
            return False  # малая Москва before молодка (D8)
    if kinds[leader] == MOLODKA_HELD:
        return False  # the rightful leader's own молодка keeps the lead (D7)
    players = len(hands)
    for step in range(1, players):
        other = (leader + step) % players
        if other == seat:
            return True
        if kinds[other] == MOLODKA_HELD:
            return False  # a молодка first clockwise from the leader (D7)
    return True  # pragma: no cover - seat is reached before the loop ends
