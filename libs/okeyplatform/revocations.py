"""Token revocations across services: the lobby revokes, every service that checks tokens follows.

The lobby (the owner of players, bans and sign-outs) publishes each revocation on the NATS
subject ``okey.auth.revoked`` (``{"sub": player, "before": unix seconds}``) and answers requests
on ``okey.auth.revocations`` with every revocation still in force (younger than the longest token
lifetime). A :class:`RevocationFollower` in each service subscribes first, then asks for that
list (again every few seconds until the lobby answers), and writes both into this process's table
(``okeyplatform.auth.revoke``), which every token check consults, cached or not. A sign-out or a
ban so takes effect at every service within the time a NATS message takes; while NATS or the
lobby is down a service keeps what it knew, and catches up when they return."""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from .auth import revoke
from .bus import connect_nats
from .logs import get_logger

__all__ = ["REVOKED_SUBJECT", "LIST_SUBJECT", "RevocationFollower", "RevocationPublisher", "encode", "apply"]

REVOKED_SUBJECT = "okey.auth.revoked"
LIST_SUBJECT = "okey.auth.revocations"


def encode(revocations: Iterable[tuple[str, float]]) -> bytes:
    return json.dumps([{"sub": s, "before": b} for s, b in revocations], separators=(",", ":")).encode()


def apply(data: bytes) -> int:
    """Revocations from a message (one object or a list); returns how many were read."""
    try:
        got = json.loads(data)
    except ValueError:
        return 0
    items = got if isinstance(got, list) else [got]
    n = 0
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("sub"), str) and isinstance(item.get("before"), int | float):
            revoke(item["sub"], float(item["before"]))
            n += 1
    return n


class _Background(ABC):
    """A task of this module's: started and stopped with its service, connecting to NATS with
    backoff while it is down."""

    def __init__(self, nats_url: str) -> None:
        self.nats_url = nats_url
        self.log = get_logger(component="revocations")
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    @abstractmethod
    async def _run(self) -> None:
        """The task itself, until ``_stop`` is set."""

    async def _connect(self, **options: Any) -> Any:
        """A NATS connection (reconnecting by itself once made), or None when stopped first."""
        return await connect_nats(self.nats_url, self._stop, "revocations", **options)

    async def _sleep(self, seconds: float) -> None:
        try:
            await asyncio.wait_for(self._stop.wait(), timeout=seconds)
        except TimeoutError:
            pass


class RevocationFollower(_Background):
    """Follows the lobby's revocations into this process (see the module's text)."""

    def __init__(self, nats_url: str, retry_s: float = 2.0, refresh_s: float = 60.0) -> None:
        super().__init__(nats_url)
        self.retry_s = retry_s
        self.refresh_s = refresh_s
        self.loaded = asyncio.Event()  # the lobby's list has been read once
        self.received = 0
        self.unanswered = 0  # asks for the list that got no answer (no lobby yet, a timeout)
        self._reload = asyncio.Event()

    async def _run(self) -> None:
        reload = self._reload
        reload.set()

        async def on_reconnect() -> None:
            reload.set()  # what was published while we were away: read the whole list again

        async def on_revoked(msg: Any) -> None:
            self.received += apply(msg.data)

        nc = await self._connect(reconnected_cb=on_reconnect)
        if nc is None:
            return
        try:
            await nc.subscribe(REVOKED_SUBJECT, cb=on_revoked)
            while not self._stop.is_set():
                if not reload.is_set():
                    stop = asyncio.create_task(self._stop.wait())
                    again = asyncio.create_task(reload.wait())
                    done, _ = await asyncio.wait(
                        {stop, again}, timeout=self.refresh_s, return_when=asyncio.FIRST_COMPLETED
                    )
                    stop.cancel()
                    again.cancel()
                    if not done:
                        reload.set()  # now and then the whole list again: a lost message is not lost for long
                    continue
                try:
                    reply = await nc.request(LIST_SUBJECT, b"", timeout=2.0)
                    self.received += apply(reply.data)
                    reload.clear()
                    self.loaded.set()
                    self.log.info("revocations_loaded", count=self.received)
                except Exception:  # no lobby yet (no responders), or a timeout: ask again
                    self.unanswered += 1
                    await self._sleep(self.retry_s)
        finally:
            await nc.close()


class RevocationPublisher(_Background):
    """The lobby's side: publishes each revocation, and answers ``okey.auth.revocations`` with
    every one in force (``list_fn``), so a service that starts (or missed a message) catches up."""

    def __init__(self, nats_url: str, list_fn: Callable[[], Awaitable[list[tuple[str, float]]]]) -> None:
        super().__init__(nats_url)
        self.list_fn = list_fn
        self._nc: Any = None

    async def _run(self) -> None:
        nc = await self._connect()
        if nc is None:
            return

        async def answer(msg: Any) -> None:
            try:
                await msg.respond(encode(await self.list_fn()))
            except Exception as exc:  # the store is down: the asker asks again
                self.log.warning("revocations_list_failed", error=repr(exc))

        await nc.subscribe(LIST_SUBJECT, queue="lobby", cb=answer)
        self._nc = nc

    async def publish(self, subject: str, before: float) -> None:
        if self._nc is None:
            self.log.warning("revocation_not_published", player_id=subject)  # followers reload it
            return
        try:
            await self._nc.publish(REVOKED_SUBJECT, json.dumps({"sub": subject, "before": before}).encode())
            await self._nc.flush(timeout=2)
        except Exception as exc:
            self.log.warning("revocation_not_published", player_id=subject, error=repr(exc))

    async def stop(self) -> None:
        await super().stop()
        if self._nc is not None:
            await self._nc.close()
