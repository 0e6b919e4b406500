"""End-to-end Bura (RULES.md Part D): the real bot, a fake Telegram, players tapping the
buttons their hand messages show. Decks are fixed through the service's rng; the test
picks each action from the stored record's state and finds the button for it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.delivery.chatter import ChatterLimit
from bot.games.bura.codec import kind_of
from bot.games.bura.game import BURA_BOT
from engine.bura import from_record
from engine.bura.actions import Action, Answer, Dave, DaveReply, Declare, Lead, Show
from engine.bura.deal import Deal
from engine.cards import Card
from engine.registry import replay_json
from storage import Storage
from tests.support.bura import Decks, bura_deck
from tests.support.fake_telegram import (
    CallbackAnswer,
    FakeChat,
    FakeMessage,
    FakeTelegram,
    FakeUser,
)
from tests.support.harness import PLAYED, cards_in, hand_message, new_fake, open_bura, running_bot


class Stale(Exception):
    """The game moved on (a computer player, a timer) between reading it and tapping."""


STALE = "out of date"


class Table:
    def __init__(
        self, fake: FakeTelegram, storage: Storage, group: FakeChat, users: list[FakeUser]
    ) -> None:
        self.fake, self.storage, self.group, self.users = fake, storage, group, users
        self.game_id = 0
        self.stale = 0  # taps refused as out of date: only with computers at the table

    async def state(self) -> tuple[int, str, Any]:
        """The game's version and series read as one snapshot: a computer player may
        commit between the two reads, and a series ahead of its version would have the
        test look for buttons the hand at that version never had."""
        while True:
            game = await self.storage.get_game(self.game_id)
            assert game is not None
            series = from_record(await self.storage.export_record(self.game_id))
            again = await self.storage.get_game(self.game_id)
            assert again is not None
            if again.version == game.version:
                return game.version, game.status, series

    def hand(self, seat: int, version: int) -> Any:
        """The seat's hand message once it is drawn for ``version``."""
        user = self.users[seat]
        tag = f":{self.game_id}:{version}:"

        def drawn() -> Any:
            m = hand_message(user, self.group)
            if m is None:
                return None
            datas = [b.callback_data or "" for row in m.buttons for b in row]
            return m if any(tag in d for d in datas) else None

        return self.fake.wait_for(drawn, description=f"seat {seat}'s hand at v{version}")

    async def press(self, user: FakeUser, message: FakeMessage, data: str) -> CallbackAnswer:
        """Tap the button ``data`` if the hand still shows it; Stale if the game moved on
        meanwhile (a computer's «Стоп!», say: the hand is redrawn for the new moment)."""
        if not any(b.callback_data == data for row in message.buttons for b in row):
            raise Stale(f"the hand was redrawn before {data} was tapped")
        answer = await (await user.tap(message, data=data)).wait()
        if answer.show_alert and STALE in (answer.text or ""):
            raise Stale(answer.text)
        return answer

    async def tap(self, seat: int, action: Action, version: int) -> str:
        """Make ``action`` through the buttons; returns the answer of the last tap."""
        message = await self.hand(seat, version)
        user = self.users[seat]
        codes = ".".join(c.code() for c in sorted(getattr(action, "cards", ())))
        data = f"p:{self.game_id}:{version}:{kind_of(action)}:{codes}"
        if not any(b.callback_data == data for row in message.buttons for b in row):
            assert isinstance(action, Lead | Answer), f"no button for {action}: {message.text}"
            now, _, series = await self.state()
            one_tap = None
            if now == version and len(action.cards) == 1:
                one_tap = BURA_BOT.one_tap(series.deals[-1], seat, action.cards[0])
            pick = f"t:{self.game_id}:{version}:+"
            shown = any(b.callback_data == pick for row in message.buttons for b in row)
            if one_tap != action and shown:
                # Several cards, or a discard of a card that could beat: choose them.
                before = len(message.history)
                answer = await self.press(user, message, pick)
                assert not answer.show_alert, answer.text
                await self.fake.wait_for(lambda m=message, b=before: len(m.history) > b)
            for card in sorted(action.cards):
                before = len(message.history)
                card_tap = f"t:{self.game_id}:{version}:{card.code()}"
                answer = await self.press(user, message, card_tap)
                assert not answer.show_alert, answer.text
                if answer.text == PLAYED:
                    return answer.text
                await self.fake.wait_for(lambda m=message, b=before: len(m.history) > b)
        answer = await self.press(user, message, data)
        assert not answer.show_alert, answer.text
        return answer.text or ""


async def committed_after(table: Table, version: int) -> None:
    for _ in range(500):
        v, _, _ = await table.state()
        if v > version:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("no commit")


def check_privacy(group: FakeChat, users: list[FakeUser], series: Any) -> None:
    """No closed discard (D3) and no card in a hand shows in the group or in another
    player's DM while the current deal is played (its texts say ``deal N``)."""
    deal: Deal = series.deals[-1]
    marker = f"deal {len(series.deals)}\n"
    hidden: dict[str, int] = {}
    for seat, hand in enumerate(deal.hands):
        for card in hand:
            if card is not deal.trump_card:  # turned up for all (D1) before it was drawn
                hidden[card.pretty()] = seat
    for play in deal.plays:
        if play.closed:
            hidden.update({c.pretty(): play.seat for c in play.cards})
    for pile in deal.piles:
        hidden.update({pc.card.pretty(): pc.by for pc in pile if pc.closed})
    group_seen = set().union(*(cards_in(t) for t in group.all_texts() if marker in t))
    assert not group_seen & set(hidden), f"hidden cards in the group: {group_seen & set(hidden)}"
    for seat, user in enumerate(users):
        seen = set().union(*(cards_in(t) for t in user.dm.all_texts() if marker in t))
        leaked = {c for c in seen if c in hidden and hidden[c] != seat}
        assert not leaked, f"{user.first_name} saw {leaked}"


async def bura_table(
    fake: FakeTelegram, storage: Storage, group: FakeChat, users: list[FakeUser], rules: Any
) -> Table:
    """A Bura game under the chat's ``rules``, started (``open_bura``), to be driven."""
    await storage.set_chat_rules(group.id, rules)
    await open_bura(fake, group, users)
    table = Table(fake, storage, group, users)
    game = await storage.open_game(group.id, None)
    assert game is not None
    table.game_id = game.id
    return table


async def drive(
    table: Table, choose: Callable[[Deal], tuple[int, Action] | None], until: Any
) -> Any:
    """Play until ``until(series)`` or the game ends; privacy checked after every move.
    ``choose`` returns None while only computer players may act. (Bounded by time, not
    by a count of looks: computers think slower on a loaded machine.)"""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 180
    while loop.time() < deadline:
        version, status, series = await table.state()
        if status != "playing" or until(series):
            return series
        deal = series.current
        coming = BURA_BOT.by_itself(series) if deal is not None else None
        if coming is not None and coming.at_once and deal.turn < len(table.users):
            # A draw that follows at once: no hand is drawn for this moment.
            await asyncio.sleep(0.02)
            continue
        picked = None if deal is None else choose(deal)
        if picked is None:
            await asyncio.sleep(0.02)
            continue
        try:
            await table.tap(*picked, version)
        except Stale:
            table.stale += 1
            continue
        await committed_after(table, version)
        check_privacy(table.group, table.users, (await table.state())[2])
    raise AssertionError("the game does not end")


def sensible(deal: Deal, false_once: list[bool]) -> tuple[int, Action]:
    """Beat with the fewest cards able, else discard; lead one low card; declare with 31
    or more, and once (``false_once``) declare too early: a false declaration."""
    seat = deal.actors()[0]
    legal = deal.legal_actions(seat)
    declares = [a for a in legal if isinstance(a, Declare)]
    if declares:
        points = deal.points()[seat]
        if points >= 31 or (false_once and false_once.pop()):
            return seat, Declare(seat, True)
        return seat, Declare(seat, False)
    shows = [a for a in legal if isinstance(a, Show)]
    if shows:
        return seat, shows[0]
    answers = [a for a in legal if isinstance(a, Answer)]
    if answers:
        beats = [a for a in answers if a.beat]
        pool = beats or answers
        return seat, min(pool, key=lambda a: sum(c.points for c in a.cards))
    leads = [a for a in legal if isinstance(a, Lead) and len(a.cards) == 1 and not a.stop]
    return seat, min(leads, key=lambda a: a.cards[0].points)


async def test_two_player_bura_series_with_true_and_false_declarations(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        ann, ben = fake.add_user("Ann"), fake.add_user("Ben")
        group = fake.add_group("Bura club", members=[ann, ben])
        async with running_bot(fake, db) as app:
            assert app.service is not None
            app.service.settings.rng = Decks([], seed=5)  # type: ignore[assignment]
            storage = await Storage.open(db)
            try:
                table = await bura_table(fake, storage, group, [ann, ben], {"game": "bura"})
                false_once = [True]
                series = await drive(table, lambda d: sensible(d, false_once), lambda s: False)
                record = await storage.export_record(table.game_id)
            finally:
                await storage.close()
            assert series.finished
            outcomes = [r.outcome for r in series.results]
            assert "false_declaration" in outcomes and "declared" in outcomes, outcomes
            report = replay_json(record)
            final = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if "Winner" in (m.text or "")), None)
            )
            for user, total in zip((ann, ben), report["totals"], strict=True):
                assert f"{user.first_name}: {total}" in final.text
            texts = "\n".join(group.all_texts())
            assert "false count" in texts and "counted out" in texts

            # /stats counts Bura apart, with each player's true and false declarations.
            app.service.chatter = ChatterLimit(cooldown=0.0, burst=1000.0)
            declared = {seat: [0, 0] for seat in (0, 1)}
            for r in series.results:
                if r.outcome in ("declared", "false_declaration"):
                    declared[r.by][r.outcome == "false_declaration"] += 1
            (winner,) = series.result().winners
            for seat, user in enumerate((ann, ben)):
                await user.send(group, "/stats")
                stats = await fake.wait_for(
                    lambda user=user: next(
                        (
                            m
                            for m in reversed(group.bot_messages())
                            if f"{user.first_name} in this chat" in (m.text or "")
                        ),
                        None,
                    )
                )
                assert "Bura" in stats.text and "Burkozel" not in stats.text
                won = int(seat == winner)
                assert f"Series won: {won} of 1" in stats.text, stats.text
                true, false = declared[seat]
                assert f"Declarations: {true} true, {false} false" in stats.text, stats.text
        assert fake.invalid_requests == []


async def test_three_player_stop_races_the_rightful_lead(tmp_path: Path) -> None:
    """D7: after the first trick seat 2 holds a молодка (♣6 ♣7 ♣8) while seat 1 is to
    lead; both tap at once: exactly one action is played."""
    deck = bura_deck(
        3,
        0,
        ["9H 10D JS", "AS 6D 9C", "6C 7C 8D"],  # seat 0, seat 1 (leads), seat 2
        "7H",
        "6S 8C 7S",  # drawn after trick 1: seat 1, seat 2, seat 0
    )
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        users = [fake.add_user(n) for n in ("Ann", "Ben", "Cid")]
        group = fake.add_group("Trio", members=users)
        async with running_bot(fake, db) as app:
            assert app.service is not None
            app.service.settings.rng = Decks([deck])  # type: ignore[assignment]
            storage = await Storage.open(db)
            try:
                table = await bura_table(fake, storage, group, users, {"game": "bura"})
                script = [
                    (1, Lead(1, (Card.parse("AS"),))),
                    (2, Answer(2, (Card.parse("8D"),), False)),
                    (0, Answer(0, (Card.parse("10D"),), False)),
                    (1, Declare(1, False)),
                ]
                for seat, action in script:
                    version = (await table.state())[0]
                    await table.tap(seat, action, version)
                    await committed_after(table, version)
                    check_privacy(group, users, (await table.state())[2])
                version, _, series = await table.state()
                assert series.current.actors() == (1, 2)
                await fake.wait_for(
                    lambda: "«Stop!»" in (hand_message(users[2], group) or users[2]).text
                )
                lead_msg = await table.hand(1, version)
                stop_msg = await table.hand(2, version)
                stop_data = f"p:{table.game_id}:{version}:s:6C.7C.8C"
                lead_data = f"t:{table.game_id}:{version}:6S"  # alone in its suit: one tap
                racing = [
                    await users[2].tap(stop_msg, data=stop_data),
                    await users[1].tap(lead_msg, data=lead_data),
                ]
                answers = [await p.wait() for p in racing]
                assert sum(a.text == PLAYED for a in answers) == 1, [a.text for a in answers]
                await committed_after(table, version)
                _, _, series = await table.state()
                moves = (await storage.export_record(table.game_id))["deals"][0]["moves"]
                assert len(moves) == len(script) + 1
                last = moves[-1]
                assert last in (
                    {"seat": 2, "cards": ["6C", "7C", "8C"], "stop": True},
                    {"seat": 1, "cards": ["6S"]},
                ), last
                check_privacy(group, users, series)
            finally:
                await storage.close()


async def test_a_dealt_combination_is_dealt_again(tmp_path: Path) -> None:
    """D9: бура (three trumps) straight from the deal: the deal is void and dealt again;
    the group is told whose combination it was, which, and its cards."""
    void = bura_deck(2, 0, ["6H 7H 8H", "AS 6D 9C"], "9H")
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        users = [fake.add_user("Ann <&> 🂡"), fake.add_user("Ben")]
        group = fake.add_group("Duo & <co> 🎲", members=users)
        async with running_bot(fake, db) as app:
            assert app.service is not None
            app.service.settings.rng = Decks([void], seed=2)  # type: ignore[assignment]
            storage = await Storage.open(db)
            try:
                table = await bura_table(fake, storage, group, users, {"game": "bura"})
                told = await fake.wait_for(
                    lambda: next((t for t in group.all_texts() if "Re-deal" in t), None)
                )
                assert told.splitlines()[1:] == [
                    "Re-deal: a combination was dealt, the deal does not count.",
                    "🃏 Ann <&> 🂡 — бура: 6♥★ 7♥★ 8♥★",
                ]
                await fake.wait_for(lambda: all(hand_message(u, group) for u in users))
                _, status, series = await table.state()
                assert status == "playing" and len(series.deals) >= 2
                assert series.results[0].outcome == "void"
                assert series.deals[1].dealer == 0  # the same dealer deals again
                record = await storage.export_record(table.game_id)
                assert record["deals"][0]["moves"] == []
                assert replay_json(record)["deals"][0]["outcome"] == "void"
            finally:
                await storage.close()


async def test_dave_folded_and_accepted(tmp_path: Path) -> None:
    """D11: Ben says даве and Ann gives up (the deal is Ben's at stakes 1); in the next
    deal the даве is accepted and the stakes double."""
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        users = [fake.add_user("Ann"), fake.add_user("Ben")]
        group = fake.add_group("Duo", members=users)
        async with running_bot(fake, db) as app:
            assert app.service is not None
            app.service.settings.rng = Decks([], seed=11)  # type: ignore[assignment]
            storage = await Storage.open(db)
            try:
                rules = {"game": "bura", "dave": "on"}
                table = await bura_table(fake, storage, group, users, rules)
                version, _, series = await table.state()
                while series.current is None:
                    await asyncio.sleep(0.05)  # a dealt combination: wait for the re-deal
                    version, _, series = await table.state()
                first = len(series.deals)
                leader = series.current.leader
                other = 1 - leader
                await table.tap(leader, Dave(leader), version)
                await committed_after(table, version)
                version = (await table.state())[0]
                await table.tap(other, DaveReply(other, False), version)
                await committed_after(table, version)
                _, _, series = await table.state()
                folded = series.deals[first - 1].result()
                assert folded.outcome == "fold" and folded.winner == leader
                assert series.penalties[first - 1][other] == 2  # D10 at the stakes before
                # The next counted deal: даве accepted, stakes ×2.
                while series.current is None:
                    await asyncio.sleep(0.05)
                    _, _, series = await table.state()
                version = (await table.state())[0]
                leader = series.current.leader
                await table.tap(leader, Dave(leader), version)
                await committed_after(table, version)
                version = (await table.state())[0]
                await table.tap(1 - leader, DaveReply(1 - leader, True), version)
                await committed_after(table, version)
                _, _, series = await table.state()
                assert series.current.stakes == 2
                await fake.wait_for(
                    lambda: any("accepts «даве»: stakes ×2" in t for t in group.all_texts())
                )
                assert any("gave up after «даве»" in t for t in group.all_texts())
                check_privacy(group, users, series)
            finally:
                await storage.close()


async def test_computer_players_take_every_bura_action(tmp_path: Path) -> None:
    """Ann against two computers (easy: greedy with noise, normal: Monte Carlo) for two
    counted deals: they lead, answer, declare or draw, and may say «Стоп!»."""
    db = tmp_path / "bot.sqlite3"
    async with new_fake() as fake:
        fake.enforce_limits = False
        ann = fake.add_user("Ann")
        group = fake.add_group("Robots", members=[ann])
        async with running_bot(fake, db) as app:
            assert app.service is not None
            app.service.settings.rng = Decks([], seed=3)  # type: ignore[assignment]
            storage = await Storage.open(db)
            try:
                await storage.set_chat_rules(group.id, {"game": "bura"})
                lobby = await open_bura(fake, group, [ann], start=False)
                for level in ("easy", "normal"):
                    await ann.send(group, f"/addbot {level}")
                await fake.wait_for(lambda: "normal" in lobby.text and "easy" in lobby.text)
                await (await ann.tap(lobby, "▶️ Start")).wait()
                table = Table(fake, storage, group, [ann])
                game = await storage.open_game(group.id, None)
                assert game is not None
                table.game_id = game.id
                false_once: list[bool] = []

                def mine(deal: Deal) -> tuple[int, Action] | None:
                    if 0 not in deal.actors():
                        return None
                    if deal.actors()[0] != 0:  # only a «Стоп!» chance: let it pass
                        return None
                    return sensible(deal, false_once)

                counted = lambda s: sum(r.counted for r in s.results) >= 2  # noqa: E731
                series = await drive(table, mine, counted)
                record = await storage.export_record(table.game_id)
            finally:
                await storage.close()
            assert counted(series) or series.finished
            computer_moves = [m for d in record["deals"] for m in d["moves"] if m["seat"] in (1, 2)]
            assert any("cards" in m for m in computer_moves)
            assert replay_json(record)["totals"] == list(series.totals)
            assert table.stale <= 3, table.stale
