"""Helpers shared by the table-service tests."""

from __future__ import annotations

import nats
from okey.v1 import events_pb2
from okeyplatform.relay import table_subject


async def jetstream_versions(url: str, table_id: str, expected: int, timeout: float = 20.0) -> list[int]:
    """The versions of ``table_id``'s events on JetStream, in the order they are stored: up to
    ``expected`` of them, or as many as came before ``timeout`` seconds passed without one."""
    nc = await nats.connect(url)
    try:
        js = nc.jetstream()
        sub = await js.subscribe(table_subject(table_id), ordered_consumer=True)
        versions: list[int] = []
        try:
            while len(versions) < expected:
                msg = await sub.next_msg(timeout=timeout)
                versions.append(events_pb2.TableEvent.FromString(msg.data).version)
        except nats.errors.TimeoutError:
            pass
        await sub.unsubscribe()
        return versions
    finally:
        await nc.close()


async def create_as_lobby(address: str, options: object, players: tuple[str, ...], table_id: str) -> None:
    """Open a table seating ``players`` as the lobby does, with a service credential (a
    player may only seat themself and bots)."""
    from okeyplatform.auth import issue_token
    from okeyplatform.client import TableClient

    lobby = TableClient(address, issue_token("lobby", "service"))
    try:
        await lobby.create_table(options, players, table_id=table_id)  # type: ignore[arg-type]
    finally:
        await lobby.close()
