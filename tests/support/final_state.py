"""The state a game should end a test in: the table and every hand as the move log says."""

from __future__ import annotations

import html
import re

from bot.app import App
from bot.games.burkozel import keyboard as burkozel_keyboard
from bot.games.burkozel import screens as burkozel_screens
from bot.i18n import texts
from bot.service.screens import table_role
from bot.views import render
from engine import burkozel
from tests.support.fake_telegram import FakeTelegram
from tests.support.harness import drained

_TAG = re.compile(r"<[^>]+>")


_SECONDS = re.compile(r"\d+ (s|min)\b")


def plain(text: str) -> str:
    """What a client shows for the bot's HTML, with countdowns made comparable."""
    return _SECONDS.sub("N s", html.unescape(_TAG.sub("", text)))


async def assert_final_state(
    fake: FakeTelegram, app: App, game_id: int, title: str, timeout: float = 30
) -> burkozel.Series:
    """Once the outbox is drained, the table and every hand show what the move log says."""
    await fake.wait_for(lambda: drained(app), timeout=timeout, description="outbox drained")
    assert app.service is not None
    storage = app.service.storage
    game = await storage.get_game(game_id)
    assert game is not None
    series = burkozel.from_record(await storage.export_record(game_id))
    t = texts("en")
    table = await storage.get_message(game_id, table_role(series))
    if table is None and game.status == "playing":
        # A deal has just ended: its own table shows its result and who starts the next
        # deal, whose table comes with its first move.
        assert len(series.deals) > 1 and not series.deals[-1].history
        table = await storage.get_message(game_id, table_role(series, len(series.deals) - 2))
        assert table is not None
        shown = fake.chat(table.chat_id).get_message(table.message_id)
        assert shown is not None and not shown.deleted
        assert f"Deal {len(series.deals) - 1} is over" in shown.text
        assert f"Deal {len(series.deals)} is dealt" in shown.text
    else:
        assert table is not None
        shown = fake.chat(table.chat_id).get_message(table.message_id)
        assert shown is not None and not shown.deleted
        if game.status == "playing":
            expected = burkozel_screens.table_text(t, game, series, turn_seconds=0)
        else:
            expected = render.final_table_text(t, game, series, game.status)
        assert plain(shown.text) == plain(expected)
    deal = series.deals[-1]
    for seat in game.seats:
        if seat.user_id is None:
            continue
        ref = await storage.get_message(game_id, f"hand:{seat.user_id}")
        assert ref is not None and ref.chat_id == seat.user_id
        hand = fake.chat(ref.chat_id).get_message(ref.message_id)
        assert hand is not None and not hand.deleted
        if game.status != "playing":
            assert plain(hand.text) == plain(render.hand_over_text(t, title, game.status))
            continue
        if deal.table and seat.seat not in deal.actors() and seat.seat != deal.table[-1].seat:
            # Mid-trick only the mover's and the actors' hands are redrawn (the group
            # table, checked above, shows every card): this one may show an earlier
            # moment of the trick, but its cards are its own.
            view = deal.view(seat.seat)
            mine = t("hand.your_cards", cards=render.cards_text(view.hand, view.trump))
            assert plain(hand.text).endswith(plain(mine)), f"{seat.name}'s cards are not shown"
            continue
        seconds = 0 if deal.turn == seat.seat else None
        want = burkozel_screens.hand_text(
            t,
            game,
            title,
            deal,
            seat.seat,
            deal_number=len(series.deals),
            turn_seconds=seconds,
            previous=burkozel_screens.previous_trick(series),
        )
        assert plain(hand.text) == plain(want), f"{seat.name}'s hand is not current"
        keyboard = burkozel_keyboard.hand_keyboard(t, game, deal, seat.seat, [])
        assert [[(b.text, b.callback_data) for b in row] for row in hand.buttons] == [
            [(b["text"], b["callback_data"]) for b in row] for row in keyboard["inline_keyboard"]
        ]
    return series
