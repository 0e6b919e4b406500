"""The bot's own settings for every game, and the time and chance the flows read."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.service.live import LiveGame

# Seconds a move that comes by itself (``GameSide.by_itself``: Bura's draw after a trick)
# waits for the player's other choice (a declaration, D5), timer or no timer.
BY_ITSELF_AFTER = 5.0


@dataclass
class ServiceSettings:
    """Shared by every flow as one object, so that setting the clock or the shuffles on
    the running service (a test, the screens dump) sets them for all of them."""

    bot_username: str
    default_language: str = "ru"
    turn_timeout: float = 90
    away_after: int = 2
    lobby_timeout: float = 3600
    computer_pause: float = 1.2
    by_itself_after: float = BY_ITSELF_AFTER
    away_stand_in: str | None = "normal"
    clock: Callable[[], float] = time.time
    rng: random.Random = field(default_factory=random.SystemRandom)
    # WEBAPP_URL: the hand messages carry an «🃏 Open table» Mini App button.
    webapp_url: str | None = None
    # WEBAPP_LINK: the direct link to a game's table in the Mini App (its signed start
    # parameter made by ``WebApp.table_start``), on a «🃏 Table» button under the
    # group's table; None: no such button.
    table_link: Callable[[int], str] | None = None

    def turn_timeout_of(self, live: LiveGame) -> float:
        """The chat's turn timer (0: none), else the bot's."""
        timer = live.settings.turn_timer
        return self.turn_timeout if timer is None else float(timer)

    def stand_in_of(self, live: LiveGame) -> str | None:
        """Who plays for a player marked away: the chat's choice, else the bot's."""
        chosen = live.settings.stand_in
        if chosen is None:
            return self.away_stand_in
        return None if chosen == "off" else chosen
