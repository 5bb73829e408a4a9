"""What a service declares of its consumer (:class:`ConsumerSpec`); everything else is the
platform's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

import asyncpg
from nats.js.api import DeliverPolicy

from ..contract import Envelope

PROJECTION_LINGER_S = 0.1
"""How long the projections (scoring, the lobby's payouts) let a busy stream gather between two
fetches: a batch of ~12 events at 500 events/s becomes one of ~50, in one transaction; they are
at most this much later. The bots do not linger (a bot's turn waits on its consumer)."""

ACK_WAIT_S = 10.0
"""How long a killed replica's batch waits before JetStream hands it to another (or to the same
service restarted). A live replica keeps its batch in progress every third of it, however long
the batch takes, and a redelivered event is a duplicate by its version, so it only bounds the
failover."""


U = TypeVar("U")


class RetryLater(Exception):
    """Raised by an external handler: this event cannot be handled now (the service its effect
    goes to is unreachable); it and its table's later events in the batch are handed back and
    delivered again after a delay."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ConsumerSpec(Generic[U]):
    """What a service declares of its consumer; everything else is the platform's.

    ``name`` is the consumer's name in the applied-version record and the parked tables (and its
    durable unless the consumer is given another). ``apply(uow, envelope)`` is the effect of one
    event. ``unit(conn, table_ids)`` opens the unit of work of a batch on the transaction's
    connection (entered before the batch's first event, exited after its last, inside the
    transaction); None for an external effect. ``external``: the effect lies outside the database
    and is idempotent by its command ids (see the package). ``unreadable``: an event okeycore
    cannot read is ``"skip"``-ped (logged, its version counts as applied) or ``"park"``-s its
    table; ``unknown_kind="stop"`` stops the consumer on an event type okeycore does not know (a
    newer table service: upgrade) instead. ``parks``: exceptions of ``apply`` that park the
    event's table; ``stops``: exceptions that stop the consumer.

    The rest tunes the pull consumer: ``batch`` messages a fetch, ``in_flight`` batches at once
    (more than 1 only for an external effect, whose applier keeps each table's order across
    batches), ``ack_wait_s`` (while a batch is handled its messages are kept in progress, so it
    only bounds how long a dead replica's events wait for another replica), ``deliver`` (where a
    new durable starts: ``ALL`` the stream's first event, ``NEW`` events published after), an
    event handed back (RETRY) is given up at its ``max_retries``-th delivery (logged,
    acknowledged), and ``linger_s``: after a batch smaller than ``batch``, the next fetch waits
    until that long after the last one began, so a busy stream comes in fewer, larger batches
    (:data:`PROJECTION_LINGER_S`). ``concurrency``: an external effect's tables handled at once."""

    name: str
    apply: Callable[[U, Envelope], Awaitable[None]]
    unit: Callable[[asyncpg.Connection, Sequence[str]], AbstractAsyncContextManager[U]] | None = None
    external: bool = False
    unreadable: Literal["skip", "park"] = "skip"
    unknown_kind: Literal["skip", "stop"] = "skip"
    parks: tuple[type[Exception], ...] = ()
    stops: tuple[type[Exception], ...] = ()
    component: str = "table-consumer"
    subject: str = "okey.table.>"
    batch: int = 500
    in_flight: int = 1
    ack_wait_s: float = ACK_WAIT_S
    deliver: DeliverPolicy = DeliverPolicy.ALL
    max_retries: int = 20
    linger_s: float = 0.0
    concurrency: int = 64

    def __post_init__(self) -> None:
        if self.in_flight < 1:
            raise ValueError("in_flight: at least 1")
        if self.in_flight > 1 and not self.external:
            raise ValueError("in_flight: more than 1 only for an external effect (it keeps each table's order)")
        if not 0.0 <= self.linger_s < self.ack_wait_s:
            # lingering as long as a dead replica's events wait for another would be a failover
            raise ValueError(f"linger_s: 0 up to ack_wait_s ({self.ack_wait_s:g} s), not {self.linger_s:g}")
        if self.external and (self.unit is not None or self.unreadable == "park" or self.parks):
            raise ValueError("an external effect has no unit of work and parks nothing")
        if not self.external and self.unit is None:
            raise ValueError("an effect in the database needs its unit of work (unit)")
