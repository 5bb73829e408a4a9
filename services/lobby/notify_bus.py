"""Live delivery of notifications to the WatchNotifications streams open on this lobby process.

A :class:`NotificationHub` holds the open streams (a queue each, by player, at most
``streams_max`` a player). A committed unit's new notifications are handed to
:meth:`NotificationHub.published`: with a :class:`NotifyRelay` running, it publishes each id on
NATS core (``okey.notify.<player>``) and the relay's one wildcard subscription hands every id
that comes (from this replica or another) to the local streams; without one (tests of the use
cases), the hub delivers in this process. A message is only a nudge: a stream reads the
notification from the store by id, and polls the store besides, so a lost message only delays."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from okeyplatform.bus import connect_nats
from okeyplatform.logs import get_logger

from .errors import Flood

__all__ = ["NotificationHub", "NotifyRelay", "SUBJECTS", "subject"]

SUBJECT_PREFIX = "okey.notify."
SUBJECTS = SUBJECT_PREFIX + "*"
QUEUE_MAX = 256  # a stream that falls this far behind reads the rest by its poll

_SAFE = re.compile(r"[A-Za-z0-9_\-]+")


def subject(player_id: str) -> str:
    """The NATS subject of a player's notifications: the id as one token (a dot, a space or a
    wildcard in it escaped), so an id can neither split the subject nor match others'."""
    token = (
        player_id
        if _SAFE.fullmatch(player_id)
        else "".join(c if _SAFE.fullmatch(c) else f"%{ord(c):02X}" for c in player_id)
    )
    return SUBJECT_PREFIX + token


class NotificationHub:
    def __init__(self, streams_max: int) -> None:
        self.streams_max = streams_max
        self._streams: dict[str, set[asyncio.Queue[int]]] = {}
        # Set by a running relay: publish on NATS rather than deliver here.
        self.publisher: Callable[[list[tuple[str, int]]], Awaitable[bool]] | None = None

    def open(self, player_id: str) -> asyncio.Queue[int]:
        """A new stream's queue of notification ids (RESOURCE_EXHAUSTED TOO_MANY_STREAMS past
        ``streams_max`` open for the player here)."""
        mine = self._streams.setdefault(player_id, set())
        if self.streams_max and len(mine) >= self.streams_max:
            if not mine:
                del self._streams[player_id]
            raise Flood(
                f"En çok {self.streams_max} bildirim akışı açık olabilir; birini kapat. "
                f"(At most {self.streams_max} notification streams at once: close one.)",
                "TOO_MANY_STREAMS",
            )
        queue: asyncio.Queue[int] = asyncio.Queue(QUEUE_MAX)
        mine.add(queue)
        return queue

    def close(self, player_id: str, queue: asyncio.Queue[int]) -> None:
        mine = self._streams.get(player_id)
        if mine is not None:
            mine.discard(queue)
            if not mine:
                del self._streams[player_id]

    def streams(self, player_id: str) -> int:
        return len(self._streams.get(player_id, ()))

    def deliver(self, player_id: str, notification_id: int) -> None:
        for queue in self._streams.get(player_id, ()):
            try:
                queue.put_nowait(notification_id)
            except asyncio.QueueFull:
                pass  # that stream's poll reads it

    async def published(self, added: list[tuple[str, int]]) -> None:
        """What a committed unit added: on NATS when the relay runs (it comes back to this hub
        by the subscription), else straight to this process's streams."""
        if self.publisher is not None and await self.publisher(added):
            return
        for player_id, nid in added:
            self.deliver(player_id, nid)


class NotifyRelay:
    """The lobby process's one NATS connection for notifications: publishes the ids, and its
    one subscription (``okey.notify.*``) hands each to the hub. A background part of the host."""

    def __init__(self, nats_url: str, hub: NotificationHub) -> None:
        self.nats_url = nats_url
        self.hub = hub
        self.log = get_logger(component="lobby-notify")
        self._stop = asyncio.Event()
        self._nc: Any = None
        self.subscribed = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        nc = await connect_nats(self.nats_url, self._stop, "lobby-notify")
        if nc is None:
            return

        async def on_message(msg: Any) -> None:
            try:
                got = json.loads(msg.data)
                player_id, nid = got["p"], int(got["n"])
            except (ValueError, KeyError, TypeError):
                return
            if isinstance(player_id, str) and msg.subject == subject(player_id):
                self.hub.deliver(player_id, nid)

        try:
            await nc.subscribe(SUBJECTS, cb=on_message)
            await nc.flush(timeout=5)
            self._nc = nc
            self.hub.publisher = self.publish
            self.subscribed.set()
            await self._stop.wait()
        finally:
            self.hub.publisher = None
            self._nc = None
            await nc.close()

    async def publish(self, added: list[tuple[str, int]]) -> bool:
        """False when NATS cannot take them now (the hub then delivers here; other replicas'
        streams find them by their poll)."""
        nc = self._nc
        if nc is None or not nc.is_connected:
            return False
        try:
            for player_id, nid in added:
                await nc.publish(subject(player_id), json.dumps({"p": player_id, "n": nid}).encode())
            await nc.flush(timeout=2)
        except Exception as exc:
            self.log.warning("notification_not_published", error=repr(exc))
            return False
        return True
