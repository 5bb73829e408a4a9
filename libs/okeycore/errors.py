"""Rule violations: a refused command with a stable reason code and a sentence for the player."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RuleViolation"]


@dataclass(frozen=True, slots=True)
class RuleViolation:
    """Returned (never raised) by ``decide``. ``code`` is stable API (e.g. ``NOT_YOUR_TURN``)."""

    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"
