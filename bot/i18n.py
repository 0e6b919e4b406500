"""The text catalogue: gettext `.po` files in bot/locales, one per language, and the
catalogues a game brings in its own folder (``add_catalogues``).

Message ids are symbolic keys (``lobby.title``) so that every language, English
included, lives in a catalogue and none in the handlers. Babel reads the `.po`
files directly, so there is no compile step to forget.
"""

from __future__ import annotations

import gettext
import io
import re
from collections.abc import Iterable
from functools import cache
from html import escape, unescape
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

LOCALES_DIR = Path(__file__).with_name("locales")
LANGUAGES = ("ru", "en")
DEFAULT_LANGUAGE = "ru"


# Folders holding ``<language>.po`` files: the bot's own, then each added game's.
CATALOGUES: list[Path] = [LOCALES_DIR]


def add_catalogues(folder: Path) -> None:
    """Texts of a game that keeps its catalogues in its own folder (a key the bot's own
    catalogue has is not taken from there)."""
    if folder not in CATALOGUES:
        CATALOGUES.append(folder)
        _translations.cache_clear()
        texts.cache_clear()


def remove_catalogues(folder: Path) -> None:
    CATALOGUES.remove(folder)
    _translations.cache_clear()
    texts.cache_clear()


def _read(folder: Path, language: str) -> gettext.GNUTranslations:
    with (folder / f"{language}.po").open("rb") as fh:
        catalog = read_po(fh, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


@cache
def _translations(language: str) -> gettext.GNUTranslations:
    first, *rest = CATALOGUES
    translations = _read(first, language)
    for folder in rest:
        translations.add_fallback(_read(folder, language))
    return translations


def catalog_keys(language: str) -> set[str]:
    keys: set[str] = set()
    for folder in CATALOGUES:
        with (folder / f"{language}.po").open("rb") as fh:
            keys |= {str(m.id) for m in read_po(fh, locale=language) if m.id}
    return keys


class Html(str):
    """Text that is HTML already (a rendered template, an escaped name): inserted as is.

    Any other value put into a template is escaped by ``Texts`` itself, so a name or a
    group title holding ``<`` or ``&`` can never break a message (Telegram refuses the
    whole message with "can't parse entities")."""

    __slots__ = ()


def html(value: object) -> Html:
    """``value`` as HTML: escaped unless it is ``Html`` already."""
    return value if isinstance(value, Html) else Html(escape(str(value), quote=False))


def html_join(separator: str, parts: Iterable[object]) -> Html:
    return Html(html(separator).join(html(p) for p in parts))


_TAG = re.compile(r"<[^>]*>")


def plain(text: str) -> str:
    """An HTML text as plain text, for places Telegram shows without parsing (alerts)."""
    return unescape(_TAG.sub("", text))


class Texts:
    """All texts of one language: ``t("lobby.title", players=3)``, values escaped."""

    def __init__(self, language: str) -> None:
        self.language = language if language in LANGUAGES else DEFAULT_LANGUAGE
        self._tr = _translations(self.language)

    def __call__(self, key: str, /, **values: object) -> Html:
        text = self._tr.gettext(key)
        if text == key:
            raise KeyError(f"no text {key!r} in the {self.language} catalogue")
        if not values:
            return Html(text)
        return Html(text.format(**{name: html(v) for name, v in values.items()}))

    def alert(self, key: str, /, **values: object) -> str:
        """The text as plain text, for a pop-up (which shows tags and entities raw)."""
        return plain(self(key, **values))


@cache
def texts(language: str | None) -> Texts:
    return Texts(language or DEFAULT_LANGUAGE)
