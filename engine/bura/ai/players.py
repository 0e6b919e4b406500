"""Bura computer players behind one small interface, and a driver for a whole deal.

Each decides from its seat's :class:`~engine.bura.view.View` alone; randomness is
seeded from the player's seed plus that view, so a decision is a pure function of
(seed, view), as for the Burkozel players.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from engine.bura.actions import Action, Dave, DealResult, Declare, Show
from engine.bura.ai.policy import CLOSED_GUESS, Situation, greedy
from engine.bura.ai.seed import decision_rng
from engine.bura.ai.sure import sure_win
from engine.bura.ai.world import DISCARD_TEMPERATURE, sample_world
from engine.bura.deal import DECLARE, Deal
from engine.bura.rules import BUST_LIMIT, DECLARE_TARGET, Rules
from engine.bura.series import deal_penalties
from engine.bura.view import View

LEVELS = ("random", "greedy", "easy", "normal", "hard")
# A single card just led by the other seat makes its kept cards 20x likelier to be ones
# it values more (engine.bura.ai.world). With sure self-declaring playouts this took
# hard from 65.3% to 69.8% of deals against greedy on the same 300 decks
# (bench/RESULTS-ai.md).
LEAD_LEAN = 0.05
# A single card laid face down under a single open card (D3), and the cards its owner
# held with it, are 20x less likely to be ones that would have taken that card: a plain
# higher card of its suit (free to play), or a trump over a card worth 10 or more.
BEATER_LEAN = 0.05
# 0: another hand's trumps lean with how many cards it was dealt (world.dealt_trump_weight:
# a player keeps its trumps), from 1 at the deal to 6 at the end, instead of a fixed 3.
# Together with BEATER_LEAN: +20 deals of 2800 against greedy over 1400 paired deck runs,
# within the noise (bench/RESULTS-ai.md, fourth pass); kept as the sounder model.
TRUMP_WEIGHT = 0.0
# Plain cards in another hand lean to high ranks (rank_lean 1: world.PLAIN_RANK_WEIGHT,
# measured on greedy, which leads and discards its low cards), and another seat's
# single-card lead or beat in the last trick leans the cards it held with it (last_lean
# 0.05: world.last_trick_leans). Off in the class (and in normal, not measured); on in
# hard (bench/RESULTS-ai.md, fifth pass: +0.093 ± 0.044 deals per deck at 40 worlds).
RANK_LEAN = 1.0
LAST_LEAN = 0.05
# The worlds hard samples: the root's near-equal moves are told apart only with many.
# 200 instead of 40: tuning decks 2000-2299, seeds 0-1, 875 of 1200 deals against 838
# (120 worlds, seeds 0-3: 1736 of 2400 against 1652); report decks 0-299, seeds 0-5,
# 2567 of 3600 (71.3%) against 2490 (bench/RESULTS-ai.md, seventh pass). CPU p95 per
# decision 0.32-0.36 s with 2 players, 0.39 s with 3, 0.49 s with 4 (was 0.065 s); with
# the faster engine 0.21 s with 2 players (bench/ai_bura_time.py, sure wins and styles).
HARD_WORLDS = 200
# How hard's playouts model the others' declaring (D5): greedy's rule only. A mixture of
# a careful style (face-down cards guessed at 0), greedy's (2) and a reckless one (6),
# drawn per world among those a seat's undeclared pile leaves (styles 0/2/6), is not
# in the level: paired on the same decks it lost 7 points of deals against the plain
# Monte Carlo player (-0.14 +- 0.14 deals per deck), gained 3.5 and 5.5 against the
# careful and reckless styles and 1 against greedy, all within about one interval
# (bench/RESULTS-ai.md, sure wins and styles).
HARD_STYLES = (CLOSED_GUESS,)
# A declaring style that sees its pile whole (its guess for a face-down card is not
# used): it declares exactly when its pile holds enough (D5), never falsely, never late.
SURE_STYLE = -1.0
# Hard's playouts declare for it seeing the sampled pile whole (sure_self) only from three
# players on. At two that made the search spend its trumps on points (PIMC's strategy
# fusion: a taken trick turns into a sure declaration at once) and show fewer буры; without
# it, 2 players, default switches: 435 of 800 deals (54.4%) against the plain Monte Carlo
# player at equal time instead of 410, decks 0-399; 417 of 600 (69.5%) against greedy
# instead of 404, decks 0-299. At three it loses: 93 of 180 deals against greedy instead
# of 105, decks 0-59 (bench/RESULTS-ai.md).
HARD_SURE_SELF_PLAYERS = 3
# At two players hard's playouts play its own later leads by a stronger rule than
# greedy's: two cards whenever it may (policy.greedy's lead_pairs; 58.5% of deals
# against greedy's rule alone). 2 players, default switches: 432 of 600 deals (72.0%)
# against greedy instead of 417, decks 0-299; 649 of 1200 (54.1%) against the plain
# Monte Carlo player instead of 639, decks 0-599; both within the noise (paired +0.050
# +- 0.077 and +0.017 +- 0.058 deals per deck). At three players 299 of 540 against
# greedy instead of 310, decks 0-179: not there (bench/RESULTS-ai.md, fifth pass).
HARD_SELF_PAIRS_UP_TO = 2


class Player(Protocol):
    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        """One of ``legal``; ``None`` lets a «Стоп!» chance pass (only when
        ``view.turn != view.seat``)."""
        ...


def _key(action: Action) -> tuple[str, tuple[int, ...], str]:
    cards = getattr(action, "cards", ())
    return (type(action).__name__, tuple(sorted(c.index for c in cards)), repr(action))


def canonical(legal: Sequence[Action]) -> list[Action]:
    """``legal`` in an order that depends only on the actions, not on hidden hand order."""
    if not legal:
        raise ValueError("no legal actions to choose from")
    return sorted(legal, key=_key)


def optional(view: View) -> bool:
    """Whether the seat may also let the moment pass (a «Стоп!» it need not say)."""
    return view.turn != view.seat


class RandomPlayer:
    """Any legal action (or letting a «Стоп!» pass), except that a sure win is taken."""

    def __init__(self, rules: Rules, seed: int = 0) -> None:
        self.rules = rules
        self.seed = seed

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        sure = sure_win(view, legal, self.rules)
        if sure is not None:
            return sure
        options: list[Action | None] = [*canonical(legal)]
        if optional(view):
            options.append(None)
        return decision_rng(self.seed, view).choice(options)


class GreedyPlayer:
    """Rules of thumb (``engine.bura.ai.policy``); with ``noise`` a random move that
    often; a sure win (``engine.bura.ai.sure``) always."""

    def __init__(
        self,
        rules: Rules,
        seed: int = 0,
        noise: float = 0.0,
        closed_guess: float = CLOSED_GUESS,
        lead_pairs: bool = False,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.noise = noise
        self.closed_guess = closed_guess  # how it guesses its face-down cards (policy.greedy)
        self.lead_pairs = lead_pairs  # policy.greedy's; no level leads so (the bench's "pairs")

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        sure = sure_win(view, legal, self.rules)
        if sure is not None:
            return sure
        if self.noise:
            rng = decision_rng(self.seed, view)
            if rng.random() < self.noise:
                return rng.choice(canonical(legal))
        sit = Situation.of_view(view, self.rules)
        return greedy(sit, canonical(legal), self.closed_guess, self.lead_pairs)


def utility(result: DealResult, seat: int, rules: Rules, players: int) -> float:
    """How good a finished deal is for ``seat``: its edge in penalties (or deal wins)."""
    add = deal_penalties(result, players, rules)
    others = (sum(add) - add[seat]) / (players - 1)
    if rules.series == "penalty_12":
        return others - add[seat]
    return add[seat] - others


def after_option(world: Deal, option: Action | None) -> Deal:
    """A copy of ``world`` with ``option`` played; ``None`` (a «Стоп!» let pass, D7): the
    rightful leader acts instead, as the greedy rule would."""
    deal = world.copy()
    if option is None:
        turn = deal.turn
        assert turn is not None
        choice = greedy(Situation.of_deal(deal, turn), deal.legal_actions(turn))
        assert choice is not None
        deal.push(choice)
    else:
        deal.push(option)
    return deal


def rollout(
    deal: Deal,
    sure_seat: int | None = None,
    guesses: Mapping[int, float] | None = None,
    sure_guess: float | None = None,
    pair_leaders: frozenset[int] = frozenset(),
) -> DealResult:
    """Finish ``deal`` with the greedy policy for every seat (a «Стоп!» is always said).
    ``sure_seat`` declares exactly when its pile in this world holds enough (D5);
    ``guesses``: per seat, what its declaring style takes each face-down card of its
    pile to be worth (policy.greedy's ``closed_guess``; greedy's own when not given;
    ``SURE_STYLE``: it declares exactly when its pile in this world holds enough, as
    ``sure_seat`` does);
    ``sure_guess``: ``sure_seat`` also needs its open points plus this per face-down
    card to reach the target, as it could judge without seeing those cards;
    ``pair_leaders``: seats that lead two cards whenever they may (policy.greedy's
    ``lead_pairs``)."""
    guesses = guesses or {}
    while not deal.finished:
        actors = deal.actors()
        seat = actors[-1]  # a «Стоп!» holder comes before the rightful leader
        guess = guesses.get(seat, CLOSED_GUESS)
        if deal.phase == DECLARE and (seat == sure_seat or guess == SURE_STYLE):
            total = deal.points()[seat]
            good = total >= DECLARE_TARGET and (deal.rules.target == "31" or total <= BUST_LIMIT)
            if good and sure_guess is not None and seat == sure_seat:
                sit = Situation.of_deal(deal, seat)
                good = sit.known_points + sure_guess * sit.closed_in_pile >= DECLARE_TARGET
            deal.push(Declare(seat, good))
            continue
        # Declaring (D5), greedy reads only the seat's pile: no list of the two choices.
        legal = () if deal.phase == DECLARE else deal.legal_actions(seat)
        choice = greedy(Situation.of_deal(deal, seat), legal, guess, seat in pair_leaders)
        assert choice is not None
        deal.push(choice)
    return deal.result()


class StrongPlayer:
    """Determinized Monte Carlo: sample ``worlds`` deals consistent with the view (the
    face-down discards leaning to low cards, a just-led card's hand to better cards),
    try every legal action (and, for a «Стоп!», letting it pass) in each and finish with
    the greedy policy, except that this seat declares exactly when its sampled pile
    holds enough (as its own search does, far better than the greedy guess); pick the
    best mean edge. A sure win (``engine.bura.ai.sure``) is taken before any search:
    the playouts' model of the others may value a gamble above it. Declaring is thus weighed by how often the sampled closed discards
    bring the pile to 31 against the double loss of a false declaration."""

    def __init__(
        self,
        rules: Rules,
        seed: int = 0,
        worlds: int = 40,
        search: str = "all",
        edge_weight: float = 0.25,
        temperature: float = DISCARD_TEMPERATURE,
        sure_self: bool = True,
        sure_self_players: int = 2,
        lead_lean: float = LEAD_LEAN,
        beater_lean: float = BEATER_LEAN,
        trump_weight: float = TRUMP_WEIGHT,
        rank_lean: float = 0.0,
        last_lean: float = 1.0,
        styles: tuple[float, ...] = (CLOSED_GUESS,),
        sure_first: bool = True,
        self_guess: float = -1.0,
        self_pairs_up_to: int = 0,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.worlds = worlds
        self.search = search  # "all" decisions, or "key": declare, даве, «Стоп!», shows
        # Playouts score a deal won +1, lost -1, plus this share of the penalty edge:
        # winning the deal comes first, its size second.
        self.edge_weight = edge_weight
        # How the worlds are sampled (see engine.bura.ai.world): the lean of a closed
        # discard to low cards, and of a just-led single card's hand to better cards.
        self.temperature = temperature
        self.lead_lean = lead_lean
        self.beater_lean = beater_lean
        # How much likelier a trump is in another hand than in the stock; 0: growing
        # with the cards dealt out (world.dealt_trump_weight).
        self.trump_weight = trump_weight
        # How much plain cards in another hand lean to high ranks (the power of
        # world.PLAIN_RANK_WEIGHT; 0: not at all), and how likely, after another seat's
        # single-card lead or beat in the last trick, are the cards it held with it that
        # it would have played instead (1: as likely as any).
        self.rank_lean = rank_lean
        self.last_lean = last_lean
        # Whether this seat's playouts declare exactly when its pile holds enough (D5),
        # as the search itself does, instead of the greedy rule's guess.
        self.sure_self = sure_self
        # The fewest players at which it does: at two, hard does better without it.
        self.sure_self_players = sure_self_players
        # The declaring styles the others are modelled with (policy.greedy's
        # closed_guess each, or SURE_STYLE): every world gives each other seat one of them, drawn
        # among those its play so far does not rule out (declaring_styles).
        self.styles = styles
        # Whether a sure win (engine.bura.ai.sure) is taken before any search; off only
        # to measure the player without it (bench/RESULTS-ai.md).
        self.sure_first = sure_first
        # With ``sure_self``, what this seat's playouts also require before declaring: the
        # pile's open points plus this guess per face-down card reach the target, as the
        # seat itself, not knowing those cards, could tell. Negative: not required (the
        # playouts see the sampled pile whole). Measured, not in the levels
        # (bench/RESULTS-ai.md, declaring in the playouts).
        self.self_guess = self_guess
        # Up to how many players this seat's playouts lead two cards for it whenever
        # they may (policy.greedy's lead_pairs, a stronger rule than greedy's for its own
        # later play; the others keep greedy's); 0: never.
        self.self_pairs_up_to = self_pairs_up_to

    def choose(self, view: View, legal: Sequence[Action]) -> Action | None:
        sure_action = sure_win(view, legal, self.rules) if self.sure_first else None
        if sure_action is not None:
            return sure_action
        options: list[Action | None] = [*canonical(legal)]
        if optional(view):
            options.append(None)
        if len(options) == 1:
            return options[0]
        if self.search == "key" and not _key_decision(view, options):
            return greedy(Situation.of_view(view, self.rules), canonical(legal))
        rng = decision_rng(self.seed, view)
        totals = [0.0] * len(options)
        sure_self = self.sure_self and view.players >= self.sure_self_players
        sure = view.seat if sure_self else None
        styles = {
            seat: declaring_styles(view, self.rules, seat, self.styles)
            for seat in range(view.players)
            if seat != view.seat
        }
        pairs = view.players <= self.self_pairs_up_to
        pair_leaders = frozenset((view.seat,) if pairs else ())
        for _ in range(self.worlds):
            guesses = {
                seat: guess[0] if len(guess) == 1 else rng.choice(guess)
                for seat, guess in styles.items()
            }
            world = sample_world(
                view,
                self.rules,
                rng,
                self.temperature,
                self.lead_lean,
                self.beater_lean,
                self.trump_weight,
                self.rank_lean,
                self.last_lean,
            )
            for i, option in enumerate(options):
                deal = after_option(world, option)
                sure_guess = self.self_guess if self.self_guess >= 0 else None
                result = rollout(deal, sure, guesses, sure_guess, pair_leaders)
                edge = utility(result, view.seat, self.rules, view.players)
                totals[i] += (edge > 0) - (edge < 0) + self.edge_weight * edge
        # Ties go to ending the deal now (a declaration): a playout's later win is less
        # sure than it looks, since it knows the sampled world's stock order.
        best = max(
            range(len(options)),
            key=lambda i: (totals[i], options[i] == Declare(view.seat, True)),
        )
        return options[best]


def declaring_styles(
    view: View, rules: Rules, seat: int, styles: tuple[float, ...]
) -> tuple[float, ...]:
    """The declaring styles (closed guesses) of ``styles`` that ``seat``'s play in this
    deal leaves possible: its pile only grows when it takes a trick, and each time it
    could declare (D5), so a style that would have declared on the pile it holds now
    has not been playing (unless it has only just taken the trick and not chosen yet).
    All of them if none is left."""
    if len(styles) == 1 or (view.phase == DECLARE and view.turn == seat):
        return styles
    pile = view.piles[seat]
    shown = sum(c.points for c in pile.open_cards)
    closed = len(pile.closed_by)
    # This seat's own discards in that pile: with two players, every face-down card in it.
    mine = [card for card, owner in view.my_closed if owner == seat]

    def would_have_declared(guess: float) -> bool:
        if guess == SURE_STYLE:  # it sees its pile whole; so does this seat, if all are its own
            estimate: float = shown + sum(card.points for card in mine)
            if len(mine) < closed:
                return False
        else:
            estimate = shown + guess * closed
        return estimate >= DECLARE_TARGET and (rules.target == "31" or estimate <= BUST_LIMIT)

    left = tuple(g for g in styles if not would_have_declared(g))
    return left or styles


def _key_decision(view: View, options: Sequence[Action | None]) -> bool:
    if view.phase in ("declare", "dave") or None in options:
        return True
    return any(isinstance(a, Show | Dave) for a in options)


def make_player(level: str, rules: Rules, seed: int = 0) -> Player:
    if level == "random":
        return RandomPlayer(rules, seed)
    if level == "greedy":
        return GreedyPlayer(rules, seed)
    if level == "easy":
        return GreedyPlayer(rules, seed, noise=0.25)
    if level == "normal":
        return StrongPlayer(rules, seed, worlds=8)
    if level == "hard":
        return StrongPlayer(
            rules,
            seed,
            worlds=HARD_WORLDS,
            rank_lean=RANK_LEAN,
            last_lean=LAST_LEAN,
            styles=HARD_STYLES,
            sure_self_players=HARD_SURE_SELF_PLAYERS,
            self_pairs_up_to=HARD_SELF_PAIRS_UP_TO,
        )
    raise ValueError(f"unknown level {level!r} (choose {', '.join(LEVELS)})")


def play_deal(deal: Deal, players: Mapping[int, Player]) -> None:
    """Play ``deal`` to its end: at a lead moment a «Стоп!» holder is asked first and
    may let it pass; then the seat to act chooses. Each sees only its own view."""
    while not deal.finished:
        actors = deal.actors()
        turn = deal.turn
        chosen: Action | None = None
        for seat in actors:
            if seat != turn:
                chosen = players[seat].choose(deal.view(seat), deal.legal_actions(seat))
                if chosen is not None:
                    break
        if chosen is None:
            assert turn is not None
            chosen = players[turn].choose(deal.view(turn), deal.legal_actions(turn))
            if chosen is None:
                raise ValueError(f"seat {turn} must act now")
        deal.apply(chosen)
