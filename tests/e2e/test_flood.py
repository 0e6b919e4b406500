"""Issue 27, end to end: a flood of junk in one chat costs a bounded number of tasks
(polling held one task per update: 4,600 at once after 5,000 junk updates), and other
chats are still answered while the flood waits."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from bot.i18n import texts
from tests.e2e.harness import new_fake, running_bot


async def test_a_flood_in_one_chat_holds_few_tasks_and_other_chats_are_still_answered(
    tmp_path: Path,
) -> None:
    rng = random.Random(27)
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
            await alice.start_bot()
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
            flood = 700
            taps = [
                await eve.tap_raw(target, "".join(rng.choices("xyz:0123456789", k=20)))
                for _ in range(flood)
            ]
            # Sent after the whole flood, in another chat: answered while it is stuck.
            await alice.send(alice.dm, "/help")
            await fake.wait_for(lambda: len(alice.dm.bot_messages()) == 2)
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
