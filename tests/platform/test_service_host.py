"""The service host: health while serving and draining, AppError to status and ErrorInfo in one
place, background tasks and resources started and stopped with it, signals, a critical task's
failure."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from okeyplatform.errors import NotFound, ResourceExhausted
from okeyplatform.grpcserver import error_reason
from okeyplatform.host import ServiceHost


class Ticker:
    """A background task that counts until stopped (or fails when told to)."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.ticks = 0
        self.stopped = False
        self._stop = asyncio.Event()

    async def run(self) -> None:
        while not self._stop.is_set():
            self.ticks += 1
            if self.fail:
                raise RuntimeError("the consumer cannot go on")
            await asyncio.sleep(0.01)

    def stop(self) -> None:
        self.stopped = True
        self._stop.set()


async def _fail(_request: bytes, _context: Any) -> bytes:
    raise NotFound("no such thing here", "THING_NOT_FOUND", thing="t-1")


async def _stream(_request: bytes, _context: Any) -> AsyncIterator[bytes]:
    yield b"one"
    raise ResourceExhausted("too many at once", "TOO_MANY_THINGS")


async def _bug(_request: bytes, _context: Any) -> bytes:
    raise KeyError("a fault, not a refusal")


def _handlers() -> grpc.GenericRpcHandler:
    return grpc.method_handlers_generic_handler(
        "test.Things",
        {
            "Fail": grpc.unary_unary_rpc_method_handler(_fail),
            "Stream": grpc.unary_stream_rpc_method_handler(_stream),
            "Bug": grpc.unary_unary_rpc_method_handler(_bug),
        },
    )


def _host(ticker: Ticker, closed: list[str], drain_s: float = 0.0, critical: bool = False) -> ServiceHost[Ticker]:
    async def setup(host: ServiceHost[Ticker]) -> Ticker:
        host.serve_generic(_handlers())
        host.background(ticker, critical=critical)
        host.on_close(lambda: closed.append("first"))

        async def close_second() -> None:
            closed.append("second")

        host.on_close(close_second)
        return ticker

    return ServiceHost("things", "127.0.0.1:0", setup, health_names=["test.Things"], drain_s=drain_s)


async def _health(port: int, name: str = "") -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as ch:
        got = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service=name), timeout=2)
        return int(got.status)


async def _until(cond: Callable[[], bool], what: str, within: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not cond():
        assert asyncio.get_running_loop().time() < deadline, f"not within {within:.0f} s: {what}"
        await asyncio.sleep(0.01)


async def test_app_errors_become_their_status_and_reason_in_one_place() -> None:
    ticker, closed = Ticker(), []
    host = _host(ticker, closed)
    await host.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{host.port}") as ch:
            with pytest.raises(grpc.aio.AioRpcError) as got:
                await ch.unary_unary("/test.Things/Fail")(b"", timeout=2)
            assert got.value.code() == grpc.StatusCode.NOT_FOUND
            assert error_reason(got.value) == "THING_NOT_FOUND"
            assert got.value.details() == "no such thing here"
            items: list[bytes] = []
            with pytest.raises(grpc.aio.AioRpcError) as got:
                async for item in ch.unary_stream("/test.Things/Stream")(b"", timeout=2):
                    items.append(item)
            assert items == [b"one"]  # what was sent before the refusal arrives
            assert got.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_reason(got.value) == "TOO_MANY_THINGS"
            with pytest.raises(grpc.aio.AioRpcError) as got:
                await ch.unary_unary("/test.Things/Bug")(b"", timeout=2)
            assert got.value.code() == grpc.StatusCode.UNKNOWN  # a fault is not dressed as a refusal
            assert error_reason(got.value) is None
    finally:
        await host.stop()


async def test_serving_then_a_drain_then_tasks_stopped_and_resources_closed_last_first() -> None:
    ticker, closed = Ticker(), []
    host = _host(ticker, closed, drain_s=0.5)
    await host.start()
    serving = health_pb2.HealthCheckResponse.SERVING
    assert await _health(host.port) == serving and await _health(host.port, "test.Things") == serving
    await _until(lambda: ticker.ticks > 0, "the background task ticked")
    stopping = asyncio.create_task(host.stop())
    # Inside the drain: still answering, but NOT_SERVING as soon as stop() has begun, while the
    # tasks run on and nothing is closed until the drain's 0.5 s are over.
    while (status := await _health(host.port)) == serving:
        assert not stopping.done(), "the host stopped without ever saying NOT_SERVING"
    assert status == health_pb2.HealthCheckResponse.NOT_SERVING
    assert not stopping.done(), "the drain was over before NOT_SERVING was seen"
    assert not ticker.stopped and closed == []
    await stopping
    assert ticker.stopped and closed == ["second", "first"]


async def test_sigterm_drains_and_exits_zero() -> None:
    ticker, closed = Ticker(), []
    host = _host(ticker, closed)
    running = asyncio.create_task(host.run_until_signalled())
    while host.health is None or ticker.ticks == 0:
        await asyncio.sleep(0.02)
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(running, 10) == 0
    assert ticker.stopped and closed == ["second", "first"]


async def test_a_critical_task_failing_fails_the_service() -> None:
    ticker, closed = Ticker(fail=True), []
    host = _host(ticker, closed, critical=True)
    running = asyncio.create_task(host.run_until_signalled())
    assert await asyncio.wait_for(running, 10) == 1
    assert isinstance(host.error, RuntimeError) and closed == ["second", "first"]
