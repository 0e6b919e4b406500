"""The screens dump (``tests/support/screens_dump.py``) that shows a change leaves every
screen alone is itself repeatable: the same seeded game, played twice through the fake
Telegram, writes the same bytes; and it reads what players read (names with ``<``, ``&``
and emoji as written, the seats' buttons and the tap answers)."""

from __future__ import annotations

from tests.support.screens_dump import SCENARIOS, run_scenario


async def test_a_seeded_game_dumps_the_same_bytes_twice() -> None:
    title, scenario, language, seed = next(s for s in SCENARIOS if s[0].startswith("Bura, a"))
    first = await run_scenario(title, scenario, language, seed)
    second = await run_scenario(title, scenario, language, seed)
    assert first == second
    dump = "\n".join(first)
    assert "=== chat Бура & <b>" in dump and "Ёж <3 & 🦔" in dump
    assert "Серия окончена" in dump  # played to the series' end
    assert "taps p:" in dump or "taps t:" in dump
