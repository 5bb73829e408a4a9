"""The lobby's exceptions, in one place: its refusals are ``okeyplatform.errors.AppError``
subclasses (a use case raises them with the ``message`` a player reads and a stable ``reason``;
the service host's ``AppErrors`` interceptor turns them into the gRPC status and its ErrorInfo,
the gateway into HTTP), and three signals that never reach a caller: the table service's failure
to open a match, and what a repository tells its use cases (a unique key taken, a posting that
would overdraw an account)."""

from __future__ import annotations

from okeyplatform import errors as app

__all__ = [
    "Invalid",
    "NotFound",
    "Refused",
    "Forbidden",
    "Exists",
    "Flood",
    "Unavailable",
    "Unauthenticated",
    "Raced",
    "StartFailed",
    "InsufficientChips",
    "UniqueTaken",
]


class Invalid(app.InvalidArgument):
    """A request the lobby cannot take as sent (INVALID_ARGUMENT)."""


class NotFound(app.NotFound):
    """No such player, table, message or report (NOT_FOUND)."""


class Refused(app.FailedPrecondition):
    """A request the state of the lobby refuses now (FAILED_PRECONDITION)."""


class Forbidden(app.PermissionDenied):
    """Not the caller's to do (PERMISSION_DENIED)."""


class Exists(app.AlreadyExists):
    """A name or a record that is taken already (ALREADY_EXISTS)."""


class Flood(app.ResourceExhausted):
    """A quota or a rate limit reached (RESOURCE_EXHAUSTED)."""


class Unauthenticated(app.Unauthenticated):
    """A credential the lobby does not know (UNAUTHENTICATED)."""


class Raced(app.Aborted):
    """Another request did this a moment ago: nothing changed; look again, then retry (ABORTED)."""


class Unavailable(app.Unavailable):
    """Another service (the table service) could not be reached: nothing changed, try again."""


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
