"""The outbox as the flows write it: the operations that tell players about a change
(committed with it, or queued alone for a redraw that changes no game), the event that
wakes the delivery worker, and who else follows a change (``bot.service.followers``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from bot.delivery.attachments import is_attachment
from bot.json import Json
from bot.service.followers import HandCopies, Watchers
from bot.service.live import OPEN, LiveGame, in_private_chat
from bot.views import render
from storage import Backend, Game, OutboxOp


class Outbox:
    def __init__(self, storage: Backend) -> None:
        self.storage = storage
        self.ready = asyncio.Event()
        self.watchers = Watchers()
        self.hand_copies = HandCopies()

    # --- operations ----------------------------------------------------------------

    @staticmethod
    def _group(live: LiveGame, payload: Json) -> Json:
        if live.game.thread_id is not None:
            payload["message_thread_id"] = live.game.thread_id
        return payload

    def group_payload(
        self, live: LiveGame, text: str, markup: render.Keyboard | None = None
    ) -> Json:
        """A group message's text and buttons, in the game's topic."""
        return self._group(live, {"text": text, "reply_markup": markup})

    def group_send(
        self, live: LiveGame, text: str, markup: render.Keyboard | None = None
    ) -> OutboxOp:
        payload = self.group_payload(live, text, markup)
        return OutboxOp(live.game.chat_id, "send", payload, live.game.id, None)

    def group_edit(
        self, live: LiveGame, role: str, text: str, markup: render.Keyboard | None = None
    ) -> OutboxOp:
        payload = self.group_payload(live, text, markup)
        return OutboxOp(live.game.chat_id, "edit", payload, live.game.id, role)

    @staticmethod
    def dm_edit(
        live: LiveGame,
        user_id: int,
        text: str,
        markup: render.Keyboard | None,
        milestone: str | None = None,
    ) -> OutboxOp:
        payload = {"text": text, "reply_markup": markup}
        return OutboxOp(user_id, "edit", payload, live.game.id, f"hand:{user_id}", milestone)

    def ping(self, live: LiveGame, user_id: int, text: str) -> tuple[OutboxOp, ...]:
        """Replace the player's previous ping with a new message (edits do not notify);
        none for a player who has the game open in the Mini App, which shows
        the turn and its timer."""
        if self.watchers.in_app(live.game.id, user_id):
            return ()
        live.unpinged.discard(user_id)
        return (
            self.ping_delete(live, user_id),
            OutboxOp(user_id, "send", {"text": text}, live.game.id, f"ping:{user_id}"),
        )

    @staticmethod
    def ping_delete(live: LiveGame, user_id: int) -> OutboxOp:
        """Take down the user's ping in this game, whatever message it is by now."""
        return OutboxOp(user_id, "delete", {}, live.game.id, f"ping:{user_id}")

    def unping(self, live: LiveGame, user_id: int) -> list[OutboxOp]:
        """The user's ping taken down: the turn it was for has been played."""
        if user_id in live.unpinged:
            return []
        live.unpinged.add(user_id)
        return [self.ping_delete(live, user_id)]

    def in_app(self, live: LiveGame, user_id: int, *, skipping: bool = False) -> bool:
        """The user has this game open in the Mini App: their hand message is
        not edited on each move (``skipping``: one is being skipped now; it is brought up
        to date once they leave, ``app_left``) and they are not pinged."""
        if not self.watchers.in_app(live.game.id, user_id):
            return False
        if skipping:
            self.watchers.skipped(live.game.id, user_id)
        return True

    # --- sending ---------------------------------------------------------------------

    async def redraw(self, live: LiveGame, ops: tuple[OutboxOp, ...]) -> None:
        """Queue ``ops`` that change no game (a hand redrawn as it is), its copies too."""
        await self.storage.enqueue(ops)
        self.copy_hands(live, ops)
        self.ready.set()

    def committed(self, live: LiveGame, ops: tuple[OutboxOp, ...]) -> None:
        """``ops`` were committed with a change of ``live``'s game."""
        self.ready.set()
        self.watchers.changed(live.game.id)
        self.copy_hands(live, ops)

    def copy_hands(self, live: LiveGame, ops: Sequence[OutboxOp]) -> None:
        """The hands ``ops`` redraw in private chats, redrawn in their copies inside the
        group too (``HandCopies``): the same text and buttons, for the same version. A
        player pinged for their turn gets it anew where the chat asks for that."""
        if in_private_chat(live.game) or not self.hand_copies.used(live.game.id):
            return
        pinged = {
            op.chat_id for op in ops if op.method == "send" and (op.role or "").startswith("ping:")
        }
        at_each_turn = live.settings.group_hands == "turn"
        over = live.game.status not in OPEN
        for op in ops:
            if op.method != "edit" or op.role != f"hand:{op.chat_id}":
                continue
            content = (str(op.payload["text"]), in_group(op.payload.get("reply_markup")))
            at_turn = at_each_turn and op.chat_id in pinged
            self.hand_copies.redraw(live.game.id, op.chat_id, content, at_turn=at_turn, over=over)


def in_group(markup: Json | None) -> Json | None:
    """A private hand's keyboard as a group may carry it: without its Mini App button
    (Telegram allows ``web_app`` buttons in private chats only)."""
    if not markup:
        return None
    rows = [
        [button for button in row if "web_app" not in button]
        for row in markup.get("inline_keyboard", [])
    ]
    rows = [row for row in rows if row]
    return {"inline_keyboard": rows} if rows else None


def one_message(game: Game, ops: tuple[OutboxOp, ...]) -> tuple[OutboxOp, ...]:
    """A private chat takes about one message a second, so a change there costs at most
    one operation: its one game message (the ``hand:`` role, carrying the table and the
    hand) with the change's notes (a «Стоп!», a player marked away) above. Pings are
    dropped (the player is looking at that message, which shows the turn and the
    clock), and so are the group's table and lobby, which that message shows. Only a
    picture or a document (the series result) goes as a message of its own."""
    screen: OutboxOp | None = None
    notes: list[str] = []
    kept: list[OutboxOp] = []
    for op in ops:
        role = op.role or ""
        if op.chat_id != game.chat_id or is_attachment(op.payload):
            kept.append(op)
        elif role.startswith("hand:"):
            screen = op
        elif op.method == "send" and not role and not op.payload.get("reply_markup"):
            notes.append(str(op.payload["text"]))
        elif not role:
            kept.append(op)  # a question with buttons of its own (a /cancel)
    if screen is None:
        return tuple(kept) + tuple(
            OutboxOp(game.chat_id, "send", {"text": note}, game.id) for note in notes
        )
    if notes:
        text = "\n\n".join([*notes, str(screen.payload["text"])])
        screen = replace(screen, payload={**screen.payload, "text": text})
    return (*kept, screen)
