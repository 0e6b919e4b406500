"""Chats, messages and callback queries kept by the fake Telegram."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .server import FakeTelegram
    from .users import FakeUser

ChatType = Literal["private", "group", "supergroup"]


class Button(tuple[str, str | None]):
    """One inline button as ``(text, callback_data or url)`` with the raw dict at hand."""

    raw: dict[str, Any]

    def __new__(cls, raw: dict[str, Any]) -> Button:
        value = raw.get("callback_data", raw.get("url"))
        self = super().__new__(cls, (str(raw.get("text", "")), value))
        self.raw = raw
        return self

    @property
    def text(self) -> str:
        return self[0]

    @property
    def callback_data(self) -> str | None:
        value = self.raw.get("callback_data")
        return value if isinstance(value, str) else None

    @property
    def url(self) -> str | None:
        value = self.raw.get("url")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class MessageVersion:
    """One state a message was shown in (the original or an edit)."""

    text: str | None
    entities: tuple[tuple[Any, ...], ...]
    reply_markup: dict[str, Any] | None
    time: float


def _entity_key(entities: list[dict[str, Any]]) -> tuple[tuple[Any, ...], ...]:
    return tuple((e.get("type"), e.get("offset"), e.get("length"), e.get("url")) for e in entities)


@dataclass(eq=False)
class FakeMessage:
    chat: FakeChat
    message_id: int
    date: int
    from_user: FakeUser | None  # None: sent by the bot
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    message_thread_id: int | None = None
    reply_to: FakeMessage | None = None
    service: dict[str, Any] = field(default_factory=dict)
    deleted: bool = False
    edit_date: int | None = None
    pinned: bool = False
    history: list[MessageVersion] = field(default_factory=list)
    # A photo or document message: ``text`` then holds its caption (what people read).
    photo: bytes | None = None
    document: tuple[str, bytes] | None = None
    # An ephemeral message (Bot API 10.2): seen only by ``receiver`` (the bot's) or by its
    # sender and the bot (a user's ephemeral command); ``message_id`` is 0 in the API and
    # ``ephemeral_id`` names it. ``lost``: Telegram took it but it never reached the
    # receiver (they were offline, their app restarted): it is not shown, nor its edits.
    receiver: FakeUser | None = None
    ephemeral_id: int | None = None
    lost: bool = False
    seq: int = 0  # the order of all messages of the chat, ephemeral or not

    def __post_init__(self) -> None:
        if not self.history:
            self._remember()

    def _remember(self) -> None:
        self.history.append(
            MessageVersion(
                self.text, _entity_key(self.entities), self.reply_markup, time.monotonic()
            )
        )

    @property
    def is_from_bot(self) -> bool:
        return self.from_user is None

    @property
    def is_ephemeral(self) -> bool:
        return self.ephemeral_id is not None

    def seen_by(self, user: FakeUser) -> bool:
        """``user`` has this message on their screen (or had, if deleted since)."""
        if not self.is_ephemeral:
            return True
        if self.from_user is user:
            return True
        return self.receiver is user and not self.lost

    @property
    def keyboard(self) -> list[list[dict[str, Any]]]:
        """The raw inline keyboard (rows of button dicts), empty without one."""
        if not self.reply_markup:
            return []
        rows: list[list[dict[str, Any]]] = self.reply_markup.get("inline_keyboard", [])
        return rows

    @property
    def buttons(self) -> list[list[Button]]:
        """Rows of ``(text, callback_data or url)``."""
        return [[Button(b) for b in row] for row in self.keyboard]

    @property
    def button_texts(self) -> list[str]:
        return [b.text for row in self.buttons for b in row]

    def find_button(
        self,
        text: str | None = None,
        data: str | None = None,
        index: tuple[int, int] | None = None,
    ) -> Button:
        """Find a button by exact text (or substring), callback_data or (row, col)."""
        rows = self.buttons
        if index is not None:
            r, c = index
            try:
                return rows[r][c]
            except IndexError:
                raise AssertionError(f"no button at {index} in {self.describe()}") from None
        flat = [b for row in rows for b in row]
        if data is not None:
            for b in flat:
                if b.callback_data == data:
                    return b
            raise AssertionError(f"no button with data {data!r} in {self.describe()}")
        if text is not None:
            for b in flat:
                if b.text == text:
                    return b
            partial = [b for b in flat if text in b.text]
            if len(partial) == 1:
                return partial[0]
            raise AssertionError(f"no single button with text {text!r} in {self.describe()}")
        raise ValueError("give text=, data= or index=")

    def has_button(self, text: str) -> bool:
        return any(text in t for t in self.button_texts)

    def texts_shown(self, include_buttons: bool = True) -> list[str]:
        out: list[str] = []
        for version in self.history:
            if version.text is not None:
                out.append(version.text)
            if include_buttons and version.reply_markup:
                for row in version.reply_markup.get("inline_keyboard", []):
                    out.extend(str(b.get("text", "")) for b in row)
        return out

    def describe(self) -> str:
        who = "bot" if self.from_user is None else self.from_user.first_name
        flag = " [deleted]" if self.deleted else ""
        text = (self.text or "")[:200]
        kb = f" buttons={self.buttons}" if self.reply_markup else ""
        return f"#{self.message_id} in {self.chat.id} from {who}{flag}: {text!r}{kb}"

    def __repr__(self) -> str:
        return f"<FakeMessage {self.describe()}>"

    def to_api(self, *, with_reply: bool = True) -> dict[str, Any]:
        fake = self.chat.fake
        data: dict[str, Any] = {
            "message_id": 0 if self.is_ephemeral else self.message_id,
            "date": self.date,
            "chat": self.chat.to_api(),
        }
        data["from"] = fake.bot_user_api() if self.from_user is None else self.from_user.to_api()
        if self.ephemeral_id is not None:
            data["ephemeral_message_id"] = self.ephemeral_id
            data["receiver_user"] = (
                fake.bot_user_api() if self.receiver is None else self.receiver.to_api()
            )
        if self.message_thread_id is not None:
            data["message_thread_id"] = self.message_thread_id
            if self.chat.is_forum:
                data["is_topic_message"] = True
        media = self.photo is not None or self.document is not None
        if self.photo is not None:
            data["photo"] = [
                {
                    "file_id": f"photo{self.message_id}",
                    "file_unique_id": f"p{self.message_id}",
                    "width": 800,
                    "height": 460,
                    "file_size": len(self.photo),
                }
            ]
        if self.document is not None:
            data["document"] = {
                "file_id": f"doc{self.message_id}",
                "file_unique_id": f"d{self.message_id}",
                "file_name": self.document[0],
                "file_size": len(self.document[1]),
            }
        if self.text is not None:
            data["caption" if media else "text"] = self.text
        if self.entities:
            data["caption_entities" if media else "entities"] = self.entities
        if self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if with_reply and self.reply_to is not None:
            data["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        data.update(self.service)
        return data


@dataclass(frozen=True)
class ForumTopic:
    chat: FakeChat
    message_thread_id: int
    name: str


@dataclass(eq=False)
class FakeChat:
    fake: FakeTelegram
    id: int
    type: ChatType
    title: str | None = None
    username: str | None = None
    is_forum: bool = False
    user: FakeUser | None = None  # the other side of a private chat
    members: list[FakeUser] = field(default_factory=list)
    all_messages: list[FakeMessage] = field(default_factory=list)
    topics: dict[int, ForumTopic] = field(default_factory=dict)
    migrated_to: FakeChat | None = None
    migrated_from: FakeChat | None = None
    bot_is_member: bool = True
    admins: set[int] = field(default_factory=set)  # user ids getChatMember calls admins
    # getChatMember says the bot is an administrator (FakeTelegram.set_bot_admin): it may
    # send an ephemeral message to a member at any time, not only after their tap.
    bot_is_admin: bool = False
    # Ephemeral messages (each seen by one member), oldest first; deleted ones too.
    ephemerals: list[FakeMessage] = field(default_factory=list)
    # user id -> monotonic time of their latest callback query or ephemeral command here:
    # a bot that is not an administrator may send them an ephemeral within 15 s of it.
    last_interaction: dict[int, float] = field(default_factory=dict)
    _next_message_id: int = 1
    _next_ephemeral_id: int = 1
    _next_seq: int = 1

    @property
    def is_private(self) -> bool:
        return self.type == "private"

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def to_api(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.is_private and self.user is not None:
            data["first_name"] = self.user.first_name
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
        else:
            data["title"] = self.title
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data

    def _add_message(self, **kwargs: Any) -> FakeMessage:
        msg = FakeMessage(
            chat=self,
            message_id=self._next_message_id,
            date=int(time.time()),
            seq=self._next_seq,
            **kwargs,
        )
        self._next_message_id += 1
        self._next_seq += 1
        self.all_messages.append(msg)
        return msg

    def _add_ephemeral(self, **kwargs: Any) -> FakeMessage:
        msg = FakeMessage(
            chat=self,
            message_id=0,
            date=int(time.time()),
            seq=self._next_seq,
            ephemeral_id=self._next_ephemeral_id,
            **kwargs,
        )
        self._next_ephemeral_id += 1
        self._next_seq += 1
        self.ephemerals.append(msg)
        return msg

    def get_ephemeral(self, ephemeral_id: int, receiver: FakeUser) -> FakeMessage | None:
        for msg in self.ephemerals:
            if msg.ephemeral_id == ephemeral_id and msg.receiver is receiver and not msg.deleted:
                return msg
        return None

    def view(self, user: FakeUser) -> list[FakeMessage]:
        """What ``user`` sees in this chat now, oldest first: the messages everyone sees
        and the ephemeral ones that reached them (not the ones lost on the way)."""
        mine = [m for m in self.ephemerals if not m.deleted and m.seen_by(user)]
        return sorted([*self.messages, *mine], key=lambda m: m.seq)

    def ephemerals_for(self, user: FakeUser) -> list[FakeMessage]:
        """The bot's ephemeral messages on ``user``'s screen here, oldest first."""
        return [
            m
            for m in self.ephemerals
            if m.receiver is user and m.from_user is None and not m.deleted and not m.lost
        ]

    def last_ephemeral(self, user: FakeUser) -> FakeMessage | None:
        found = self.ephemerals_for(user)
        return found[-1] if found else None

    def get_message(self, message_id: int) -> FakeMessage | None:
        for msg in self.all_messages:
            if msg.message_id == message_id:
                return msg
        return None

    @property
    def messages(self) -> list[FakeMessage]:
        """Messages that are still there (not deleted), oldest first."""
        return [m for m in self.all_messages if not m.deleted]

    def messages_in(self, thread_id: int | None) -> list[FakeMessage]:
        return [m for m in self.messages if m.message_thread_id == thread_id]

    def bot_messages(self, thread_id: int | Literal["any"] | None = "any") -> list[FakeMessage]:
        return [
            m
            for m in self.messages
            if m.is_from_bot
            and not m.service
            and (thread_id == "any" or m.message_thread_id == thread_id)
        ]

    def last_bot_message(
        self, thread_id: int | Literal["any"] | None = "any"
    ) -> FakeMessage | None:
        found = self.bot_messages(thread_id)
        return found[-1] if found else None

    def last_message(self) -> FakeMessage | None:
        msgs = self.messages
        return msgs[-1] if msgs else None

    def find_messages(self, predicate: Callable[[FakeMessage], bool]) -> list[FakeMessage]:
        return [m for m in self.messages if predicate(m)]

    def bot_messages_containing(self, text: str) -> list[FakeMessage]:
        return [m for m in self.bot_messages() if m.text is not None and text in m.text]

    def all_texts(self, include_buttons: bool = True) -> list[str]:
        """Every text ever shown here: all versions of every message, deleted ones too,
        and (by default) every button label."""
        out: list[str] = []
        for msg in self.all_messages:
            out.extend(msg.texts_shown(include_buttons))
        return out

    @property
    def pinned_messages(self) -> list[FakeMessage]:
        return [m for m in self.messages if m.pinned]

    def create_topic(self, name: str) -> ForumTopic:
        """Create a forum topic (the chat must be a forum supergroup)."""
        if not self.is_forum:
            raise AssertionError(f"chat {self.id} is not a forum")
        msg = self._add_message(
            from_user=self.members[0] if self.members else None,
            service={"forum_topic_created": {"name": name, "icon_color": 7322096}},
        )
        msg.message_thread_id = msg.message_id
        topic = ForumTopic(self, msg.message_id, name)
        self.topics[topic.message_thread_id] = topic
        return topic

    def describe(self, last: int = 5) -> str:
        name = self.title or (self.user.first_name if self.user else "?")
        lines = [f"chat {self.id} ({self.type} {name!r}):"]
        lines.extend(f"  {m.describe()}" for m in self.messages[-last:])
        return "\n".join(lines)

    def __repr__(self) -> str:
        name = self.title or (self.user.first_name if self.user else "?")
        return f"<FakeChat {self.id} {self.type} {name!r}>"


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot answered to a callback query."""

    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int | None


class CallbackNotAnswered(AssertionError):
    pass


@dataclass(eq=False)
class PendingCallback:
    """A tap waiting for answerCallbackQuery. ``await pending(timeout=5)`` (or
    ``await pending.wait(5)``) returns the :class:`CallbackAnswer`."""

    id: str
    user: FakeUser
    message: FakeMessage
    data: str
    created: float
    future: asyncio.Future[CallbackAnswer]
    update_id: int

    @property
    def answer(self) -> CallbackAnswer | None:
        """The answer if the bot has answered already."""
        if self.future.done() and not self.future.cancelled():
            return self.future.result()
        return None

    @property
    def answered(self) -> bool:
        return self.answer is not None

    async def wait(self, timeout: float = 5.0) -> CallbackAnswer:
        try:
            return await asyncio.wait_for(asyncio.shield(self.future), timeout)
        except TimeoutError:
            raise CallbackNotAnswered(
                f"callback {self.data!r} tapped by {self.user.first_name} on "
                f"{self.message.describe()} was not answered within {timeout}s"
            ) from None

    async def __call__(self, timeout: float = 5.0) -> CallbackAnswer:
        return await self.wait(timeout)

    def __repr__(self) -> str:
        return f"<PendingCallback {self.id} {self.data!r} by {self.user.first_name}>"
