"""An action's label as the Mini App shows it on a button standing for every action of
its kind: the translated label without its cards («➡️ Lead {cards}» → «➡️ Lead»)."""

from bot.i18n import Texts, plain


def without_cards(t: Texts, key: str) -> str:
    return " ".join(plain(t(key, cards="")).rstrip(" :,—-").split())
