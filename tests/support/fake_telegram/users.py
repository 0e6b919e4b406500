"""Virtual Telegram users that read their chats and tap buttons like a person."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

from .entities import FakeChat, FakeMessage, ForumTopic, PendingCallback
from .miniapps import MiniAppLaunch, launch, mini_app_of

if TYPE_CHECKING:
    from .server import FakeTelegram

_START_PAYLOAD_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(eq=False)
class FakeUser:
    fake: FakeTelegram
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    started: bool = False
    blocked: bool = False
    seen_answers: list[str] = field(default_factory=list)

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    @property
    def dm(self) -> FakeChat:
        """The private chat with the bot (exists even before the user started the bot,
        but the bot cannot write there until then)."""
        return self.fake._private_chat(self)

    @property
    def groups(self) -> list[FakeChat]:
        return [c for c in self.fake.chats.values() if c.is_group and self in c.members]

    def visible_texts(self, include_buttons: bool = True) -> list[str]:
        """Everything this user could ever have seen from the bot: every version of every
        message in their DM and their groups, plus callback answers shown to them."""
        out = self.dm.all_texts(include_buttons)
        for chat in self.groups:
            out.extend(chat.all_texts(include_buttons))
            for msg in chat.ephemerals:
                if msg.seen_by(self):
                    out.extend(msg.texts_shown(include_buttons))
        out.extend(self.seen_answers)
        return out

    # --- actions --------------------------------------------------------------------

    async def start_bot(self, payload: str | None = None) -> FakeMessage:
        """Press Start in the DM: sends "/start" or "/start <payload>"; unblocks the bot."""
        if payload is not None and not _START_PAYLOAD_RE.fullmatch(payload):
            raise AssertionError(
                f"start payload {payload!r} is invalid: Telegram allows 1-64 characters "
                "A-Z a-z 0-9 _ -"
            )
        if self.blocked:
            self.fake.unblock(self)
        self.started = True
        text = "/start" if payload is None else f"/start {payload}"
        return await self.send(self.dm, text)

    async def open_link(self, url: str) -> FakeMessage | None:
        """Follow a link as a client would: a deep link to the bot presses Start with its
        payload; any other link is ignored (returns ``None``)."""
        parsed = urlparse(url if "://" in url else f"https://{url}")
        query = parse_qs(parsed.query)
        if parsed.scheme == "tg":
            name = (query.get("domain") or [""])[0]
        elif parsed.netloc.lower() in ("t.me", "telegram.me", "www.t.me"):
            name = parsed.path.strip("/").split("/")[0]
        else:
            return None
        if name.lower() != self.fake.bot_username.lower():
            return None
        start = query.get("start")
        return await self.start_bot(start[0] if start else None)

    async def send(
        self,
        chat: FakeChat,
        text: str,
        *,
        topic: ForumTopic | None = None,
        message_thread_id: int | None = None,
        reply_to: FakeMessage | None = None,
    ) -> FakeMessage:
        """Send a text message (commands like "/newgame" or "/newgame@bot" included)."""
        if topic is not None:
            message_thread_id = topic.message_thread_id
        return self.fake._user_sends(self, chat, text, message_thread_id, reply_to)

    async def send_dm(self, text: str) -> FakeMessage:
        return await self.send(self.dm, text)

    async def tap(
        self,
        message: FakeMessage,
        text: str | None = None,
        *,
        data: str | None = None,
        index: tuple[int, int] | None = None,
    ) -> PendingCallback:
        """Tap an inline button that is currently on the message (by label, callback_data
        or (row, col)). ``await result(timeout=5)`` gives the bot's answer."""
        self._check_can_see(message)
        button = message.find_button(text=text, data=data, index=index)
        if button.callback_data is None:
            raise AssertionError(
                f"button {button.text!r} is a URL button ({button.url}); use open_link()"
            )
        return self.fake._create_callback(self, message, button.callback_data)

    async def tap_raw(self, message: FakeMessage, data: str | bytes) -> PendingCallback:
        """Send a callback query with arbitrary (forged, stale, binary) data for a message,
        whether or not such a button exists."""
        if isinstance(data, bytes):
            data = data.decode("utf-8", errors="replace")
        return self.fake._create_callback(self, message, data)

    async def open_button(
        self, message: FakeMessage, text: str | None = None, *, index: tuple[int, int] | None = None
    ) -> FakeMessage | None:
        """Tap a URL button (e.g. a deep link to the bot)."""
        self._check_can_see(message)
        button = message.find_button(text=text, index=index)
        if button.url is None:
            raise AssertionError(f"button {button.text!r} has no URL")
        return await self.open_link(button.url)

    def open_mini_app(self, link: str, chat: FakeChat | None = None) -> MiniAppLaunch:
        """Tap a direct link to the bot's Mini App (``t.me/<bot>?startapp=…`` or
        ``t.me/<bot>/<short name>?startapp=…``) in ``chat``: the app the owner registered
        in @BotFather opens, handed its signed launch data. AssertionError when the link
        is not one, or names an app the bot has not."""
        found = mini_app_of(link, self.fake.bot_username)
        if found is None:
            raise AssertionError(f"{link!r} is no direct link to @{self.fake.bot_username}'s app")
        name, start = found
        registered = self.fake.main_mini_app if name is None else self.fake.mini_apps.get(name)
        if registered is None:
            raise AssertionError(f"@{self.fake.bot_username} has no Mini App {name or '(main)'}")
        return launch(self.fake.token, registered, self, start, chat)

    def open_app_button(self, message: FakeMessage, text: str | None = None) -> MiniAppLaunch:
        """Tap a URL button that opens the bot's Mini App, in the message's chat."""
        self._check_can_see(message)
        button = message.find_button(text=text)
        if button.url is None:
            raise AssertionError(f"button {button.text!r} has no URL")
        return self.open_mini_app(button.url, message.chat)

    def block_bot(self) -> None:
        self.fake.block(self)

    def _check_can_see(self, message: FakeMessage) -> None:
        chat = message.chat
        if message.deleted:
            raise AssertionError(f"{self.first_name} cannot tap a deleted message: {message!r}")
        if chat.is_private and chat.user is not self:
            raise AssertionError(f"{self.first_name} cannot see {chat.user}'s DM")
        if chat.is_group and self not in chat.members:
            raise AssertionError(f"{self.first_name} is not a member of {chat!r}")
        if not message.seen_by(self):
            raise AssertionError(f"{self.first_name} does not see {message!r}")

    def __repr__(self) -> str:
        return f"<FakeUser {self.id} {self.first_name}>"
