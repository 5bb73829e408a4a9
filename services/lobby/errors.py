"""The lobby's exceptions, in one place: the refusals a use case raises (each a gRPC status name, a
stable ``reason`` and the ``message`` a player reads; api.py turns them into the status and its
ErrorInfo), the table service's failure to open a match, and the two signals a repository gives
its use cases (a unique key taken, a posting that would overdraw an account)."""

from __future__ import annotations

__all__ = [
    "LobbyError",
    "Invalid",
    "NotFound",
    "Refused",
    "Forbidden",
    "Exists",
    "Flood",
    "Unavailable",
    "StartFailed",
    "InsufficientChips",
    "UniqueTaken",
]


class LobbyError(Exception):
    """A refusal with a gRPC status name, a stable ``reason`` and the ``message`` a player reads."""

    status = "FAILED_PRECONDITION"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class Invalid(LobbyError):
    status = "INVALID_ARGUMENT"


class NotFound(LobbyError):
    status = "NOT_FOUND"


class Refused(LobbyError):
    status = "FAILED_PRECONDITION"


class Forbidden(LobbyError):
    status = "PERMISSION_DENIED"


class Exists(LobbyError):
    status = "ALREADY_EXISTS"


class Flood(LobbyError):
    status = "RESOURCE_EXHAUSTED"


class Unavailable(LobbyError):
    """Another service (the table service) could not be reached: nothing changed, try again."""

    status = "UNAVAILABLE"


class StartFailed(Exception):
    """The table service did not open the table; ``permanent`` when retrying cannot help."""

    def __init__(self, message: str, permanent: bool) -> None:
        super().__init__(message)
        self.permanent = permanent


class InsufficientChips(Exception):
    """A posting would take an account below zero; nothing was written."""

    def __init__(self, account: str, balance: int, needed: int) -> None:
        super().__init__(f"{account} has {balance} chips, needs {needed}")
        self.account = account
        self.balance = balance
        self.needed = needed


class UniqueTaken(Exception):
    """A unique constraint refused a row; ``constraint`` names which."""

    def __init__(self, constraint: str) -> None:
        super().__init__(constraint)
        self.constraint = constraint
