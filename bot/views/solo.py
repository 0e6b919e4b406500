"""The menu of a game against computers in the private chat: rules (any preset of
either game), how many computer players and how strong, and «Play»."""

from __future__ import annotations

from dataclasses import dataclass

from bot.chat_settings import presets
from bot.i18n import Texts
from bot.views.callbacks import SoloCb
from bot.views.render import Keyboard, button, keyboard
from engine.game import COMPUTER_LEVELS


@dataclass(frozen=True)
class SoloChoice:
    preset: str = "classic_burkozel"
    computers: int = 3
    level: str = "normal"

    def data(
        self,
        action: str = "set",
        *,
        preset: str | None = None,
        computers: int | None = None,
        level: str | None = None,
    ) -> str:
        """A button's data: this choice with one part changed."""
        return SoloCb(
            preset=preset or self.preset,
            computers=computers or self.computers,
            level=level or self.level,
            action=action,
        ).pack()

    @property
    def valid(self) -> bool:
        return (
            self.preset in presets() and 1 <= self.computers <= 3 and self.level in COMPUTER_LEVELS
        )


def choice_for_game(game: str | None) -> SoloChoice:
    """The menu's first choice: the classic rules of the game named (``/newgame bura``)."""
    classic = f"classic_{game}"
    return SoloChoice(preset=classic) if classic in presets() else SoloChoice()


def _pairs(preset: str) -> bool:
    """Pairs (B5) play two against two: choosing them seats three computers."""
    return presets()[preset][1].get("teams") == "pairs"


def menu_text(t: Texts, choice: SoloChoice) -> str:
    return "\n".join(
        [
            t("solo.title"),
            "",
            t("solo.rules", preset=t(f"preset.{choice.preset}")),
            t(
                "solo.opponents",
                n=choice.computers,
                level=t(f"computer.{choice.level}"),
            ),
            "",
            t("solo.hint"),
        ]
    )


def menu_keyboard(t: Texts, choice: SoloChoice) -> Keyboard:
    def mark(chosen: bool, text: str) -> str:
        return f"• {text}" if chosen else text

    rules = [
        button(
            mark(p == choice.preset, t(f"preset.{p}")),
            choice.data(preset=p, computers=3 if _pairs(p) else None),
        )
        for p in presets()
    ]
    rows = [rules[i : i + 2] for i in range(0, len(rules), 2)]
    rows.append(
        [button(mark(n == choice.computers, "🤖" * n), choice.data(computers=n)) for n in (1, 2, 3)]
    )
    rows.append(
        [
            button(mark(level == choice.level, t(f"computer.{level}")), choice.data(level=level))
            for level in COMPUTER_LEVELS
        ]
    )
    rows.append([button(t("solo.play"), choice.data("go"))])
    return keyboard(rows)


def greeting_keyboard(t: Texts) -> Keyboard:
    """The greeting's «Play the computer»: opens the menu below it."""
    return keyboard([[button(t("solo.open"), SoloChoice().data("menu"))]])
