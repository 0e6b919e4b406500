"""Who follows games besides the players' chats: the Mini App (``Watchers``) and the
copies of hands inside the group (``HandCopies``). The defaults follow nothing; the app
puts the real ones in (``bot.webapp.live.Hub``, ``bot.delivery.ephemeral.GroupHands``)."""

from __future__ import annotations

from bot.json import Json


class Watchers:
    """Who follows games outside Telegram: the Mini App (``bot.webapp.live.Hub``). By
    default nobody: every hand is edited and every turn pinged, as before."""

    def in_app(self, game_id: int, user_id: int) -> bool:
        """The user has the game open in the Mini App: no hand edit, no ping."""
        return False

    def skipped(self, game_id: int, user_id: int) -> None:
        """An edit of the user's hand message was skipped (they are in the app)."""
        return None

    def changed(self, game_id: int) -> None:
        """The game's version changed (a commit through this process)."""
        return None


class HandCopies:
    """Players' hands shown inside the group as well as in their private chat (ephemeral
    messages: ``bot.delivery.ephemeral.GroupHands``). By default none: a tap on «🂠 My
    cards» is answered that the hand is in the private chat."""

    def used(self, game_id: int) -> bool:
        """Someone has a copy of their hand in this game's group."""
        return False

    async def show(
        self,
        game_id: int,
        user_id: int,
        chat_id: int,
        thread_id: int | None,
        content: tuple[str, Json | None],
        query_id: str,
    ) -> bool:
        """Send a copy answering the user's tap ``query_id``; False: it could not go."""
        return False

    def tapped(self, game_id: int, user_id: int, chat_id: int, ephemeral_id: int) -> bool:
        """The user tapped a button on the copy ``ephemeral_id``; True: it was not the copy
        known (its content is not known either)."""
        return False

    def redraw(
        self,
        game_id: int,
        user_id: int,
        content: tuple[str, Json | None],
        *,
        at_turn: bool = False,
        over: bool = False,
    ) -> None:
        """The user's hand changed; ``at_turn``: bring it anew, it is their turn;
        ``over``: the game is over (its last redraw)."""
        return None

    def status_changed(self, chat_id: int) -> None:
        """The bot's membership of ``chat_id`` changed (an administrator now, or not)."""
        return None

    async def tell(
        self,
        chat_id: int,
        user_id: int,
        thread_id: int | None,
        text: str,
        markup: Json | None,
    ) -> bool:
        """An answer in group ``chat_id`` that only ``user_id`` sees (to their command sent
        so, within Telegram's 15 s); False: it could not go (answer as usual)."""
        return False
