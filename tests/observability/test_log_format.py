"""Issue 41.3: one log format rule for every process, decided in one place
(``okeyplatform.logs.json_logs``): JSON lines when the log stream is not a terminal, console text
on a terminal, ``OKEY_LOG_FORMAT`` over both. Every line a service writes follows it: our own
structlog lines, the gateway's access lines, uvicorn's own, whatever goes through the standard
``logging`` module (asyncio, grpc, the embedded servers' wrappers), warnings and a crash."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import socket
import subprocess
import sys
import textwrap
import time
from typing import Any

import httpx
import pytest
from okeytools.embedded import free_port
from okeytools.stack import ADDR_ENV, ALL_SERVICES, METRICS_ENV

# What `okey up` itself prints for the person who ran it (its report on stdout), as opposed to
# the services' log lines on the same output.
_UP_OWN = ("okey up", "  ", "ready.")


def _env(database_url: str, nats_url: str) -> tuple[dict[str, str], str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OKEY_LOG_FORMAT", "OKEY_TOKEN_SECRET")}
    env |= {ADDR_ENV[n]: f"127.0.0.1:{free_port()}" for n in ADDR_ENV}
    env |= {METRICS_ENV[n]: f"127.0.0.1:{free_port()}" for n in METRICS_ENV}
    http = f"127.0.0.1:{free_port()}"
    env |= {
        "OKEY_GATEWAY_HTTP_ADDR": http,
        "OKEY_DATABASE_URL": database_url,
        "OKEY_NATS_URL": nats_url,
        "OKEY_LOG_LEVEL": "INFO",
        "PYTHONWARNINGS": "default",
    }
    return env, http


def _poke(http: str) -> None:
    """An access line (a request), and a line of uvicorn's own (a request it cannot read)."""
    with httpx.Client(base_url=f"http://{http}", timeout=20) as client:
        assert client.get("/api").status_code == 200
    host, _, port = http.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        try:
            s.recv(1024)
        except OSError:
            pass
    with httpx.Client(base_url=f"http://{http}", timeout=20) as client:  # once more: the lines above are out
        assert client.get("/api").status_code == 200


def _service_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip() and not line.startswith(_UP_OWN)]


def test_every_line_of_every_service_is_json_when_the_output_is_piped(database_url: str, nats_url: str) -> None:
    env, http = _env(database_url, nats_url)
    proc = subprocess.Popen(
        [sys.executable, "-m", "okeytools.cli", "up", "--for-seconds", "600"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            if line.startswith("ready."):
                break
        assert seen and seen[-1].startswith("ready."), "".join(seen)
        _poke(http)
        time.sleep(0.5)  # nothing waits on these lines; they are written as the requests end
    finally:
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=60)
    output = "".join(seen) + rest
    lines = _service_lines(output)
    records: list[dict[str, Any]] = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            pytest.fail(f"a line that is not JSON in piped output: {line!r}\n\n{output}")
    assert all(isinstance(r, dict) and "event" in r and "level" in r and "timestamp" in r for r in records), output
    assert {r.get("service") for r in records} >= set(ALL_SERVICES), output  # every service wrote
    access = [r for r in records if r["event"] == "access" and r.get("path") == "/api"]
    assert access and access[0]["service"] == "gateway", output
    assert any(r.get("logger", "").startswith("uvicorn") for r in records), output  # uvicorn's own line


def test_every_line_of_every_service_is_console_text_on_a_terminal(database_url: str, nats_url: str) -> None:
    env, http = _env(database_url, nats_url)
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "okeytools.cli", "up", "--for-seconds", "600"],
        env=env,
        stdin=child,
        stdout=child,
        stderr=child,
        start_new_session=True,
    )
    os.close(child)
    buf = b""

    def read_for(seconds: float, until: bytes | None = None) -> None:
        nonlocal buf
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (until and until in buf):
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the other end closed
                    return
                if not chunk:
                    return
                buf += chunk

    try:
        read_for(120, b"ready.")
        assert b"ready." in buf, buf.decode(errors="replace")
        _poke(http)
        read_for(1.0)
    finally:
        proc.send_signal(signal.SIGINT)
        read_for(60, b"okey up: stopped")
        proc.wait(timeout=60)
        os.close(main)
    output = buf.decode(errors="replace").replace("\r\n", "\n")
    lines = _service_lines(output)
    assert any("access" in line and "/api" in line for line in lines), output
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            continue
        pytest.fail(f"a JSON line on a terminal: {line!r}\n\n{output}")


def _run(code: str, tty: bool = False, env: dict[str, str] | None = None) -> str:
    """``code`` in a fresh interpreter after ``configure_logging("svc")``: what it wrote to stderr."""
    script = "from okeyplatform.logs import configure_logging\nconfigure_logging('svc')\n" + textwrap.dedent(code)
    environ = {k: v for k, v in os.environ.items() if k not in ("OKEY_LOG_FORMAT", "OKEY_LOG_LEVEL")}
    environ |= env or {}
    if not tty:
        got = subprocess.run([sys.executable, "-c", script], env=environ, capture_output=True, text=True, timeout=60)
        return got.stderr
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", script], env=environ, stdout=child, stderr=child)
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(main)
    return out.decode(errors="replace").replace("\r\n", "\n")


# Every way a line reaches standard error in a service process: a logger bound before logging
# was configured (the gateway's access logger is one, made at import), a structlog line, the
# standard logging module (uvicorn, asyncio, grpc), a warning, an uncaught exception.
_EVERY_KIND = """
    from okeyplatform.logs import get_logger
    import logging, warnings, asyncio
    early = get_logger(component="early")
    early.info("early_line", n=1)
    get_logger(component="late").warning("late_line")
    logging.getLogger("uvicorn.error").warning("Invalid HTTP request received.")
    logging.getLogger("asyncio").error("Task exception was never retrieved")
    warnings.warn("something old", DeprecationWarning, stacklevel=1)
    raise RuntimeError("boom")
"""


def test_every_kind_of_line_is_json_when_stderr_is_not_a_terminal() -> None:
    got = _run(_EVERY_KIND, env={"PYTHONWARNINGS": "default"})
    lines = [line for line in got.splitlines() if line.strip()]
    records = []
    for line in lines:
        try:
            records.append(json.loads(line))
        except ValueError:
            pytest.fail(f"not JSON: {line!r}\n\n{got}")
    events = [r["event"] for r in records]
    assert events[:2] == ["early_line", "late_line"], got
    assert "Invalid HTTP request received." in events and "Task exception was never retrieved" in events, got
    assert any("something old" in e for e in events), got
    crash = records[-1]
    assert crash["level"] == "critical" and "boom" in crash.get("exception", ""), got
    assert all(r.get("service") == "svc" for r in records), got


def test_every_kind_of_line_is_console_text_on_a_terminal() -> None:
    got = _run(_EVERY_KIND, tty=True, env={"PYTHONWARNINGS": "default"})
    assert "early_line" in got and "Invalid HTTP request received." in got and "boom" in got, got
    for line in got.splitlines():
        try:
            json.loads(line)
        except ValueError:
            continue
        if line.strip().startswith("{"):
            pytest.fail(f"JSON on a terminal: {line!r}\n\n{got}")


@pytest.mark.parametrize(("setting", "tty", "want_json"), [("json", True, True), ("console", False, False)])
def test_okey_log_format_overrides_the_terminal_rule(setting: str, tty: bool, want_json: bool) -> None:
    got = _run(
        'logging_ = __import__("logging"); logging_.getLogger("uvicorn.error").warning("x_line")\n'
        'from okeyplatform.logs import get_logger\nget_logger().info("y_line")\n',
        tty=tty,
        env={"OKEY_LOG_FORMAT": setting},
    )
    lines = [line for line in got.splitlines() if "_line" in line]
    assert len(lines) == 2, got
    for line in lines:
        is_json = line.startswith("{") and isinstance(json.loads(line), dict)
        assert is_json == want_json, got


def test_the_rule_is_in_one_place() -> None:
    from okeyplatform.logs import json_logs

    class Stream:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    assert json_logs(Stream(False), {}) is True
    assert json_logs(Stream(True), {}) is False
    assert json_logs(Stream(True), {"OKEY_LOG_FORMAT": "json"}) is True
    assert json_logs(Stream(False), {"OKEY_LOG_FORMAT": "console"}) is False
