"""The Bot API methods the fake answers, each checked the way Telegram checks it
(chat, rights, rate limits, text and markup) and applied to the fake's state. A mixin
of :class:`FakeTelegram`, whose state it uses; ``handlers`` maps a method to its code."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .entities import CallbackAnswer, FakeChat, FakeMessage
from .limits import FloodViolation, retry_after_seconds
from .text import ApiError, bad_request, check_reply_markup, int_or_none, render_text

QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
EPHEMERAL_NOT_ALLOWED = (
    "not enough rights to send an ephemeral message to the user: a bot that is not an "
    "administrator may send one only within 15 seconds of the user's callback query"
)
# Files uploaded with the request being handled (multipart field name -> name, bytes).
UPLOADS: contextvars.ContextVar[dict[str, tuple[str, bytes]]] = contextvars.ContextVar("uploads")

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class BotMethods:
    def handlers(self) -> dict[str, Handler]:
        """Each implemented method (lower case) and the code that answers it."""
        return {
            "getme": self._get_me,
            "logout": self._true,
            "close": self._true,
            "deletewebhook": self._delete_webhook,
            "setwebhook": self._set_webhook,
            "getwebhookinfo": self._get_webhook_info,
            "getupdates": self._get_updates,
            "sendmessage": self._send_message,
            "sendphoto": self._send_photo,
            "senddocument": self._send_document,
            "editmessagetext": self._edit_message_text,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "deletemessage": self._delete_message,
            "editephemeralmessagetext": self._edit_ephemeral_text,
            "editephemeralmessagereplymarkup": self._edit_ephemeral_reply_markup,
            "deleteephemeralmessage": self._delete_ephemeral,
            "deletemessages": self._delete_messages,
            "answercallbackquery": self._answer_callback_query,
            "setmycommands": self._set_my_commands,
            "deletemycommands": self._delete_my_commands,
            "getmycommands": self._get_my_commands,
            "pinchatmessage": self._pin_chat_message,
            "unpinchatmessage": self._unpin_chat_message,
            "unpinallchatmessages": self._unpin_all,
            "getchat": self._get_chat,
            "getchatmember": self._get_chat_member,
            "getchatmembercount": self._get_chat_member_count,
            "sendchataction": self._send_chat_action,
            "setmydescription": self._store_setting,
            "setmyshortdescription": self._store_setting,
            "setmyname": self._store_setting,
            "setchatmenubutton": self._store_setting,
            "setmydefaultadministratorrights": self._store_setting,
        }

    # --- common checks --------------------------------------------------------------

    def _resolve_chat(self, chat_id: Any) -> FakeChat:
        cid = int_or_none(chat_id)
        chat: FakeChat | None = None
        if cid is not None:
            chat = self.chats.get(cid)
            if chat is None and cid in self.users:
                chat = self._private_chat(self.users[cid])
        elif isinstance(chat_id, str) and chat_id.startswith("@"):
            name = chat_id[1:].lower()
            chat = next(
                (c for c in self.chats.values() if c.username and c.username.lower() == name),
                None,
            )
        if chat is None:
            raise bad_request("chat not found")
        if chat.is_private and chat.user is not None and not chat.user.started:
            if self._current_method.lower() in ("sendmessage", "sendchataction"):
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            raise bad_request("chat not found")
        return chat

    def _check_writable(self, chat: FakeChat) -> None:
        if chat.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to.id},
            )
        if chat.is_private and chat.user is not None:
            if chat.user.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
        elif not chat.bot_is_member:
            kind = "supergroup chat" if chat.type == "supergroup" else "group chat"
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind}")

    def _rate_limit(self, chat: FakeChat) -> None:
        now = time.monotonic()
        self._limiter.limits = self.limits
        verdict = self._limiter.check(chat.id, chat.is_private, now)
        if verdict is not None:
            kind, wait = verdict
            retry = retry_after_seconds(wait)
            self.flood_violations.append(
                FloodViolation(self._current_method, chat.id, kind, retry, now, self.enforce_limits)
            )
            if self.enforce_limits:
                raise ApiError(
                    429, f"Too Many Requests: retry after {retry}", {"retry_after": retry}
                )
        self._limiter.admit(chat.id, chat.is_private, now)

    def _message_for_edit(self, p: dict[str, Any], not_found: str) -> FakeMessage:
        if p.get("inline_message_id"):
            raise bad_request("MESSAGE_ID_INVALID")
        if p.get("chat_id") is None or p.get("message_id") is None:
            raise bad_request("message identifier is not specified")
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        msg = chat.get_message(int(p["message_id"]))
        self._rate_limit(chat)
        if msg is None or msg.deleted or msg.service:
            raise bad_request(not_found)
        return msg

    # --- method handlers ------------------------------------------------------------

    async def _true(self, p: dict[str, Any]) -> bool:
        return True

    async def _store_setting(self, p: dict[str, Any]) -> bool:
        self.bot_settings[self._current_method] = p
        return True

    async def _get_me(self, p: dict[str, Any]) -> dict[str, Any]:
        me = self.bot_user_api()
        me.update(
            can_join_groups=True,
            can_read_all_group_messages=not self.privacy_mode,
            supports_inline_queries=False,
        )
        return me

    async def _delete_webhook(self, p: dict[str, Any]) -> bool:
        self.webhook_url = None
        await self.webhook.stop()
        if p.get("drop_pending_updates"):
            self._pending.clear()
        return True

    async def _set_webhook(self, p: dict[str, Any]) -> bool:
        self.webhook_url = str(p.get("url") or "") or None
        self.webhook_secret = p.get("secret_token") or None
        if self.webhook_url:
            self.webhook.start()
        else:
            await self.webhook.stop()
        return True

    async def _get_webhook_info(self, p: dict[str, Any]) -> dict[str, Any]:
        return {
            "url": self.webhook_url or "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }

    async def _get_updates(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use "
                "deleteWebhook to delete the webhook first",
            )
        offset = int_or_none(p.get("offset"))
        limit = max(1, min(100, int_or_none(p.get("limit")) or 100))
        timeout = max(0, int_or_none(p.get("timeout")) or 0)
        if offset is not None and offset > 0:
            self._pending = [u for u in self._pending if u["update_id"] >= offset]
        elif offset is not None and offset < 0:
            self._pending = self._pending[offset:]
        self._poll_generation += 1
        generation = self._poll_generation
        await self._notify()  # wakes an older long poll, which then answers 409
        assert self._cond is not None
        deadline = time.monotonic() + timeout
        while not self._pending and not self._closing:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            async with self._cond:
                with contextlib.suppress(TimeoutError):  # (asyncio.timeout keeps a cancel)
                    async with asyncio.timeout(remaining):
                        await self._cond.wait()
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; make sure that only "
                    "one bot instance is running",
                )
        return list(self._pending[:limit])

    async def _send_message(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        ephemeral = p.get("ephemeral_message_parameters")
        if ephemeral is None and p.get("receiver_user_id") is not None:
            # The deprecated form (before Bot API 10.3): the same two fields at the top.
            ephemeral = {k: p.get(k) for k in ("receiver_user_id", "callback_query_id")}
        if ephemeral is not None:
            return self._send_ephemeral(chat, p, ephemeral)
        thread_id = int_or_none(p.get("message_thread_id"))
        if chat.is_forum and thread_id is not None and thread_id not in chat.topics:
            raise bad_request("message thread not found")
        if not chat.is_forum:
            thread_id = None
        self._rate_limit(chat)
        text, entities = render_text(p.get("text"), p.get("parse_mode"), p.get("entities"))
        markup = check_reply_markup(p.get("reply_markup"))
        reply_to: FakeMessage | None = None
        reply_params = p.get("reply_parameters")
        reply_id = int_or_none(p.get("reply_to_message_id"))
        allow_without = bool(p.get("allow_sending_without_reply"))
        if isinstance(reply_params, dict):
            reply_id = int_or_none(reply_params.get("message_id"))
            allow_without = bool(reply_params.get("allow_sending_without_reply"))
        if reply_id is not None:
            reply_to = chat.get_message(reply_id)
            if reply_to is None or reply_to.deleted:
                if not allow_without:
                    raise bad_request("message to be replied not found")
                reply_to = None
        msg = chat._add_message(
            from_user=None,
            text=text,
            entities=entities,
            reply_markup=markup,
            message_thread_id=thread_id,
            reply_to=reply_to,
        )
        return msg.to_api()

    # --- ephemeral messages (Bot API 10.2-10.3) -----------------------------------------

    def _send_ephemeral(self, chat: FakeChat, p: dict[str, Any], params: Any) -> dict[str, Any]:
        """A message only ``receiver_user_id`` sees, in a group they are a member of. A bot
        that is not an administrator may send one only within ``ephemeral_window`` seconds
        of that user's callback query (or ephemeral command) in the chat; an administrator
        at any time. Answered as Telegram does: ``message_id`` 0 and an
        ``ephemeral_message_id``. Delivery is not guaranteed: a loss queued with
        ``lose_ephemeral`` is answered the same, and the user never sees it."""
        if not isinstance(params, dict):
            raise bad_request("ephemeral_message_parameters must be an object")
        if not chat.is_group:
            raise bad_request("ephemeral messages can be sent only to group and supergroup chats")
        receiver = self.users.get(int_or_none(params.get("receiver_user_id")) or 0)
        if receiver is None or receiver not in chat.members:
            raise bad_request("PARTICIPANT_ID_INVALID")
        if params.get("replace_callback_query_message"):
            raise bad_request("replace_callback_query_message is not supported by FakeTelegram")
        since = chat.last_interaction.get(receiver.id)
        query_id = params.get("callback_query_id")
        if query_id is not None:
            query = self.callbacks.get(str(query_id))
            if query is None or query.user is not receiver or query.message.chat is not chat:
                raise bad_request("QUERY_ID_INVALID")
            since = query.created
        if not chat.bot_is_admin and (
            since is None or time.monotonic() - since > self.ephemeral_window
        ):
            raise bad_request(EPHEMERAL_NOT_ALLOWED)
        self._rate_limit_ephemeral(chat, receiver.id)
        text, entities = render_text(p.get("text"), p.get("parse_mode"), p.get("entities"))
        msg = chat._add_ephemeral(
            from_user=None,
            text=text,
            entities=entities,
            reply_markup=check_reply_markup(p.get("reply_markup")),
            receiver=receiver,
            lost=self._lost_ephemerals.pop(receiver.id, 0) > 0,
        )
        return msg.to_api()

    def _rate_limit_ephemeral(self, chat: FakeChat, receiver_id: int) -> None:
        """Telegram has not said what ephemeral messages count against: here the
        receiver's private budget (their private chat's), or the group's when
        ``ephemeral_counts_in_group`` says so."""
        if self.ephemeral_counts_in_group:
            self._rate_limit(chat)
        else:
            self._rate_limit(self._private_chat(self.users[receiver_id]))

    def _ephemeral_for_edit(self, p: dict[str, Any]) -> FakeMessage:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        receiver = self.users.get(int_or_none(p.get("receiver_user_id")) or 0)
        ephemeral_id = int_or_none(p.get("ephemeral_message_id"))
        msg = None
        if receiver is not None and ephemeral_id is not None:
            msg = chat.get_ephemeral(ephemeral_id, receiver)
        if msg is None or receiver is None:
            raise bad_request("message to edit not found")
        self._rate_limit_ephemeral(chat, receiver.id)
        return msg

    async def _edit_ephemeral_text(self, p: dict[str, Any]) -> bool:
        msg = self._ephemeral_for_edit(p)
        text, entities = render_text(
            p.get("text"),
            p.get("parse_mode"),
            p.get("entities"),
            empty_error="text must be non-empty",
        )
        self._apply_edit(msg, text, entities, check_reply_markup(p.get("reply_markup")))
        return True

    async def _edit_ephemeral_reply_markup(self, p: dict[str, Any]) -> bool:
        msg = self._ephemeral_for_edit(p)
        self._apply_edit(msg, None, [], check_reply_markup(p.get("reply_markup")))
        return True

    async def _delete_ephemeral(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        receiver = self.users.get(int_or_none(p.get("receiver_user_id")) or 0)
        ephemeral_id = int_or_none(p.get("ephemeral_message_id"))
        msg = None
        if receiver is not None and ephemeral_id is not None:
            msg = chat.get_ephemeral(ephemeral_id, receiver)
        if msg is None:
            raise bad_request("message to delete not found")
        msg.deleted = True
        return True

    def _upload(self, p: dict[str, Any], field: str) -> tuple[str, bytes]:
        value = p.get(field)
        uploads = UPLOADS.get({})
        if isinstance(value, str) and value.startswith("attach://"):
            value = value[len("attach://") :]
            found = uploads.get(value)
        else:
            found = uploads.get(field)
        if found is None:
            raise bad_request(f"{field}: only uploaded files are supported by FakeTelegram")
        return found

    async def _send_media(self, p: dict[str, Any], field: str) -> dict[str, Any]:
        """sendPhoto / sendDocument with an uploaded file; the caption is kept as the
        message's ``text`` (what people read) and sent back as ``caption``."""
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        name, content = self._upload(p, field)
        thread_id = int_or_none(p.get("message_thread_id"))
        if chat.is_forum and thread_id is not None and thread_id not in chat.topics:
            raise bad_request("message thread not found")
        if not chat.is_forum:
            thread_id = None
        caption = p.get("caption")
        if field == "photo" and len(content) > 10 * 1024 * 1024:
            raise bad_request("PHOTO_INVALID_DIMENSIONS")
        self._rate_limit(chat)
        text: str | None = None
        entities: list[dict[str, Any]] = []
        if caption:
            text, entities = render_text(caption, p.get("parse_mode"), p.get("caption_entities"))
            if len(text) > 1024:
                raise bad_request("message caption is too long")
        msg = chat._add_message(
            from_user=None,
            text=text,
            entities=entities,
            reply_markup=check_reply_markup(p.get("reply_markup")),
            message_thread_id=thread_id,
            photo=content if field == "photo" else None,
            document=(name, content) if field == "document" else None,
        )
        return msg.to_api()

    async def _send_photo(self, p: dict[str, Any]) -> dict[str, Any]:
        return await self._send_media(p, "photo")

    async def _send_document(self, p: dict[str, Any]) -> dict[str, Any]:
        return await self._send_media(p, "document")

    def _apply_edit(
        self, msg: FakeMessage, text: str | None, entities: list[dict[str, Any]], markup: Any
    ) -> dict[str, Any]:
        new_text = msg.text if text is None else text
        new_entities = msg.entities if text is None else entities
        same = (
            new_text == msg.text
            and [(e.get("type"), e.get("offset"), e.get("length")) for e in new_entities]
            == [(e.get("type"), e.get("offset"), e.get("length")) for e in msg.entities]
            and markup == msg.reply_markup
        )
        if same:
            raise bad_request(NOT_MODIFIED[len("Bad Request: ") :])
        msg.text = new_text
        msg.entities = list(new_entities)
        msg.reply_markup = markup
        msg.edit_date = int(time.time())
        msg._remember()
        return msg.to_api()

    async def _edit_message_text(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._message_for_edit(p, "message to edit not found")
        if not msg.is_from_bot:
            raise bad_request("message can't be edited")
        if msg.text is None:
            raise bad_request("there is no text in the message to edit")
        text, entities = render_text(
            p.get("text"),
            p.get("parse_mode"),
            p.get("entities"),
            empty_error="text must be non-empty",
        )
        markup = check_reply_markup(p.get("reply_markup"))
        return self._apply_edit(msg, text, entities, markup)

    async def _edit_message_reply_markup(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._message_for_edit(p, "message to edit not found")
        if not msg.is_from_bot:
            raise bad_request("message can't be edited")
        markup = check_reply_markup(p.get("reply_markup"))
        return self._apply_edit(msg, None, [], markup)

    async def _delete_message(self, p: dict[str, Any]) -> bool:
        msg = self._message_for_edit(p, "message to delete not found")
        msg.deleted = True
        msg.pinned = False
        return True

    async def _delete_messages(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        ids = p.get("message_ids") or []
        if not 1 <= len(ids) <= 100:
            raise bad_request("message_ids must be 1-100 identifiers")
        self._rate_limit(chat)
        for mid in ids:
            msg = chat.get_message(int(mid))
            if msg is not None:
                msg.deleted = True
        return True

    async def _answer_callback_query(self, p: dict[str, Any]) -> bool:
        query = self.callbacks.get(str(p.get("callback_query_id")))
        if (
            query is None
            or query.answered
            or time.monotonic() - query.created > self.callback_answer_timeout
        ):
            raise bad_request(QUERY_TOO_OLD[len("Bad Request: ") :])
        text = p.get("text")
        if isinstance(text, str) and len(text) > 200:
            raise bad_request("MESSAGE_TOO_LONG")
        url = p.get("url")
        if url is not None and f"t.me/{self.bot_username.lower()}?start=" not in str(url).lower():
            raise bad_request("URL_INVALID")
        answer = CallbackAnswer(
            text if isinstance(text, str) else None,
            bool(p.get("show_alert")),
            str(url) if url is not None else None,
            int_or_none(p.get("cache_time")),
        )
        if answer.text:
            query.user.seen_answers.append(answer.text)
        if not query.future.done():
            query.future.set_result(answer)
        return True

    @staticmethod
    def _scope_key(scope: Any) -> str:
        if not isinstance(scope, dict):
            return "default"
        key = str(scope.get("type", "default"))
        if "chat_id" in scope:
            key += f":{scope['chat_id']}"
        if "user_id" in scope:
            key += f":{scope['user_id']}"
        return key

    async def _set_my_commands(self, p: dict[str, Any]) -> bool:
        commands = p.get("commands") or []
        if len(commands) > 100:
            raise bad_request("too many commands")
        for cmd in commands:
            name = str(cmd.get("command", ""))
            if not (1 <= len(name) <= 32) or not all(
                c.islower() or c.isdigit() or c == "_" for c in name
            ):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(cmd.get("description", ""))) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        lang = str(p.get("language_code") or "")
        if lang and (len(lang) != 2 or not lang.isalpha()):
            raise bad_request("LANG_CODE_INVALID")
        key = (self._scope_key(p.get("scope")), lang)
        self.commands[key] = [
            {"command": str(c["command"]), "description": str(c["description"])}
            | ({"is_ephemeral": True} if c.get("is_ephemeral") else {})
            for c in commands
        ]
        return True

    async def _delete_my_commands(self, p: dict[str, Any]) -> bool:
        self.commands.pop(
            (self._scope_key(p.get("scope")), str(p.get("language_code") or "")), None
        )
        return True

    async def _get_my_commands(self, p: dict[str, Any]) -> list[dict[str, str]]:
        return self.get_commands(self._scope_key(p.get("scope")), str(p.get("language_code") or ""))

    async def _pin_chat_message(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        msg = chat.get_message(int(p["message_id"]))
        if msg is None or msg.deleted:
            raise bad_request("message to pin not found")
        msg.pinned = True
        if chat.is_group:
            chat._add_message(
                from_user=None, service={"pinned_message": msg.to_api(with_reply=False)}
            )
        return True

    async def _unpin_chat_message(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        mid = int_or_none(p.get("message_id"))
        pinned = chat.pinned_messages
        target = [m for m in pinned if m.message_id == mid] if mid is not None else pinned[-1:]
        if mid is not None and not target:
            raise bad_request("message to unpin not found")
        for m in target:
            m.pinned = False
        return True

    async def _unpin_all(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        for m in chat.pinned_messages:
            m.pinned = False
        return True

    async def _get_chat(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._resolve_chat(p["chat_id"])
        info = chat.to_api()
        info.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        if chat.migrated_to is not None:
            raise ApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to.id},
            )
        return info

    async def _get_chat_member(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._resolve_chat(p["chat_id"])
        uid = int(p["user_id"])
        if uid == self.bot_id:
            if chat.bot_is_member and chat.bot_is_admin:
                return {
                    "status": "administrator",
                    "user": self.bot_user_api(),
                    **{right: False for right in ADMIN_RIGHTS},
                    "can_delete_messages": True,
                    "can_be_edited": False,
                    "is_anonymous": False,
                }
            return {
                "status": "member" if chat.bot_is_member else "left",
                "user": self.bot_user_api(),
            }
        user = self.users.get(uid)
        if user is None:
            raise bad_request("user not found")
        if chat.is_private and chat.user is user:
            return {"status": "creator", "user": user.to_api(), "is_anonymous": False}
        if user in chat.members and uid in chat.admins:
            return {
                "status": "administrator",
                "user": user.to_api(),
                **{right: True for right in ADMIN_RIGHTS},
                "can_be_edited": False,
                "is_anonymous": False,
            }
        in_chat = user in chat.members
        return {"status": "member" if in_chat else "left", "user": user.to_api()}

    async def _get_chat_member_count(self, p: dict[str, Any]) -> int:
        chat = self._resolve_chat(p["chat_id"])
        return 2 if chat.is_private else len(chat.members) + 1

    async def _send_chat_action(self, p: dict[str, Any]) -> bool:
        chat = self._resolve_chat(p["chat_id"])
        self._check_writable(chat)
        return True


ADMIN_RIGHTS = (
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_promote_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
    "can_send_welcome_messages",
)
