"""The lobby message: its title, the seats as they fill (as the game arranges them: B5
pairs) and what is needed to start."""

from __future__ import annotations

from bot.games.base import BotGame
from bot.i18n import Texts
from bot.views.render import seat_name
from storage import Game


def lobby_text(t: Texts, game: Game, ui: BotGame, rules_line: str | None = None) -> str:
    lines = [ui.lobby_title(t), *([rules_line] if rules_line else []), ""]
    # The seats as the teams they will play in, where the game has teams (B5).
    arranged = ui.lobby_seat_lines(t, game)
    lines += arranged or [f"{seat.seat + 1}. {seat_name(seat)}" for seat in game.seats]
    if not game.seats:
        lines.append(t("lobby.empty"))
    lines += ["", ui.lobby_hint(t, game)]
    return "\n".join(lines)
