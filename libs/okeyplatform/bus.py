"""NATS connections for the services' background tasks: one way to connect, with backoff.

A task connects while NATS may still be starting (or restarting): it retries with doubling
backoff, up to 5 s between tries, until it is connected or asked to stop. Once connected,
nats-py reconnects by itself (``max_reconnect_attempts=-1``)."""

from __future__ import annotations

import asyncio
from typing import Any

import nats
from nats.aio.client import Client

from . import metrics as M
from .logs import get_logger

__all__ = ["connect_nats", "check_nats", "NatsUnreachable", "pause", "Backoff"]


async def pause(stop: asyncio.Event, seconds: float) -> None:
    """Sleep ``seconds``, or less when ``stop`` is set meanwhile."""
    try:
        await asyncio.wait_for(stop.wait(), timeout=seconds)
    except TimeoutError:
        pass


class Backoff:
    """Doubling delays between tries, from ``first`` up to ``cap`` seconds; ``reset`` after a success."""

    def __init__(self, first: float = 0.2, cap: float = 5.0) -> None:
        self.first, self.cap = first, cap
        self.delay = first

    def reset(self) -> None:
        self.delay = self.first

    async def wait(self, stop: asyncio.Event) -> None:
        await pause(stop, self.delay)
        self.delay = min(self.delay * 2, self.cap)


async def connect_nats(url: str, stop: asyncio.Event, component: str, **options: Any) -> Client | None:
    """A NATS connection that reconnects by itself once made, waiting for NATS while it is down;
    None when ``stop`` is set first. ``options`` go to ``nats.connect`` (callbacks, ...). The
    metrics' ``nats`` dependency probe watches it (0 while it cannot connect)."""
    log = get_logger(component=component)

    async def on_error(exc: Exception) -> None:
        log.warning("nats_error", error=str(exc))

    options.setdefault("error_cb", on_error)
    options.setdefault("connect_timeout", 2)
    backoff = Backoff()
    while not stop.is_set():
        try:
            nc: Client = await nats.connect(url, max_reconnect_attempts=-1, reconnect_time_wait=0.5, **options)
            M.watch_nats(nc)  # okey_dependency_up{dependency="nats"} follows it
            return nc
        except (nats.errors.Error, OSError, TimeoutError) as exc:
            M.DEPENDENCY_UP.labels("nats").set(0)
            log.warning("nats_connect_retry", error=repr(exc), backoff=backoff.delay)
            await backoff.wait(stop)
    return None


class NatsUnreachable(OSError):
    """NATS cannot be reached at the configured URL, or it has no JetStream: an expected failure
    before anything starts, told in one line naming the variable (``okey``'s main prints it)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"{message}; check OKEY_NATS_URL")


async def check_nats(url: str, within_s: float = 5.0) -> None:
    """Connect once to ``url`` within ``within_s`` seconds and ask JetStream for the account,
    or raise :class:`NatsUnreachable`. The services' own connections wait for NATS for ever
    (:func:`connect_nats`), right for a server that restarts; a URL that never answers is for
    the command that starts them to tell at once."""
    failed: asyncio.Future[BaseException] = asyncio.get_running_loop().create_future()

    async def on_error(exc: Exception) -> None:  # nats-py would print each try's traceback
        if not failed.done():
            failed.set_result(exc)

    shown = _redacted(url)
    # nats-py keeps trying a server that refused (its pool is never empty with
    # max_reconnect_attempts=0), so the first failed try, reported here, ends the check: a port
    # nobody listens on or a name that does not resolve is told at once, not after ``within_s``.
    connecting = asyncio.ensure_future(
        nats.connect(url, connect_timeout=2, allow_reconnect=False, max_reconnect_attempts=0, error_cb=on_error)
    )
    done, _ = await asyncio.wait({connecting, failed}, timeout=within_s, return_when=asyncio.FIRST_COMPLETED)
    if connecting in done and connecting.exception() is None:
        nc = connecting.result()
    else:
        connecting.cancel()
        await asyncio.gather(connecting, return_exceptions=True)
        cause: BaseException = TimeoutError()
        if failed.done():
            cause = failed.result()
        elif connecting in done and connecting.exception() is not None:
            cause = connecting.exception()  # type: ignore[assignment]
        if isinstance(cause, TimeoutError):
            raise NatsUnreachable(f"cannot reach NATS at {shown} within {within_s:g} s")
        raise NatsUnreachable(f"cannot reach NATS at {shown} ({str(cause) or type(cause).__name__})")
    try:
        await asyncio.wait_for(nc.jetstream().account_info(), timeout=within_s)
    except (nats.errors.Error, OSError, TimeoutError) as exc:
        what = str(exc) or type(exc).__name__
        raise NatsUnreachable(f"NATS at {shown} answers but not JetStream ({what})") from None
    finally:
        await nc.close()


def _redacted(url: str) -> str:
    """The URL without its credentials (a NATS URL's user part may be a token)."""
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, _, _ = head.partition("//")
    return f"{scheme}//***@{tail}"
