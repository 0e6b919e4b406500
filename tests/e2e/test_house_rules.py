"""Burkozel house rules (RULES.md Part B) played through the fake Telegram: one deal
under each switch B1-B6 and a 2×2 pairs series to the end. After every move of the
human player nothing private has leaked (no card still in a hand in the group or another
DM; B1: no closed discard in the group before the deal is scored); what the bot
announces equals the replay of the stored record (``python -m engine replay``)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

from engine.registry import replay_json
from storage import Storage
from tests.support.bura import Decks
from tests.support.burkozel import build_deck
from tests.support.fake_telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser
from tests.support.harness import (
    assert_no_hand_in_another_dm,
    assert_no_hidden_card_in_group,
    cards_in,
    hand_message,
    is_my_turn,
    last_reply,
    new_fake,
    open_game,
    play_until,
    roomy_chatter,
    running_bot,
)

TITLE = "Пики & Трефы <3"
ROW = re.compile(r"^(.+?): (\d+) pts, (?:penalty|credits) \+(\d+) \(total (\d+)\)", re.M)


async def record_of(db: Path, game_id: int) -> dict[str, Any]:
    storage = await Storage.open(db)
    try:
        return await storage.export_record(game_id)
    finally:
        await storage.close()


def closed_discards(db: Path, game_id: int, deal_index: int) -> set[str]:
    """Every card discarded face down (B1) so far in one deal of the game (read straight
    from the database file, so it can run between two moves)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT move FROM moves WHERE game_id = ? AND deal_index = ?", (game_id, deal_index)
        ).fetchall()
    moves = [json.loads(row[0]) for row in rows]
    return {pretty(code) for m in moves if m.get("beat") is False for code in m["cards"]}


def without_trump_line(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("Trump:"))


def face_down_trick_headers(texts: list[str]) -> list[str]:
    """The header line of every taken trick shown with a card face down (B1) in it."""
    headers = []
    for text in texts:
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith("Trick to "):
                plays = itertools.takewhile(lambda play: play.startswith("  "), lines[i + 1 :])
                if any("🂠" in play for play in plays):
                    headers.append(line)
    return headers


def pretty(code: str) -> str:
    rank, suit = code[:-1], code[-1]
    return rank + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[suit]


def announced_rows(message: FakeMessage) -> list[tuple[int, int, int]]:
    return [(int(p), int(d), int(t)) for _, p, d, t in ROW.findall(message.text)]


async def start_with_computers(
    fake: FakeTelegram, group: FakeChat, alice: FakeUser, computers: int
) -> FakeMessage:
    lobby = await open_game(fake, group, [alice], start=False)
    for n in range(1, computers + 1):
        await (await alice.tap(lobby, "🤖 + easy")).wait()
        await fake.wait_for(lambda n=n: f"Computer {n}" in lobby.text)
    answer = await (await alice.tap(lobby, "▶️ Start")).wait()
    assert not answer.show_alert, answer.text
    return lobby


async def test_one_deal_under_each_burkozel_switch_b1_to_b6(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    rng = random.Random(12)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <&> 🂡")
        switches: list[tuple[dict[str, Any], int]] = [
            ({"discards": "closed"}, 3),  # B1
            ({"max_lead": 4}, 2),  # B2
            ({"series_end": "elimination"}, 3),  # B3
            ({"scoring": "winner_takes"}, 3),  # B4
            ({"teams": "pairs"}, 4),  # B5
            ({"combinations": "on"}, 2),  # B6
        ]
        async with running_bot(fake, db) as app:
            roomy_chatter(app)
            assert app.service is not None
            for game_id, (rules, players) in enumerate(switches, start=1):
                # A group per game: the privacy checks read every text of "deal 1".
                group = fake.add_group(f"{TITLE} B{game_id}", members=[alice])
                await app.service.storage.set_chat_rules(group.id, {"burkozel": rules})
                await start_with_computers(fake, group, alice, players - 1)
                deal_over = "Deal 1 is over"
                first_message = len(group.all_messages)
                closed = rules.get("discards") == "closed"
                face_down_seen = face_down_trick_seen = False

                def this_game() -> list[str]:
                    return [t for m in group.all_messages[first_message:] for t in m.texts_shown()]

                def after_move(game_id: int = game_id, closed: bool = closed) -> None:
                    nonlocal face_down_seen, face_down_trick_seen
                    assert_no_hidden_card_in_group(group, [alice])
                    assert_no_hand_in_another_dm([alice], group)
                    texts = this_game()
                    if closed and not any(deal_over in t for t in texts):
                        # B1: no closed discard in the group before the deal is scored.
                        hidden = closed_discards(db, game_id, 0)
                        # The turned-up trump is public (R3) before it may be drawn and
                        # discarded face down: its "Trump:" line is no leak.
                        shown = set().union(*(cards_in(without_trump_line(t)) for t in texts))
                        assert not (hidden & shown), sorted(hidden & shown)
                        face_down_seen |= bool(hidden) and any("🂠" in t for t in texts)
                        # A trick's points count only its open cards, and say so.
                        for header in face_down_trick_headers(texts):
                            assert "🂠 not counted until the deal ends" in header, header
                            face_down_trick_seen = True

                await play_until(
                    fake,
                    [alice],
                    lambda: any(deal_over in t for t in this_game()),
                    rng,
                    group,
                    after_move=after_move,
                )
                assert (face_down_seen and face_down_trick_seen) or not closed
                result = await last_reply(fake, group, deal_over)
                record = await record_of(db, game_id)
                assert record["rules"] == rules
                report = replay_json({**record, "deals": record["deals"][:1]})
                first = report["deals"][0]
                rows = announced_rows(result)
                if rules.get("scoring") == "winner_takes":  # B4: credits, said so
                    assert "credits +" in result.text and "penalty" not in result.text
                if rules.get("teams") == "pairs":  # B5: the pairs' pooled totals
                    assert "👥 Pair 1: Alice" in result.text
                assert [r[0] for r in rows] == first["points"], result.text
                assert [r[1] for r in rows] == first["penalties"], result.text
                await alice.send(group, "/cancel")
                confirm = await last_reply(fake, group, "End the current game")
                await (await alice.tap(confirm, "Yes, end the game")).wait()
                for _ in range(200):  # the cancel is committed before the tap is answered
                    if await app.service.storage.open_game(group.id, None) is None:
                        break
                    await asyncio.sleep(0.05)
                assert await app.service.storage.open_game(group.id, None) is None
        assert fake.invalid_requests == []


async def test_a_2x2_pairs_series_to_the_end_shows_the_pairs_and_equals_the_replay(
    tmp_path: Path,
) -> None:
    """B5 with B6 (the "2×2 pairs" preset): Alice and three computers, to the series end."""
    db = tmp_path / "bot.sqlite3"
    rng = random.Random(22)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice = fake.add_user("Alice <&> 🂡")
        group = fake.add_group(TITLE, members=[alice])
        async with running_bot(fake, db) as app:
            roomy_chatter(app)
            assert app.service is not None
            await app.service.storage.set_chat_rules(
                group.id, {"burkozel": {"teams": "pairs", "combinations": "on"}}
            )
            # The lobby shows the pairs as seats fill, before Start.
            lobby = await open_game(fake, group, [alice], start=False)
            assert "👥 Pair 1: 1. Alice <&> 🂡 & 3. (free)" in lobby.text
            for n in range(1, 4):
                await (await alice.tap(lobby, "🤖 + easy")).wait()
                await fake.wait_for(lambda n=n: f"Computer {n}" in lobby.text)
            assert "👥 Pair 2: 2. 🤖 Computer 1 (easy) & 4. 🤖 Computer 3 (easy)" in lobby.text
            lobby_pairs = [
                [name.split(". ", 1)[1] for name in line.split(": ", 1)[1].split(" & ")]
                for line in lobby.text.splitlines()
                if line.startswith("👥 Pair")
            ]
            assert lobby_pairs == [
                ["Alice <&> 🂡", "🤖 Computer 2 (easy)"],
                ["🤖 Computer 1 (easy)", "🤖 Computer 3 (easy)"],
            ]
            answer = await (await alice.tap(lobby, "▶️ Start")).wait()
            assert not answer.show_alert, answer.text

            def over() -> bool:
                return any("series is over" in (m.text or "") for m in group.bot_messages())

            def after_move() -> None:
                assert_no_hidden_card_in_group(group, [alice])
                assert_no_hand_in_another_dm([alice], group)

            # Partners see each other: Alice (seat 0) sits with Computer 2 (seat 2).
            hand = await fake.wait_for(
                lambda: next((m for m in alice.dm.bot_messages() if "Your cards" in m.text), None)
            )
            assert "Your partner: 🤖 Computer 2 (easy)" in hand.text
            await alice.send(group, "/score")
            await play_until(fake, [alice], over, rng, group, after_move=after_move)
            result = await last_reply(fake, group, "series is over")
            record = await record_of(db, 1)
            report = replay_json(record)
            assert report["finished"] and record["rules"] == {
                "teams": "pairs",
                "combinations": "on",
            }
            totals = report["totals"]
            assert totals[0] == totals[2] and totals[1] == totals[3]  # B5: pooled
            # The lobby's pairs are the game's: on the result and in the scoring (seats as
            # they sat in the lobby, the pair's pooled totals).
            for number, (first, second) in enumerate(lobby_pairs, start=1):
                line = f"Pair {number}: {first} & {second} — {totals[number - 1]}"
                assert line in result.text

            # Every deal's announced rows equal the replay, deal by deal. (The last deal's
            # record is the final edit of its table, queued after the series result.)
            def deal_ends() -> list[FakeMessage]:
                over = re.compile(r"Deal \d+ is over")
                return [m for m in group.bot_messages() if over.search(m.text or "")]

            await fake.wait_for(lambda: len(deal_ends()) >= len(report["deals"]), timeout=20)
            ends = deal_ends()
            assert len(ends) == len(report["deals"])
            for message, deal in zip(ends, report["deals"], strict=True):
                rows = announced_rows(message)
                assert [r[0] for r in rows] == deal["points"], message.text
                assert [r[1] for r in rows] == deal["penalties"], message.text
                assert "👥 Pair 1:" in message.text
        assert fake.invalid_requests == []


async def test_c1_a_bura_shown_is_told_in_the_group_and_the_hands_with_its_cards(
    tmp_path: Path,
) -> None:
    """Ann (seat 0) draws a бура at the first trick and shows it instead
    of answering Ben's next lead (C1). The deal's record in the group says who showed
    what, with the cards, above the penalties; both hands of the next deal say it too;
    the stored record replays to the same (``shown_by``)."""
    # Dealer seat 0 (``Decks``): Ben leads 7♠, Ann discards 8♥; Ben draws 7♦, Ann 10♣.
    hands = [["KC", "QC", "JC", "8H"], ["7S", "8D", "9D", "9H"]]
    deck = build_deck(2, 0, hands, "6C", ["7D", "10C"])
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        ann, ben = fake.add_user("Ann <&> 🂡"), fake.add_user("Ben & <b>")
        group = fake.add_group(TITLE, members=[ann, ben])
        async with running_bot(fake, db) as app:
            assert app.service is not None
            app.service.settings.rng = Decks([deck])  # type: ignore[assignment]
            await app.service.storage.set_chat_rules(group.id, {"burkozel": {"combinations": "on"}})
            await open_game(fake, group, [ann, ben])

            async def tap(user: FakeUser, label: str, ready: Any = lambda m: True) -> None:
                message = await fake.wait_for(
                    lambda: (
                        (m := hand_message(user, group)) is not None
                        and label in m.button_texts
                        and ready(m)
                        and m
                    ),
                    description=f"{user.first_name}'s {label}",
                )
                answer = await (await user.tap(message, label)).wait()
                assert not answer.show_alert, answer.text

            await tap(ben, "7♠", is_my_turn)
            await tap(ann, "8♥", is_my_turn)  # cannot beat 7♠: discarded on one tap
            await tap(ben, "8♦", lambda m: is_my_turn(m) and "7♦" in m.button_texts)
            await tap(ann, "🃏 Show бура")
            shown = "🃏 Ann <&> 🂡: бура! J♣★ Q♣★ K♣★ 10♣★ — wins the deal."
            result = await last_reply(fake, group, "Deal 1 is over")
            lines = result.text.splitlines()
            assert lines[lines.index("📊 Deal 1 is over") + 1] == shown, result.text
            assert "Ben & <b>: 0 pts, penalty +4 (total 4)" in result.text
            for user in (ann, ben):  # the next deal's hands, until its first lead
                hand = await fake.wait_for(
                    lambda u=user: (m := hand_message(u, group)) and "deal 2\n" in m.text and m,
                    description=f"{user.first_name}'s hand of deal 2",
                )
                assert f"Deal 1 ended with a show:\n{shown}\n" in hand.text, hand.text
            record = await record_of(db, 1)
            assert record["deals"][0]["moves"][-1] == {"seat": 0, "show": "bura"}
            first = replay_json(record)["deals"][0]
            assert (first["outcome"], first["shown_by"], first["penalties"]) == ("bura", 0, [0, 4])
        assert fake.invalid_requests == []
