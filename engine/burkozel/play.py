"""Play a series in the terminal against computer players: ``python -m engine play``.

The human is seat 0; the other seats are computer players of one level. This is the
only module of the engine that reads and prints, and it does so through the
``read``/``write`` callables so tests can drive it without a terminal.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine.burkozel.ai import LEVELS, Player, make_player
from engine.burkozel.deal import Action, Deal, Play, View
from engine.burkozel.rules import BASE_RULES, Rules
from engine.burkozel.series import Series
from engine.cards import Card, shuffled_deck

HUMAN = 0


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(c.pretty() for c in cards)


def _label(cards: Sequence[Card], beat: bool | None) -> str:
    verb = "lead" if beat is None else ("beat with" if beat else "discard")
    return f"{verb} {_cards(sorted(cards))}"


def describe_move(move: Action | Play, names: Sequence[str]) -> str:
    if isinstance(move, Play):
        if move.face_down:
            return f"{names[move.seat]}: discard {move.face_down} card(s) face down"
        return f"{names[move.seat]}: {_label(move.cards, move.declared_beat)}"
    return f"{names[move.seat]}: {move_label(move)}"


def move_label(move: Action) -> str:
    if move.show is not None:
        return "show " + ("бура (four trumps)" if move.show == "bura" else "Москва (four aces)")
    if move.stop:
        return f"lead out of turn {_cards(sorted(move.cards))}"
    return _label(move.cards, move.beat)


def show_state(view: View, names: Sequence[str], deal_no: int) -> list[str]:
    if view.trump_card_in_stock:
        where = "at the bottom of the stock"
    elif view.trump_card_drawn_by is not None:
        where = f"drawn by {names[view.trump_card_drawn_by]}"
    else:
        where = "drawn"
    lines = [
        "",
        f"Deal {deal_no}, trick {view.trick_number + 1}. Trump {view.trump.symbol} "
        f"(turned card {view.trump_card.pretty()}, {where}). Stock: {view.stock_size} cards.",
    ]
    if view.points is not None:
        lines.append("Points: " + ", ".join(f"{names[s]} {p}" for s, p in enumerate(view.points)))
    sizes = ", ".join(f"{names[s]} {n}" for s, n in enumerate(view.hand_sizes) if s != view.seat)
    lines.append(f"Cards in hand: {sizes}")
    if view.table:
        lines.append("Table:")
        lines += [f"  {describe_move(p, names)}" for p in view.table]
        if view.claimant is not None:
            lines.append(f"  {names[view.claimant]} holds the trick so far.")
    lines.append(f"Your hand: {_cards(view.hand)}")
    return lines


class _Quit(Exception):
    """The person left (EOF or "q")."""


def run(
    players: int = 2,
    level: str = "normal",
    seed: int | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    rules: Rules = BASE_RULES,
) -> int:
    """Play one series; returns an exit status (0 also when the person quits)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    names = ["You"] + [f"Bot {s} ({level})" for s in range(1, players)]
    bots = {s: make_player(level, seed * 10 + s) for s in range(1, players)}
    deck_rng = random.Random(seed)
    # The seat before the human deals first, so the human leads the first trick (R4).
    series = Series(players, rules, first_dealer=players - 1)
    write(f"Burkozel: you against {players - 1} computer player(s), level {level}, seed {seed}.")
    write("Type the number of a move; q quits. First to 12 penalty points ends the series.")
    try:
        while not series.finished:
            deal = series.start_deal(shuffled_deck(rng=deck_rng))
            _play_deal(series, deal, names, bots, read, write)
            res = deal.result()
            write("")
            write(f"Deal {len(series.results)} over.")
            if deal.shown_by is not None:  # C1/C2: whose combination won, and its cards
                winner, shown = names[deal.shown_by], _cards(sorted(deal.hand(deal.shown_by)))
                write(f"Ended by a show: {res.outcome} ({shown}) wins it for {winner}.")
            label = "credit" if rules.scoring == "winner_takes" else "penalty"
            for s in range(players):
                write(f"  {names[s]}: {res.points[s]} points, +{res.penalties[s]} {label}")
            write(
                "Series tally: " + ", ".join(f"{names[s]} {t}" for s, t in enumerate(series.totals))
            )
    except _Quit:
        write("")
        write("Game left before the end. Bye!")
        return 0
    winners = series.result().winners
    write("")
    write("Series over. Winner: " + ", ".join(names[s] for s in winners) + ".")
    return 0


def _play_deal(
    series: Series,
    deal: Deal,
    names: Sequence[str],
    bots: dict[int, Player],
    read: Callable[[str], str],
    write: Callable[[str], None],
) -> None:
    deal_no = len(series.deals)
    while not deal.finished:
        seat = deal.turn
        assert seat is not None
        stopper = deal.stopper()  # C3/C4: a seat that may lead out of turn now
        if stopper is not None and stopper != HUMAN:
            move = bots[stopper].choose(deal.view(stopper), deal.legal_actions(stopper))
            write(describe_move(move, names))
            series.apply(move)
            continue
        view = deal.view(seat)
        legal = deal.legal_actions()
        if stopper == HUMAN:
            for line in show_state(deal.view(HUMAN), names, deal_no):
                write(line)
            write(f"You may lead out of turn before {names[seat]} leads (0 lets them lead).")
            stop = _ask(deal.legal_actions(HUMAN), read, write, allow_pass=True)
            if stop is not None:
                write(describe_move(stop, names))
                series.apply(stop)
                continue
        if seat == HUMAN:
            for line in show_state(view, names, deal_no):
                write(line)
            asked = _ask(legal, read, write)
            assert asked is not None
            move = asked
            write(describe_move(move, names))
        else:
            move = bots[seat].choose(view, legal)
            write(describe_move(move, names))
        trick = series.apply(move)
        if trick is not None:
            write(f"Trick to {names[trick.winner]} ({trick.points} points).")


def _ask(
    legal: Sequence[Action],
    read: Callable[[str], str],
    write: Callable[[str], None],
    allow_pass: bool = False,
) -> Action | None:
    ordered = sorted(
        legal,
        key=lambda m: (m.beat is not None and not m.beat, len(m.cards), sorted(m.cards)),
    )
    write("Moves:")
    for i, move in enumerate(ordered, 1):
        write(f"  {i}) {move_label(move)}")
    while True:
        try:
            text = read(f"Your move [1-{len(ordered)}]: ").strip()
        except EOFError:
            raise _Quit from None
        if text.lower() in {"q", "quit", "exit"}:
            raise _Quit
        if allow_pass and text == "0":
            return None
        if text.isdigit() and 1 <= int(text) <= len(ordered):
            return ordered[int(text) - 1]
        write(f"Please type a number from 1 to {len(ordered)} (or q to quit).")
