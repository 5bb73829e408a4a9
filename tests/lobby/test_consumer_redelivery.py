"""The lobby's real consumer (services/lobby/consumer.py ``match_consumer``) over a real NATS
JetStream and PostgreSQL, when a MatchEnded is delivered twice.

A consumer dies after its transaction committed the payout but before it acknowledged the
message (the applier is wrapped to stop right there, like a ``kill -9`` at that instant: no
ack, no nak): JetStream redelivers the same message after the ack wait to the next consumer on
the durable, which must find it a duplicate and pay nothing more. A consumer that dies before
its transaction commits must leave the payout to the redelivery, paid once. A second publish
of the event (another message id, as a relay's retry after a lost ack) pays nothing either."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import nats
import pytest
from lobby_helpers import Guest, assert_ledger_invariants, chips_of
from nats.js.client import JetStreamContext
from okeycore.classic import split_pot
from okeycore.events import MatchEnded, event_to_dict
from okeycore.options import Game, TableOptions
from okeyplatform.auth import Identity
from okeyplatform.consumer import Applier, BatchResult, Item, TableEventConsumer
from okeyplatform.contract import encode_envelope, nats_headers
from okeyplatform.eventstore import PostgresEventStore, StoredEvent
from okeyplatform.relay import TABLE_STREAM, ensure_table_stream, table_subject
from okeytools.embedded import EmbeddedNats

from services.lobby.app import LobbyApp
from services.lobby.consumer import match_consumer
from services.lobby.tables import FINISHED

ACK_WAIT_S = 1.5  # how long JetStream waits for the dead consumer's ack before it redelivers
DURABLE = "lobby-redelivery"
STAKE = TableOptions(game=Game.OKEY, stake=100)


@dataclass
class DiesAt:
    """The consumer's own applier, stopped for good before or after its transaction (the
    process gone at that instant: the message is neither acknowledged nor handed back)."""

    inner: Applier
    after_commit: bool
    reached: asyncio.Event = field(default_factory=asyncio.Event)

    async def apply(self, items: Sequence[Item]) -> BatchResult:
        if self.after_commit:
            await self.inner.apply(items)
        self.reached.set()
        await asyncio.Event().wait()  # never returns: cancelled with the consumer
        raise AssertionError("unreachable")


@pytest.fixture
async def js(embedded_nats: EmbeddedNats) -> AsyncIterator[JetStreamContext]:
    nc = await nats.connect(embedded_nats.url)
    try:
        jetstream = nc.jetstream()
        await ensure_table_stream(jetstream)
        yield jetstream
    finally:
        await nc.close()


@pytest.fixture
async def events(fresh_database_url: str) -> AsyncIterator[PostgresEventStore]:
    store = await PostgresEventStore.connect(fresh_database_url, min_size=1, max_size=2)
    try:
        yield store
    finally:
        await store.close()


async def _table(app: LobbyApp, guest: Guest) -> tuple[str, list[Identity]]:
    """A classic table at stake 100: two guests (seats 0, 1) and two bots, playing."""
    players = [await guest() for _ in range(2)]
    card, _ = await app.open_table(players[0], STAKE)
    tid = card.table.table_id
    await app.join(players[1], tid)
    await app.fill_with_bots(players[0], tid)
    assert [await chips_of(app, p) for p in players] == [900, 900]
    return tid, players


async def _publish_end(js: JetStreamContext, tid: str, msg_id: str | None = None) -> None:
    """The table's MatchEnded (seats 0 and 2 win) as the relay publishes it, version 1."""
    payout, remainder = split_pot(400, 2)
    event = MatchEnded((1, 1, 1, 1), (0, 2), 400, payout, remainder)
    data = {k: v for k, v in event_to_dict(event).items() if k != "type"}
    stored = StoredEvent(tid, 1, event.type, data, 3, 1, (1, 1), datetime.now(UTC))
    headers = nats_headers(stored) | ({"Nats-Msg-Id": msg_id} if msg_id else {})
    ack = await js.publish(table_subject(tid), encode_envelope(stored), headers=headers)
    assert not ack.duplicate


def _consumer(app: LobbyApp, url: str, events: PostgresEventStore) -> TableEventConsumer:
    consumer = match_consumer(app, url, events, durable=DURABLE)
    consumer.ack_wait_s = ACK_WAIT_S
    return consumer


async def _dies(consumer: TableEventConsumer, after_commit: bool) -> None:
    """Run ``consumer`` until its applier reaches the point of death, then end it there."""
    dying = DiesAt(consumer.app, after_commit)
    consumer.app = dying
    task = asyncio.create_task(consumer.run())
    await asyncio.wait_for(dying.reached.wait(), 15)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def _until(check: Callable[[], bool], what: str, timeout_s: float = 15.0) -> None:
    for _ in range(int(timeout_s / 0.05)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"not within {timeout_s} s: {what}")


async def _delivered(js: JetStreamContext) -> tuple[int, int, int]:
    """(deliveries the durable made, messages on the stream, messages awaiting an ack): more
    deliveries than messages is a redelivery."""
    info = await js.consumer_info(TABLE_STREAM, DURABLE)
    stream = await js.stream_info(TABLE_STREAM)
    return info.delivered.consumer_seq or 0, stream.state.messages, info.num_ack_pending or 0


async def test_a_match_end_redelivered_after_a_crash_before_its_ack_is_paid_once(
    app: LobbyApp, guest: Guest, js: JetStreamContext, embedded_nats: EmbeddedNats, events: PostgresEventStore
) -> None:
    tid, players = await _table(app, guest)
    await _publish_end(js, tid)
    await _dies(_consumer(app, embedded_nats.url, events), after_commit=True)
    # The payout committed with the applied version; the message was never acknowledged.
    assert [await chips_of(app, p) for p in players] == [1100, 900]
    assert (await _delivered(js))[2] == 1

    again = _consumer(app, embedded_nats.url, events)
    task = asyncio.create_task(again.run())
    try:
        await _until(lambda: again.duplicates >= 1, "the redelivered MatchEnded reached the next consumer")
        await _publish_end(js, tid, msg_id=f"{tid}:1:republished")  # published twice
        await _until(lambda: again.duplicates >= 2, "the republished MatchEnded reached the consumer")
        await _until(lambda: again.applied == 0 and again.held == 0, "nothing applied or held")
        deliveries, messages, pending = await _delivered(js)
        assert (deliveries, messages, pending) == (3, 2, 0)
    finally:
        again.stop()
        await asyncio.wait_for(task, 10)
    assert again.applied == 0
    assert [await chips_of(app, p) for p in players] == [1100, 900]
    card = await app.table_card(players[0], tid)
    assert card.table.status == FINISHED
    await assert_ledger_invariants(app.store)


async def test_a_match_end_whose_consumer_died_before_commit_is_paid_by_the_redelivery(
    app: LobbyApp, guest: Guest, js: JetStreamContext, embedded_nats: EmbeddedNats, events: PostgresEventStore
) -> None:
    tid, players = await _table(app, guest)
    await _publish_end(js, tid)
    await _dies(_consumer(app, embedded_nats.url, events), after_commit=False)
    assert [await chips_of(app, p) for p in players] == [900, 900]  # nothing committed

    again = _consumer(app, embedded_nats.url, events)
    task = asyncio.create_task(again.run())
    try:
        await _until(lambda: again.applied >= 1, "the redelivered MatchEnded was applied")
        deliveries, messages, _ = await _delivered(js)
        assert (deliveries, messages) == (2, 1)
    finally:
        again.stop()
        await asyncio.wait_for(task, 10)
    assert again.applied == 1 and again.duplicates == 0
    assert [await chips_of(app, p) for p in players] == [1100, 900]
    await assert_ledger_invariants(app.store)
