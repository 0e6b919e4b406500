"""What Burkozel's house rules add to the screens (RULES.md Part B): the two teams and
their pooled totals (B5), the seats that dropped out (B3), credits and a doubled deal
(B4), and the buttons for combinations (C1-C4). Pure: state in, text or buttons out."""

from __future__ import annotations

from collections.abc import Sequence

from bot.chat_settings import rules_of_game
from bot.i18n import Html, Texts, html, html_join
from engine import EngineError
from engine.burkozel import Action, Deal, Rules, Series
from engine.burkozel.scoring import sides
from storage import Game, Seat

# B5: partners sit opposite each other; the engine's own scoring sides, so what the
# screens (the lobby included) call a pair is what is scored together.
PAIRS = tuple(sides(Rules(teams="pairs"), range(4)))


def _name(seat: Seat) -> Html:
    return html(seat.name)


def pairs(rules: Rules) -> bool:
    return rules.teams == "pairs"


def credits(rules: Rules) -> bool:
    return rules.scoring == "winner_takes"


def total_key(rules: Rules) -> str:
    """B4 counts credits, every other scoring penalties."""
    return "house.credits" if credits(rules) else "house.penalties"


def team_lines(t: Texts, game: Game, totals: Sequence[int]) -> list[Html]:
    """B5: each pair with its pooled total (it appears on both partners)."""
    lines = []
    for number, team in enumerate(PAIRS, start=1):
        if max(team) >= len(game.seats):
            return []
        names = html_join(" & ", (_name(game.seats[s]) for s in team))
        lines.append(t("house.team", n=number, names=names, total=totals[team[0]]))
    return lines


def lobby_pair_lines(t: Texts, game: Game) -> list[Html]:
    """B5: the pairs as the lobby's seats fill. Seats keep their lobby numbers at Start,
    so these are the game's pairs; a free seat says so (the next to join takes it)."""
    try:
        _, rules = rules_of_game(game.rules)
    except EngineError:
        return []
    if not isinstance(rules, Rules) or not pairs(rules):
        return []

    def seat_entry(seat: int) -> Html:
        if seat < len(game.seats):
            return Html(f"{seat + 1}. {_name(game.seats[seat])}")
        return t("lobby.seat_free", seat=seat + 1)

    return [
        t("lobby.pair", n=number, seats=html_join(" & ", map(seat_entry, team)))
        for number, team in enumerate(PAIRS, start=1)
    ]


def partner_line(t: Texts, game: Game, seat: int) -> Html | None:
    """B5: a player's partner, in their own hand message."""
    partner = (seat + 2) % 4
    if len(game.seats) != 4:
        return None
    return t("house.partner", name=_name(game.seats[partner]))


def seat_mark(series: Series, seat: int) -> str:
    """B3: a seat that dropped out is marked (and skipped by the engine)."""
    return " ❌" if series.elimination and seat not in series.seats_in() else ""


def stakes_line(t: Texts, deal: Deal) -> Html | None:
    """B4: a deal whose credits are doubled after a tied deal says so."""
    if credits(deal.rules) and deal.stakes > 1:
        return t("house.doubled", stakes=deal.stakes)
    return None


def eliminated_line(t: Texts, game: Game, series: Series, deal_index: int) -> Html | None:
    """B3: who dropped out after this deal."""
    if not series.elimination:
        return None
    out = series.eliminated_after(deal_index)
    if not out:
        return None
    return t("house.eliminated", names=html_join(", ", (_name(game.seats[s]) for s in out)))


def combination_moves(deal: Deal, seat: int) -> list[Action]:
    """C1/C2 shows and the C3/C4 out-of-turn lead this seat may make now (each a button)."""
    if deal.rules.combinations != "on" or seat not in deal.actors():
        return []
    return [m for m in deal.legal_actions(seat) if m.show is not None or m.stop]


def ordinary(legal: Sequence[Action]) -> list[Action]:
    """What auto-play may do for a human: never a show or an out-of-turn lead (those
    are the player's own call)."""
    plain = [m for m in legal if m.show is None and not m.stop]
    return plain or list(legal)
