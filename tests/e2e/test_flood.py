"""Floods, end to end. A flood of updates in one chat costs a bounded number of tasks
(polling held one task per update: 4,600 at once after 5,000 junk updates), and other
chats are still answered while it waits. Taps that need no game state are answered
before their chat's queue, and one person's flood of taps is shed, so strangers cannot
keep a table's players waiting past Telegram's answer deadline."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from aiogram.types import Update

from bot.i18n import texts
from bot.middlewares.message_screen import PRESSED
from bot.middlewares.tap_screen import BURST, RATE
from bot.views.callbacks import CancelCb, CardCb, LobbyCb, PlayCb
from tests.e2e.harness import new_fake, open_game, play_one_move, running_bot, whose_turn
from tests.support.fake_telegram import PendingCallback


async def test_a_flood_in_one_chat_holds_few_tasks_and_other_chats_are_still_answered(
    tmp_path: Path,
) -> None:
    async with new_fake() as fake:
        fake.enforce_limits = False
        fake.validate_updates = False
        # The chat is held stuck on purpose, so its taps wait long on a loaded machine:
        # what is checked is what is kept and dropped, not Telegram's answer deadline.
        fake.callback_answer_timeout = 600.0
        alice, eve = fake.add_user("Alice <&>"), fake.add_user("Eve 😈")
        group = fake.add_group("Spam & <eggs>", members=[alice, eve])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            service = app.service
            assert service is not None
            await eve.send(group, "/help")
            target = await fake.wait_for(group.last_bot_message)
            # The group's handling is stuck (say its database rows are locked): nothing
            # of the flood gets past the first tap until the test lets it go.
            stuck = asyncio.Event()
            language_of = service.language_of

            async def slow_language_of(chat_id: int) -> str:
                if chat_id == group.id:
                    await stuck.wait()
                return await language_of(chat_id)

            service.language_of = slow_language_of  # type: ignore[method-assign]
            await fake.wait_for(lambda: not fake.pending_updates)
            tasks_before = len(asyncio.all_tasks())
            # Taps that must be queued (a "No, keep playing" the handler answers), each by
            # another member, so that neither the screen nor the per-person rate takes them.
            flood = 700
            members = [fake.add_user(f"M{n}") for n in range(flood)]
            taps = [await member.tap_raw(target, "x:1:0") for member in members]
            # Sent after the whole flood, in another chat: answered while it is stuck.
            # (Alice's first message: while a flood presses, a person's second message
            # within two seconds would be shed, bot/middlewares/message_screen.py.)
            await alice.start_bot()
            await fake.wait_for(lambda: len(alice.dm.bot_messages()) == 1)
            assert not [tap for tap in taps if tap.answered]
            assert len(asyncio.all_tasks()) - tasks_before < 40  # was one per update
            queues = app.queues
            assert queues is not None and queues.held == queues.per_chat < flood
            stuck.set()
            # The group holds its share, in order; the rest of the flood was dropped.
            await fake.wait_for(lambda: taps[queues.per_chat - 1].answered, timeout=60)
            await fake.wait_for(lambda: queues.held == 0)
            answered = [n for n, tap in enumerate(taps) if tap.answered]
            assert answered == list(range(queues.per_chat))
            # The group is served as before once the flood is over.
            last = await eve.tap_raw(target, "junk")
            assert (await last.wait()).text == texts("en").alert("error.forged")
        assert fake.invalid_requests == []


async def test_strangers_forged_taps_are_answered_at_once_and_a_players_tap_does_not_wait_behind_them(
    tmp_path: Path,
) -> None:
    """Strangers flood a game's group with forged and stale buttons of its game while the
    game is busy (a slow change in progress holds it): every one of them is answered with
    the refusal the bot gives, without waiting for the game, and a seated player's tap in
    the group after them is answered at once too. The bot used to handle the group's taps
    one after another, each refusal of a card waiting for the game: nothing was answered
    until the game was free, the player's tap last."""
    rng = random.Random(34)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice <&>"), fake.add_user("Bob 🃏")
        strangers = [fake.add_user(f"Stranger {n}") for n in range(8)]
        group = fake.add_group("Cards & <friends>", members=[alice, bob, *strangers])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            service = app.service
            assert service is not None
            storage = service.storage
            lobby = await open_game(fake, group, [alice, bob])
            game = await storage.open_game(group.id, None)
            assert game is not None and game.status == "playing"
            await alice.send(group, "/cancel")
            question = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if m.has_button("No, play on")), None)
            )
            table = next(m for m in reversed(group.bot_messages()) if "Trump:" in m.text)
            await fake.wait_for(lambda: not fake.pending_updates)

            # What each forged button is refused with (English: the group's language).
            t = texts("en")
            expected = {
                "card": t.alert("error.not_seated"),  # R1: only the seated play
                "play": t.alert("error.not_seated"),
                "join": t.alert("lobby.not_open"),
                "missing": t.alert("error.no_game"),
                "junk": t.alert("error.forged"),
                "ended": t.alert("error.no_game"),
            }

            def forged(kind: str) -> str:
                version = rng.randint(0, game.version + 3)
                card = rng.choice(["AS", "6H", "10D", "+"])
                return {
                    "card": CardCb(game=game.id, v=version, card=card).pack(),
                    "play": PlayCb(game=game.id, v=version, kind="l", cards=card).pack(),
                    "join": LobbyCb(game=game.id, action=rng.choice(["join", "start"])).pack(),
                    "missing": CardCb(game=game.id + 1000, v=version, card=card).pack(),
                    "junk": "".join(rng.choices("xyz:0123456789", k=20)),
                    "ended": CancelCb(game=game.id + 7, confirm=True).pack(),
                }[kind]

            held, release = asyncio.Event(), asyncio.Event()

            async def hold_the_game() -> None:
                async with service.lock(game.id):
                    held.set()
                    await release.wait()

            holder = asyncio.create_task(hold_the_game())
            await held.wait()
            flood: list[tuple[str, PendingCallback]] = []
            for _ in range(12):  # each stranger within a person's rate: none of it is shed
                for stranger in strangers:
                    kind = rng.choice(sorted(expected))
                    target = rng.choice([table, lobby, question])
                    flood.append((kind, await stranger.tap_raw(target, forged(kind))))
            no = await alice.tap(question, "No, play on")
            try:
                answers = [await tap.wait(timeout=20) for _, tap in flood]
                kept = await no.wait(timeout=20)
                assert not release.is_set()  # all of it while the game was still busy
            finally:
                release.set()
                await holder
            assert [a.text for a in answers] == [expected[kind] for kind, _ in flood]
            assert all(
                a.show_alert == (kind != "junk")
                for a, (kind, _) in zip(answers, flood, strict=True)
            )
            assert kept.text == t.alert("cancel.kept")

            # The game goes on, as the strangers found it.
            after = await storage.get_game(game.id)
            assert after is not None
            assert (after.version, after.status, after.seats) == (
                game.version,
                "playing",
                game.seats,
            )
            player = await fake.wait_for(lambda: whose_turn([alice, bob], group))
            await play_one_move(fake, player, rng, group)
            assert len(await storage.moves(game.id)) == 1
            await fake.wait_for(lambda: question.deleted)  # the "No" took the question down

            # A refusal speaks the group's language.
            await storage.set_chat_language(group.id, "ru")
            answer = await (await strangers[0].tap_raw(table, forged("card"))).wait()
            assert (
                answer.text
                == texts("ru").alert("error.not_seated")
                == ("Вы не играете в этой игре.")
            )
        assert fake.unanswered_callbacks() == []
        assert fake.invalid_requests == []


async def test_one_persons_flood_of_taps_is_shed_and_the_others_taps_go_on(
    tmp_path: Path,
) -> None:
    """One person taps the lobby's Join button hundreds of times as fast as a script can:
    past a person's rate the taps get a short answer and do nothing, and the next player's
    Join is taken as usual. The bot used to handle every one of them, in the group's
    line, before anyone else's."""
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob, eve = fake.add_user("Alice"), fake.add_user("Bob"), fake.add_user("Eve 😈")
        group = fake.add_group("Lobby <&>", members=[alice, bob, eve])
        async with running_bot(fake, tmp_path / "bot.sqlite3"):
            lobby = await open_game(fake, group, [alice], start=False)
            await eve.start_bot()
            await bob.start_bot()
            # Joining needs the bot to know it may write to them: its greeting says so.
            await fake.wait_for(
                lambda: eve.dm.bot_messages() and bob.dm.bot_messages(),
                description="the greetings to Eve and Bob",
            )
            join = next(
                b.callback_data for row in lobby.buttons for b in row if b.text == "✋ Join"
            )
            assert join is not None
            started = time.monotonic()
            flood = [await eve.tap_raw(lobby, join) for _ in range(300)]
            bobs = await bob.tap(lobby, "✋ Join")
            answers = [await tap.wait(timeout=30) for tap in flood]
            took = time.monotonic() - started
            t = texts("en")
            shed = [a for a in answers if a.text == t.alert("error.too_many_taps")]
            handled = [a.text for a in answers if a not in shed]
            assert shed and not any(a.show_alert for a in shed)
            # A person's burst, and the rate since, got through; the rest did nothing.
            assert len(handled) <= BURST + RATE * took + 1, (len(handled), took)
            assert handled[0] == t.alert("lobby.joined")
            assert set(handled[1:]) <= {t.alert("lobby.already_in")}
            assert (await bobs.wait(timeout=30)).text == t.alert("lobby.joined")
            await fake.wait_for(lambda: all(n in lobby.text for n in ("Alice", "Bob", "Eve")))
            assert lobby.text.count("Eve") == 1
        assert fake.unanswered_callbacks() == []
        assert fake.invalid_requests == []


async def test_one_persons_flood_of_messages_does_not_keep_a_players_tap_from_being_read(
    tmp_path: Path,
) -> None:
    """A stranger writes 600 texts in their private chat and 600 commands in a game's
    group, and the bot is slow to handle them (held here until the test lets go). Past a
    person's rate they are shed, so polling goes on reading: a seated player's move and a
    newcomer's /start behind the flood are handled at once, and a player's command in the
    group afterwards is answered. The bot used to hold a chat's updates up to half its
    room: the stranger's two chats filled all of it, polling stopped, and every update
    behind the flood waited at Telegram until the stranger's were handled."""
    rng = random.Random(3434)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice <&>"), fake.add_user("Боб 🃏")
        eve, nina = fake.add_user("Eve 😈"), fake.add_user("Nina", language_code="ru")
        group = fake.add_group("Cards & <friends>", members=[alice, bob, eve])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            queues = app.queues
            assert queues is not None
            await open_game(fake, group, [alice, bob])
            await eve.start_bot()
            await fake.wait_for(lambda: eve.dm.bot_messages())
            await fake.wait_for(lambda: not fake.pending_updates)
            # Eve's updates are slow to handle (say each one waits for a lock): nothing
            # of hers finishes until the test lets it go.
            released = asyncio.Event()
            handle = queues._handle

            async def eve_is_slow(update: Update) -> object:
                writer = update.message.from_user if update.message is not None else None
                if writer is not None and writer.id == eve.id:
                    await released.wait()
                return await handle(update)

            queues._handle = eve_is_slow
            for n in range(600):
                await eve.send_dm(f"spam <{n}> 😀")
                await eve.send(group, "/score")
            started = time.monotonic()
            player = await fake.wait_for(lambda: whose_turn([alice, bob], group))
            await play_one_move(fake, player, rng, group)  # each tap answered within 5 s
            greeting = await nina.start_bot()
            await fake.wait_for(lambda: nina.dm.bot_messages(), timeout=10)
            assert time.monotonic() - started < 15
            assert greeting.message_id < nina.dm.bot_messages()[0].message_id
            assert queues.held <= PRESSED + 2  # the flood's share; the rest shed
            assert not released.is_set()  # all of that while Eve's were still stuck
            released.set()
            await fake.wait_for(lambda: queues.held == 0, timeout=60)
            # What Eve got through was answered; the rest of her flood did nothing.
            assert 1 < len(eve.dm.bot_messages()) <= 1 + PRESSED
            # The players' commands in the game's group are taken as before.
            shown = len(group.bot_messages())
            await bob.send(group, "/score")
            await fake.wait_for(lambda: len(group.bot_messages()) > shown, timeout=10)
        assert fake.invalid_requests == []


async def test_the_next_batch_of_a_flood_is_asked_for_while_the_one_before_is_screened(
    tmp_path: Path,
) -> None:
    """Telegram hands updates out in the order they came, so a player's tap behind a flood
    is read only once all of the flood before it has been. A full batch means more are
    waiting: the bot asks for the next one at once, while it still screens that one
    (Telegram's round trip then overlaps the screening). Here 250 strangers tap junk on
    the table and the screening of the first of them is held: the next batch is asked for
    meanwhile (Telegram sees the first batch confirmed); once it goes on, every junk tap
    is answered, once, and the players' move is taken. The bot used to ask for more only
    once the whole batch was queued (bench/junk.py --trace: the players' slow taps had
    waited at Telegram, behind getUpdates round trips and the screening of junk)."""
    rng = random.Random(343)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice <&>"), fake.add_user("Боб 🃏")
        strangers = [fake.add_user(f"Stranger {n} 😈") for n in range(250)]
        group = fake.add_group("Cards & <friends>", members=[alice, bob, *strangers])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            queues = app.queues
            assert queues is not None
            service = app.service
            assert service is not None
            await open_game(fake, group, [alice, bob])
            game = await service.storage.open_game(group.id, None)
            assert game is not None
            table = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if "Trump:" in m.text), None)
            )
            await fake.wait_for(lambda: not fake.pending_updates)
            held = asyncio.Event()
            first: list[int] = []
            screen = queues._screen
            assert screen is not None

            async def held_screen(update: Update) -> bool:
                if update.update_id in first:
                    await held.wait()
                return await screen(update)

            queues._screen = held_screen
            # All at once (nothing here lets the bot read in between): one full batch,
            # then more.
            flood = [await s.tap_raw(table, f"junk <{n}>") for n, s in enumerate(strangers)]
            first.append(flood[0].update_id)
            full = flood[99].update_id  # the last of the first batch (100 a getUpdates)
            try:
                await fake.wait_for(
                    lambda: all(u["update_id"] > full for u in fake.pending_updates),
                    timeout=10,
                    description="the next getUpdates, confirming the first batch",
                )
                assert not flood[0].answered  # still held
            finally:
                held.set()
            answers = [await tap.wait(timeout=30) for tap in flood]
            assert {a.text for a in answers} == {texts("en").alert("error.forged")}
            player = await fake.wait_for(lambda: whose_turn([alice, bob], group))
            await play_one_move(fake, player, rng, group)
            assert len(await service.storage.moves(game.id)) == 1
        assert fake.unanswered_callbacks() == []
        assert fake.invalid_requests == []


async def test_the_games_a_batch_of_taps_names_are_read_together_not_one_by_one(
    tmp_path: Path,
) -> None:
    """100 strangers tap cards of ten games that do not exist (forged data naming other
    games) in one go. The screen refuses each without a queue, but it must read whether
    each game exists: the ten games are read at once, for the whole batch, and each tap
    is answered «no such game». The bot used to read them one after another (twice for
    each tap), polling waiting on each read behind the handlers' work at the storage:
    a player's tap behind such a flood waited at Telegram (bench/junk.py --trace)."""
    rng = random.Random(3434)
    async with new_fake() as fake:
        fake.enforce_limits = False
        alice, bob = fake.add_user("Alice <&>"), fake.add_user("Боб 🃏")
        strangers = [fake.add_user(f"Stranger {n} 😈") for n in range(100)]
        group = fake.add_group("Cards & <friends>", members=[alice, bob, *strangers])
        async with running_bot(fake, tmp_path / "bot.sqlite3") as app:
            service = app.service
            assert service is not None
            storage = service.storage
            await open_game(fake, group, [alice, bob])
            game = await storage.open_game(group.id, None)
            assert game is not None
            table = await fake.wait_for(
                lambda: next((m for m in group.bot_messages() if "Trump:" in m.text), None)
            )
            await fake.wait_for(lambda: not fake.pending_updates)
            missing = [game.id + 1000 + n for n in range(10)]
            reads: list[int] = []
            at_once = [0, 0]  # in flight now, most at once
            released = asyncio.Event()
            get_game = storage.get_game

            async def held_get_game(game_id: int) -> object:
                if game_id not in missing:
                    return await get_game(game_id)
                reads.append(game_id)
                at_once[0] += 1
                at_once[1] = max(at_once)
                try:
                    await released.wait()
                    return await get_game(game_id)
                finally:
                    at_once[0] -= 1

            storage.get_game = held_get_game  # type: ignore[method-assign]
            # All at once (nothing here lets the bot read in between): one batch.
            flood = [
                await s.tap_raw(table, CardCb(game=missing[n % 10], v=1, card="AS").pack())
                for n, s in enumerate(strangers)
            ]
            try:
                await fake.wait_for(
                    lambda: at_once[1] == len(missing),
                    timeout=10,
                    description="the ten games read at once",
                )
            finally:
                released.set()
            answers = [await tap.wait(timeout=30) for tap in flood]
            assert {a.text for a in answers} == {texts("en").alert("error.no_game")}
            assert sorted(reads) == missing  # each once
            player = await fake.wait_for(lambda: whose_turn([alice, bob], group))
            await play_one_move(fake, player, rng, group)
            assert len(await storage.moves(game.id)) == 1
        assert fake.unanswered_callbacks() == []
        assert fake.invalid_requests == []
