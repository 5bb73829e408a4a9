"""``okey up`` starts its embedded PostgreSQL and NATS before its services bind their ports: the
embedded servers must never be handed one of those ports (a CI run once saw the embedded NATS
take the table service's gRPC port, and ``okey up`` refused to start: "... is not free")."""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

import pytest
from okey_up import free_ports
from okeytools import up
from okeytools.embedded import EmbeddedNats, EmbeddedServerError, base, free_port, resolve_nats
from okeytools.stack import ADDR_ENV, HTTP_ENV, METRICS_ENV, stack_ports

LOW, HIGH = 20000, 32767  # base._PICK_FROM and the last port below Linux's default outgoing range


def _bindable_ports(count: int) -> list[int]:
    """``count`` ports in the range free_port picks from, free on the loopback right now, found
    without free_port (which would remember them: the test must not lean on that)."""
    import socket

    found: list[int] = []
    for port in range(LOW + 7919, HIGH):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((base.LOOPBACK, port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise AssertionError("no free ports on the loopback")  # pragma: no cover


class _Picks:
    """Stands in for ``random`` in okeytools.embedded.base: offers ``avoided`` three times, then
    ``other`` for ever."""

    def __init__(self, avoided: int, other: int) -> None:
        self.avoided = avoided
        self.other = other
        self.offered: list[int] = []

    def randint(self, low: int, high: int) -> int:
        port = self.avoided if len(self.offered) < 3 else self.other
        assert low <= port <= high
        self.offered.append(port)
        return port


@pytest.fixture
def picks(monkeypatch: pytest.MonkeyPatch) -> _Picks:
    """free_port's random picks, made by the test: the port to avoid first."""
    fake = _Picks(*_bindable_ports(2))
    monkeypatch.setattr(base, "random", fake)
    monkeypatch.setattr(base, "_ephemeral_low", lambda: HIGH + 1)
    monkeypatch.setattr(base, "_HANDED_OUT", collections.deque(maxlen=1024))  # nothing handed out yet
    return fake


def test_free_port_never_hands_out_an_avoided_port(picks: _Picks) -> None:
    assert free_port(avoid={picks.avoided}) == picks.other
    assert picks.offered[:3] == [picks.avoided] * 3  # free, offered, and passed over


def test_an_embedded_server_is_never_started_on_an_avoided_port(
    picks: _Picks, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spawned: list[int] = []
    monkeypatch.setattr(EmbeddedNats, "_prepare", lambda self, base_dir: None)
    monkeypatch.setattr(EmbeddedNats, "_spawn_and_wait", lambda self, port: spawned.append(port))
    url, server = resolve_nats(tmp_path / "nats", environ={}, avoid_ports={picks.avoided})
    assert server is not None
    try:
        assert spawned == [picks.other] and url.endswith(f":{picks.other}")
    finally:
        server.close()


def test_stack_ports_are_every_port_okey_up_s_services_listen_on() -> None:
    ports, _ = free_ports()
    wanted = {int(address.rpartition(":")[2]) for address in ports.values()}
    assert stack_ports(ports) == wanted
    assert len(wanted) == len(ADDR_ENV) + len(METRICS_ENV) + 1
    # unset: the documented ports, which okey up then uses
    assert stack_ports({}) >= {50051, 50061, 9061, 8080}
    assert stack_ports({HTTP_ENV: "0.0.0.0:18080"}) >= {18080, 50051}


def test_okey_up_keeps_its_embedded_servers_off_its_services_ports(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ports, _ = free_ports()
    for variable, address in ports.items():
        monkeypatch.setenv(variable, address)
    monkeypatch.delenv("OKEY_DATABASE_URL", raising=False)
    monkeypatch.delenv("OKEY_NATS_URL", raising=False)
    asked: list[frozenset[int]] = []

    def resolve_infra(data_dir: object, *, avoid_ports: frozenset[int] = frozenset()) -> None:
        asked.append(frozenset(avoid_ports))
        raise EmbeddedServerError("stopped by the test before any server starts")

    monkeypatch.setattr(up, "resolve_infra", resolve_infra)
    code = up.run_up(argparse.Namespace(ephemeral=True, data_dir=None, for_seconds=1))
    assert code == 2 and "stopped by the test" in capsys.readouterr().err
    assert asked == [frozenset(int(address.rpartition(":")[2]) for address in ports.values())]
