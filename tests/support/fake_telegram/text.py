"""Text formatting and reply-markup checks the way Telegram applies them."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

MAX_TEXT_LENGTH = 4096
MAX_CALLBACK_DATA_BYTES = 64
MAX_BUTTONS = 100


class ApiError(Exception):
    """A Bot API refusal: becomes ``{"ok": false, "error_code": ..., "description": ...}``."""

    def __init__(
        self,
        code: int,
        description: str,
        parameters: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def bad_request(text: str) -> ApiError:
    return ApiError(400, f"Bad Request: {text}")


def int_or_none(value: Any) -> int | None:
    """A request's integer field as Telegram reads it (a number or its digits)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


_HTML_TAGS: dict[str, str] = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_TAG_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)([^<>]*)>")
_ENTITY_RE = re.compile(r"&(lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}
_HREF_RE = re.compile(r"""href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def parse_html(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Return the plain text and entities Telegram derives from ``parse_mode=HTML``."""
    out: list[str] = []
    pos16 = 0
    stack: list[tuple[str, int, dict[str, Any]]] = []
    entities: list[dict[str, Any]] = []
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "<":
            m = _TAG_RE.match(source, i)
            if m is None:
                raise bad_request(
                    "can't parse entities: Unexpected end of name token at byte offset "
                    f"{_byte_offset(source, i)}"
                )
            closing, name, attrs = m.group(1), m.group(2).lower(), m.group(3)
            if name not in _HTML_TAGS:
                kind = "end" if closing else "start"
                raise bad_request(
                    f'can\'t parse entities: Unsupported {kind} tag "{name}" at byte offset '
                    f"{_byte_offset(source, i)}"
                )
            if closing:
                if not stack or stack[-1][0] != name:
                    expected = f'"</{stack[-1][0]}>"' if stack else "no end tag"
                    raise bad_request(
                        "can't parse entities: Unmatched end tag at byte offset "
                        f'{_byte_offset(source, i)}, expected {expected}, found "</{name}>"'
                    )
                tag, start, extra = stack.pop()
                if pos16 > start:
                    entity: dict[str, Any] = {
                        "type": _HTML_TAGS[tag],
                        "offset": start,
                        "length": pos16 - start,
                    }
                    entity.update(extra)
                    entities.append(entity)
            else:
                extra = {}
                if name == "a":
                    href = _HREF_RE.search(attrs)
                    extra["url"] = next((g for g in href.groups() if g), "") if href else ""
                stack.append((name, pos16, extra))
            i = m.end()
            continue
        if ch == "&":
            m = _ENTITY_RE.match(source, i)
            if m is not None:
                ref = m.group(1)
                if ref.startswith("#x"):
                    decoded = chr(int(ref[2:], 16))
                elif ref.startswith("#"):
                    decoded = chr(int(ref[1:]))
                else:
                    decoded = _NAMED[ref]
                out.append(decoded)
                pos16 += _utf16_len(decoded)
                i = m.end()
                continue
        out.append(ch)
        pos16 += _utf16_len(ch)
        i += 1
    if stack:
        raise bad_request(
            "can't parse entities: Can't find end tag corresponding to start tag "
            f'"{stack[-1][0]}"'
        )
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


_MD2_RESERVED = set("_*[]()~`>#+-=|{}.!")
_MD2_TOGGLES: list[tuple[str, str]] = [
    ("||", "spoiler"),
    ("__", "underline"),
    ("*", "bold"),
    ("_", "italic"),
    ("~", "strikethrough"),
]


def parse_markdown_v2(source: str) -> tuple[str, list[dict[str, Any]]]:
    """A reasonably strict MarkdownV2 parser: reserved characters must be escaped."""
    out: list[str] = []
    pos16 = 0
    open_: dict[str, int] = {}
    entities: list[dict[str, Any]] = []
    link_start: int | None = None
    i = 0
    n = len(source)

    def emit(text: str) -> None:
        nonlocal pos16
        out.append(text)
        pos16 += _utf16_len(text)

    while i < n:
        ch = source[i]
        if ch == "\\":
            if i + 1 < n:
                emit(source[i + 1])
                i += 2
                continue
            raise bad_request(
                "can't parse entities: Character '\\' is reserved and must be escaped with the "
                "preceding '\\'"
            )
        if ch == "`":
            fence = source.startswith("```", i)
            marker = "```" if fence else "`"
            end = source.find(marker, i + len(marker))
            if end < 0:
                raise bad_request(
                    f"can't parse entities: Can't find end of {'Pre' if fence else 'Code'} "
                    f"entity at byte offset {_byte_offset(source, i)}"
                )
            body = source[i + len(marker) : end]
            if fence and "\n" in body:
                first, rest = body.split("\n", 1)
                body = rest if re.fullmatch(r"[\w+-]*", first) else body
            body = re.sub(r"\\(.)", r"\1", body)
            start = pos16
            emit(body)
            entities.append(
                {"type": "pre" if fence else "code", "offset": start, "length": pos16 - start}
            )
            i = end + len(marker)
            continue
        if ch == "[" and link_start is None:
            link_start = pos16
            i += 1
            continue
        if ch == "]" and link_start is not None:
            m = re.match(r"\]\(((?:[^()\\]|\\.)*)\)", source[i:])
            if m is None:
                raise bad_request(
                    "can't parse entities: Character ']' is reserved and must be escaped with "
                    "the preceding '\\'"
                )
            url = re.sub(r"\\(.)", r"\1", m.group(1))
            entities.append(
                {
                    "type": "text_link",
                    "offset": link_start,
                    "length": pos16 - link_start,
                    "url": url,
                }
            )
            link_start = None
            i += m.end()
            continue
        if ch == ">" and (i == 0 or source[i - 1] == "\n"):
            i += 1
            continue
        toggled = False
        for marker, kind in _MD2_TOGGLES:
            if source.startswith(marker, i):
                if marker in open_:
                    start = open_.pop(marker)
                    if pos16 > start:
                        entities.append({"type": kind, "offset": start, "length": pos16 - start})
                else:
                    open_[marker] = pos16
                i += len(marker)
                toggled = True
                break
        if toggled:
            continue
        if ch in _MD2_RESERVED:
            raise bad_request(
                f"can't parse entities: Character '{ch}' is reserved and must be escaped with the "
                "preceding '\\'"
            )
        emit(ch)
        i += 1
    if open_ or link_start is not None:
        raise bad_request("can't parse entities: Can't find end of the entity starting at byte 0")
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(out), entities


def parse_markdown_legacy(source: str) -> tuple[str, list[dict[str, Any]]]:
    """Legacy Markdown: formatting characters are dropped, nothing is refused."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", source)
    text = re.sub(r"(?<!\\)[*_`]", "", text)
    return text.replace("\\", ""), []


def render_text(
    text: Any,
    parse_mode: Any,
    entities: Any,
    *,
    empty_error: str = "message text is empty",
) -> tuple[str, list[dict[str, Any]]]:
    """Apply ``parse_mode``/``entities`` and Telegram's length rules to a message text."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if isinstance(entities, list):
        plain, ents = text, [dict(e) for e in entities if isinstance(e, dict)]
    elif isinstance(parse_mode, str) and parse_mode.lower() == "html":
        plain, ents = parse_html(text)
    elif isinstance(parse_mode, str) and parse_mode.lower() == "markdownv2":
        plain, ents = parse_markdown_v2(text)
    elif isinstance(parse_mode, str) and parse_mode.lower() == "markdown":
        plain, ents = parse_markdown_legacy(text)
    elif parse_mode:
        raise bad_request(f"unsupported parse_mode {parse_mode!r}")
    else:
        plain, ents = text, []
    if not plain.strip():
        raise bad_request(empty_error)
    if len(plain) > MAX_TEXT_LENGTH:
        raise bad_request("message is too long")
    return plain, ents


_BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "login_url",
    "web_app",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)


def _check_url(url: Any) -> None:
    if not isinstance(url, str):
        raise bad_request("BUTTON_URL_INVALID")
    parsed = urlparse(url if "://" in url else f"http://{url}")
    if parsed.scheme not in ("http", "https", "tg") or (
        parsed.scheme != "tg" and not parsed.netloc
    ):
        raise bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")


def check_reply_markup(markup: Any) -> dict[str, Any] | None:
    """Validate a reply markup; return the inline keyboard to store (``None`` if none)."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        return None  # reply keyboards, ForceReply, ReplyKeyboardRemove: not kept on the message
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise bad_request('can\'t parse inline keyboard: field "inline_keyboard" must be Array')
    if sum(len(r) for r in rows) > MAX_BUTTONS:
        raise bad_request("reply markup is too long")
    clean_rows: list[list[dict[str, Any]]] = []
    for row in rows:
        clean: list[dict[str, Any]] = []
        for button in row:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise bad_request("can't parse inline keyboard button: Text must be a String")
            if not button["text"].strip():
                raise bad_request("BUTTON_TEXT_INVALID")
            actions = [a for a in _BUTTON_ACTIONS if a in button]
            if not actions:
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
            if "callback_data" in button:
                data = button["callback_data"]
                if not isinstance(data, str) or not (
                    1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES
                ):
                    raise bad_request("BUTTON_DATA_INVALID")
            if "url" in button:
                _check_url(button["url"])
            clean.append(dict(button))
        if clean:
            clean_rows.append(clean)
    if not clean_rows:
        return None
    return {"inline_keyboard": clean_rows}
