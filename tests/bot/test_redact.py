"""The log format of ``python -m bot``: exceptions that quote data are told without it."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from aiogram.exceptions import ClientDecodeError
from aiogram.types import Update
from pydantic import ValidationError

from bot.redact import LOG_FORMAT, RedactingFormatter, configure_logging

MARKER = "Zq7-private-words"


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(RedactingFormatter(LOG_FORMAT))
    logger = logging.getLogger("tests.redact")
    logger.addHandler(handler)
    try:
        yield logger, stream
    finally:
        logger.removeHandler(handler)


def batch_that_does_not_parse() -> dict[str, Any]:
    person = {"id": 5, "is_bot": False, "first_name": MARKER}
    message = {"message_id": 1, "date": 1, "chat": {"id": "x", "type": "group"}, "from": person}
    return {"ok": True, "result": [{"update_id": 9, "message": {**message, "text": MARKER}}]}


def test_a_batch_that_does_not_parse_is_logged_by_where_it_failed_not_by_what_it_says(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = logged
    data = batch_that_does_not_parse()
    try:
        try:
            Update.model_validate(data["result"][0])
        except ValidationError as exc:  # as aiogram's check_response raises it
            raise ClientDecodeError("Failed to deserialize object", exc, data) from exc
    except ClientDecodeError:
        logger.exception("update failed")
    text = stream.getvalue()
    assert MARKER in str(ClientDecodeError("", ValueError(), data))  # what aiogram would say
    assert MARKER not in text
    assert "ValidationError: message.chat.id: int_parsing" in text
    assert "ClientDecodeError: an answer that is not the Bot API's (ValidationError)" in text
    assert "in test_a_batch_that_does_not_parse" in text  # the traceback's frames stay


def test_a_proxy_page_is_named_not_quoted_and_other_errors_read_as_before(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, stream = logged
    page = f"<html><title>502 Bad Gateway {MARKER}</title></html>"
    try:
        raise ClientDecodeError("Failed to decode object", ValueError("Expecting value"), page)
    except ClientDecodeError:
        logger.exception("getUpdates")
    try:
        raise KeyError("seat 3")
    except KeyError:
        logger.exception("a bug")
    text = stream.getvalue()
    assert MARKER not in text and "<html>" not in text
    assert "an answer that is not the Bot API's (ValueError)" in text
    assert "KeyError: 'seat 3'" in text  # nothing quoted there: told as Python tells it


def test_the_bot_logs_through_the_redacting_formatter() -> None:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    for handler in handlers:
        root.removeHandler(handler)
    try:
        configure_logging("INFO")
        assert root.handlers
        assert all(isinstance(h.formatter, RedactingFormatter) for h in root.handlers)
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
