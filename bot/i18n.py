"""The text catalogue: gettext `.po` files in bot/locales, one per language.

Message ids are symbolic keys (``lobby.title``) so that every language, English
included, lives in a catalogue and none in the handlers. Babel reads the `.po`
files directly, so there is no compile step to forget.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES_DIR = Path(__file__).with_name("locales")
LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"


@cache
def _translations(language: str) -> gettext.GNUTranslations:
    with (LOCALES_DIR / f"{language}.po").open("rb") as fh:
        catalog = read_po(fh, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def catalog_keys(language: str) -> set[str]:
    with (LOCALES_DIR / f"{language}.po").open("rb") as fh:
        return {str(m.id) for m in read_po(fh, locale=language) if m.id}


class Texts:
    """All texts of one language: ``t("lobby.title", players=3)``."""

    def __init__(self, language: str) -> None:
        self.language = language if language in LANGUAGES else DEFAULT_LANGUAGE
        self._tr = _translations(self.language)

    def __call__(self, key: str, /, **values: object) -> str:
        text = self._tr.gettext(key)
        if text == key:
            raise KeyError(f"no text {key!r} in the {self.language} catalogue")
        return text.format(**values) if values else text


@cache
def texts(language: str | None) -> Texts:
    return Texts(language or DEFAULT_LANGUAGE)
