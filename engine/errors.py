"""One error family for the engine, all under ``ValueError`` (like python-chess)."""


class EngineError(ValueError):
    """Base of every error the engine raises on bad input."""


class CardCodeError(EngineError):
    """A card code such as ``10H`` could not be parsed."""


class RuleSetError(EngineError):
    """A rule set names an unknown switch or value, or one not implemented yet."""


class IllegalMoveError(EngineError):
    """A move breaks the rules; the state it was offered to is unchanged."""


class GameOverError(EngineError):
    """An action was asked of a deal or series that has already ended."""


class RecordError(EngineError):
    """A game record is malformed or does not replay.

    ``deal`` and ``move`` locate the problem (``None`` where it is not inside one).
    """

    def __init__(self, reason: str, *, deal: int | None = None, move: int | None = None) -> None:
        self.reason = reason
        self.deal = deal
        self.move = move
        super().__init__(self.location() + reason)

    def location(self) -> str:
        parts = []
        if self.deal is not None:
            parts.append(f"deal {self.deal}")
        if self.move is not None:
            parts.append(f"move {self.move}")
        return ", ".join(parts) + ": " if parts else "record: "
