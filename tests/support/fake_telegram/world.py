"""The fake's world: users, groups and what people do in them (join, leave, block the
bot, kick it, upgrade a group, send a message, tap a button), each turned into the
update Telegram would send. A mixin of :class:`FakeTelegram`, whose state it uses."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any

from .entities import FakeChat, FakeMessage, PendingCallback
from .methods import ADMIN_RIGHTS
from .users import FakeUser


class World:
    def add_user(
        self,
        first_name: str,
        username: str | None = None,
        language_code: str | None = "en",
        *,
        last_name: str | None = None,
        user_id: int | None = None,
        started: bool = False,
    ) -> FakeUser:
        user = FakeUser(
            self,
            user_id if user_id is not None else next(self._user_ids),
            first_name,
            last_name,
            username,
            language_code,
            started=started,
        )
        self.users[user.id] = user
        return user

    def add_group(
        self,
        title: str,
        members: Iterable[FakeUser] = (),
        *,
        supergroup: bool = False,
        forum: bool = False,
        username: str | None = None,
    ) -> FakeChat:
        if forum:
            supergroup = True
        chat_id = -next(self._supergroup_ids) if supergroup else -next(self._group_ids)
        chat = FakeChat(
            self,
            chat_id,
            "supergroup" if supergroup else "group",
            title=title,
            username=username,
            is_forum=forum,
            members=list(members),
        )
        self.chats[chat.id] = chat
        return chat

    def _private_chat(self, user: FakeUser) -> FakeChat:
        chat = self.chats.get(user.id)
        if chat is None:
            chat = FakeChat(self, user.id, "private", user=user)
            self.chats[user.id] = chat
        return chat

    def chat(self, chat_id: int) -> FakeChat:
        return self.chats[chat_id]

    def bot_user_api(self) -> dict[str, Any]:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_name,
            "username": self.bot_username,
        }

    def add_member(self, group: FakeChat, user: FakeUser) -> FakeMessage:
        """``user`` joins ``group``; the bot gets the new_chat_members service message."""
        if user not in group.members:
            group.members.append(user)
        msg = group._add_message(from_user=user, service={"new_chat_members": [user.to_api()]})
        self._push_update("message", msg.to_api())
        return msg

    def remove_member(self, group: FakeChat, user: FakeUser) -> FakeMessage:
        if user in group.members:
            group.members.remove(user)
        msg = group._add_message(from_user=user, service={"left_chat_member": user.to_api()})
        self._push_update("message", msg.to_api())
        return msg

    def future_update(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """An update of a kind Telegram added after the bot's aiogram was released."""
        return self._push_update(kind, payload)

    def raw_update(self, kind: str, payload: Any) -> dict[str, Any]:
        """An update exactly as given, whether aiogram's models read it or not: Telegram
        sends what its API says today, and aiogram's models lag behind or differ."""
        return self._push_update(kind, payload, validate=False)

    def block(self, user: FakeUser) -> None:
        """The user blocks the bot: further sends to their DM get 403."""
        if not user.blocked:
            user.blocked = True
            self._my_chat_member(user.dm, user, "member", "kicked")

    def unblock(self, user: FakeUser) -> None:
        if user.blocked:
            user.blocked = False
            self._my_chat_member(user.dm, user, "kicked", "member")

    def kick_bot(self, group: FakeChat, status: str = "left") -> None:
        """Remove the bot from a group: sends there get 403. ``status``: "left" (removed)
        or "kicked" (banned)."""
        group.bot_is_member = False
        by = group.members[0] if group.members else None
        if by is not None:
            self._my_chat_member(group, by, "member", status)

    def add_bot(self, group: FakeChat, status: str = "left") -> None:
        """Add the bot back to a group it was removed from (``status``: how it was)."""
        group.bot_is_member = True
        by = group.members[0] if group.members else None
        if by is not None:
            self._my_chat_member(group, by, status, "member")

    def set_bot_admin(self, group: FakeChat, admin: bool = True) -> None:
        """Promote the bot to administrator of ``group`` (or demote it): getChatMember
        says so, an ephemeral message may go to a member at any time, and the bot gets
        the my_chat_member update Telegram sends."""
        if group.bot_is_admin == admin:
            return
        group.bot_is_admin = admin
        by = group.members[0] if group.members else None
        if by is not None:
            old, new = ("member", "administrator") if admin else ("administrator", "member")
            self._my_chat_member(group, by, old, new)

    def _my_chat_member(self, chat: FakeChat, by: FakeUser, old: str, new: str) -> None:
        def member(status: str) -> dict[str, Any]:
            data: dict[str, Any] = {"status": status, "user": self.bot_user_api()}
            if status == "kicked":
                data["until_date"] = 0
            if status == "administrator":
                data.update({right: False for right in ADMIN_RIGHTS})
                data.update(can_delete_messages=True, can_be_edited=False, is_anonymous=False)
            return data

        self._push_update(
            "my_chat_member",
            {
                "chat": chat.to_api(),
                "from": by.to_api(),
                "date": int(time.time()),
                "old_chat_member": member(old),
                "new_chat_member": member(new),
            },
        )

    def migrate(self, group: FakeChat, by: FakeUser | None = None) -> FakeChat:
        """Upgrade a basic group to a supergroup with a new id, as Telegram does."""
        if group.type != "group" or group.migrated_to is not None:
            raise AssertionError(f"{group!r} is not a basic group that can be migrated")
        new = FakeChat(
            self,
            -next(self._supergroup_ids),
            "supergroup",
            title=group.title,
            members=list(group.members),
        )
        self.chats[new.id] = new
        group.migrated_to = new
        new.migrated_from = group
        actor = by or (group.members[0] if group.members else None)
        old_msg = group._add_message(from_user=actor, service={"migrate_to_chat_id": new.id})
        new_msg = new._add_message(from_user=actor, service={"migrate_from_chat_id": group.id})
        self._push_update("message", old_msg.to_api())
        self._push_update("message", new_msg.to_api())
        return new

    def _user_sends(
        self,
        user: FakeUser,
        chat: FakeChat,
        text: str,
        thread_id: int | None,
        reply_to: FakeMessage | None,
    ) -> FakeMessage:
        if chat.is_private:
            if chat.user is not user:
                raise AssertionError(f"{user!r} cannot write in another user's DM")
            if user.blocked:
                raise AssertionError(f"{user!r} blocked the bot; call start_bot() to unblock")
            if not user.started:
                if not text.startswith("/start"):
                    raise AssertionError(f"{user!r} must press Start first (start_bot())")
                user.started = True
        else:
            if user not in chat.members:
                raise AssertionError(f"{user!r} is not a member of {chat!r}")
            if chat.migrated_to is not None:
                raise AssertionError(f"{chat!r} was migrated to {chat.migrated_to!r}")
            if chat.is_forum and thread_id is not None and thread_id not in chat.topics:
                raise AssertionError(f"no topic {thread_id} in {chat!r}")
        entities: list[dict[str, Any]] = []
        addressed_to_us = True
        if text.startswith("/"):
            token = text.split(maxsplit=1)[0]
            entities.append({"type": "bot_command", "offset": 0, "length": len(token)})
            if "@" in token:
                addressed_to_us = token.split("@", 1)[1].lower() == self.bot_username.lower()
        if (
            chat.is_group
            and entities
            and addressed_to_us
            and self.ephemeral_commands
            and self._ephemeral_command(text)
        ):
            # A command the bot marked is_ephemeral: the client sends it so that only its
            # sender and the bot see it, and the bot may answer the sender ephemerally.
            chat.last_interaction[user.id] = time.monotonic()
            msg = chat._add_ephemeral(from_user=user, text=text, entities=entities)
            self._push_update("message", msg.to_api())
            return msg
        msg = chat._add_message(
            from_user=user,
            text=text,
            entities=entities,
            message_thread_id=thread_id,
            reply_to=reply_to,
        )
        deliver = chat.is_private or not self.privacy_mode
        if not deliver:
            mention = f"@{self.bot_username}".lower() in text.lower()
            replied = reply_to is not None and reply_to.is_from_bot
            deliver = (bool(entities) and addressed_to_us) or mention or replied
        if deliver:
            self._push_update("message", msg.to_api())
        return msg

    def _ephemeral_command(self, text: str) -> bool:
        """``text`` starts with a command the bot set for groups with is_ephemeral."""
        name = text.split(maxsplit=1)[0][1:].split("@", 1)[0].lower()
        return any(
            c["command"] == name and c.get("is_ephemeral")
            for (scope, _), listed in self.commands.items()
            if scope in ("default", "all_group_chats") or scope.startswith("chat:")
            for c in listed
        )

    def _create_callback(self, user: FakeUser, message: FakeMessage, data: str) -> PendingCallback:
        cid = str(next(self._callback_ids))
        if message.chat.is_group:
            message.chat.last_interaction[user.id] = time.monotonic()
        payload = {
            "id": cid,
            "from": user.to_api(),
            "message": message.to_api(),
            "chat_instance": str(abs(message.chat.id) * 31 + 17),
            "data": data,
        }
        update = self._push_update("callback_query", payload)
        pending = PendingCallback(
            cid,
            user,
            message,
            data,
            time.monotonic(),
            asyncio.get_running_loop().create_future(),
            update["update_id"],
        )
        self.callbacks[cid] = pending
        return pending

    def unanswered_callbacks(self) -> list[PendingCallback]:
        return [c for c in self.callbacks.values() if not c.answered]
