"""The programs some tests need beyond the Python packages: Debian's Chromium and Playwright
(the browser tests), npm's axe-core (the accessibility test), npm's buf (the protos' lint and
breaking check, and buf curl), npm's connect-es toolchain (protoc-gen-es, connect-node and
TypeScript: the generated-client test), Debian's prometheus package (``promtool`` and ``prometheus``: alert rules,
manifests, a live scrape).

Installed once, up front, never inside a test: tests/conftest.py calls :func:`ensure_for` after
collection with the tools of the tests collected (a test module needs a tool when it holds one
of the lookups below, :func:`chromium`, :func:`playwright`, :func:`axe_script`,
:func:`buf_tool`, :func:`connect_es`, :func:`prometheus_tool`, imported or re-exported). What
is missing is installed (apt-get as root, npm into a cache directory, pip into this
interpreter) within ``OKEY_TOOLS_TIMEOUT_S`` seconds in all (default 600); what still is
missing stops the run with one line naming what to install. The lookups themselves only look
(and fail the test with that line)."""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from okeytools.protogen import BUF_PACKAGE, TOOLS, buf_path

__all__ = [
    "axe_script",
    "buf_tool",
    "chromium",
    "connect_es",
    "ensure_for",
    "needed_by",
    "playwright",
    "prometheus_tool",
]

AXE_PACKAGE = "axe-core@4"
PLAYWRIGHT_PACKAGE = "playwright>=1.45"
# What a TypeScript team installs to call the gateway with a generated client (docs/api.md).
CONNECT_ES_PACKAGES = (
    "@bufbuild/protoc-gen-es@2",
    "@bufbuild/protobuf@2",
    "@connectrpc/connect@2",
    "@connectrpc/connect-node@2",
    "typescript@5",
    "@types/node@20",
)  # also in the `dev` extra of pyproject.toml


def _executable(*candidates: str) -> str | None:
    for name in candidates:
        found = shutil.which(name) or (f"/usr/bin/{name}" if os.access(f"/usr/bin/{name}", os.X_OK) else None)
        if found:
            return found
    return None


def _axe_path() -> Path:
    cache = Path(os.environ.get("OKEY_NPM_CACHE", Path.home() / ".cache" / "okey-test-npm"))
    return cache / "node_modules" / "axe-core" / "axe.min.js"


def _connect_es_path() -> Path:
    cache = Path(os.environ.get("OKEY_NPM_CACHE", Path.home() / ".cache" / "okey-test-npm"))
    return cache / "connect-es"


def _has_connect_es() -> bool:
    bins = _connect_es_path() / "node_modules" / ".bin"
    return (bins / "protoc-gen-es").exists() and (bins / "tsc").exists() and shutil.which("node") is not None


def _has_playwright() -> bool:
    importlib.invalidate_caches()
    try:
        importlib.import_module("playwright.async_api")
    except ImportError:
        return False
    return True


# name -> (is it here, what to install: one line)
_PRESENT: dict[str, Callable[[], bool]] = {
    "chromium": lambda: _executable("chromium", "chromium-browser") is not None,
    "playwright": _has_playwright,
    "axe-core": lambda: _axe_path().exists(),
    "buf": lambda: buf_path() is not None,
    "connect-es": _has_connect_es,
    "prometheus": lambda: _executable("promtool") is not None and _executable("prometheus") is not None,
}
_HOW = {
    "chromium": "apt-get install -y chromium (as root), or a chromium executable on PATH",
    "playwright": f"pip install '{PLAYWRIGHT_PACKAGE}' (it is in the dev extra: pip install -e '.[dev]')",
    "axe-core": f"npm install --prefix {_axe_path().parents[2]} {AXE_PACKAGE} (npm: apt-get install -y npm)",
    "buf": f"npm install --prefix {TOOLS} {BUF_PACKAGE} (npm: apt-get install -y npm), or buf on PATH",
    "connect-es": f"npm install --prefix {_connect_es_path()} {' '.join(CONNECT_ES_PACKAGES)} (node and npm: "
    "apt-get install -y nodejs npm)",
    "prometheus": "apt-get install -y prometheus (as root), for promtool and prometheus",
}
_APT = {"chromium": "chromium", "prometheus": "prometheus"}


def _missing_line(name: str) -> str:
    return f"{name} is missing: {_HOW[name]}"


# ------------------------------------------------------------------ the lookups tests call


def chromium() -> str:
    """The path of Debian's chromium."""
    found = _executable("chromium", "chromium-browser")
    if found is None:
        pytest.fail(_missing_line("chromium"), pytrace=False)
    return found


def playwright() -> Any:
    """Playwright's ``async_playwright``."""
    if not _has_playwright():
        pytest.fail(_missing_line("playwright"), pytrace=False)
    from playwright.async_api import async_playwright

    return async_playwright


def axe_script() -> Path:
    """axe.min.js of npm's axe-core."""
    if not _axe_path().exists():
        pytest.fail(_missing_line("axe-core"), pytrace=False)
    return _axe_path()


def buf_tool() -> str:
    """The path of the buf CLI (on PATH, or npm's @bufbuild/buf in the repository's .tools/)."""
    found = buf_path()
    if found is None:
        pytest.fail(_missing_line("buf"), pytrace=False)
    return found


def connect_es() -> Path:
    """The folder whose node_modules holds protoc-gen-es, connect-node and TypeScript."""
    if not _has_connect_es():
        pytest.fail(_missing_line("connect-es"), pytrace=False)
    return _connect_es_path()


def prometheus_tool(name: str) -> str:
    """The path of ``promtool`` or ``prometheus``."""
    assert name in ("promtool", "prometheus"), name
    found = _executable(name)
    if found is None:
        pytest.fail(_missing_line("prometheus"), pytrace=False)
    return found


_LOOKUPS: dict[Callable[..., Any], tuple[str, ...]] = {
    chromium: ("chromium",),
    playwright: ("playwright",),
    axe_script: ("axe-core",),
    buf_tool: ("buf",),
    connect_es: ("connect-es",),
    prometheus_tool: ("prometheus",),
}


# ------------------------------------------------------------------ the session's setup


def needed_by(modules: Iterable[ModuleType]) -> set[str]:
    """The tools the given test modules need: those whose lookups they hold, or the test
    helpers' modules they import from hold (``open_signin_page`` brings test_browser's)."""
    seen: dict[str, ModuleType] = {}
    for module in modules:
        seen[module.__name__] = module
        for value in vars(module).values():
            home = sys.modules.get(getattr(value, "__module__", "") or "")
            helper = home is not None and home.__name__ != __name__  # a lookup itself names only its tool
            if helper and callable(value) and str(getattr(home, "__file__", "")).startswith(_TESTS):
                seen.setdefault(home.__name__, home)
    names: set[str] = set()
    for module in seen.values():
        for value in vars(module).values():
            if callable(value) and isinstance(value, Hashable) and value in _LOOKUPS:  # not pytestmark
                names.update(_LOOKUPS[value])
    return names


_TESTS = str(Path(__file__).resolve().parent)


def _run(cmd: list[str], deadline: float) -> None:
    left = deadline - time.monotonic()
    if left <= 0:
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        subprocess.run(cmd, env=env, capture_output=True, timeout=left, check=False)
    except subprocess.TimeoutExpired:
        pass


@contextlib.contextmanager
def _one_installer_at_a_time() -> Iterator[None]:
    """Held while installing: the suite's workers (pytest-xdist) each collect and call
    :func:`ensure_for`; the first installs, the others wait and then find the tools there."""
    with (Path(tempfile.gettempdir()) / "okey-tools-setup.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def ensure_for(names: Iterable[str], timeout_s: float | None = None) -> list[str]:
    """Install what of ``names`` is missing, within ``timeout_s`` in all; the one-line messages
    of what still is missing (empty: everything is here). One process installs at a time."""
    budget = timeout_s if timeout_s is not None else float(os.environ.get("OKEY_TOOLS_TIMEOUT_S", "600"))
    deadline = time.monotonic() + budget
    names = list(names)
    if all(_PRESENT[n]() for n in names):
        return []
    with _one_installer_at_a_time():
        return _install(sorted(n for n in names if not _PRESENT[n]()), budget, deadline)


def _install(missing: list[str], budget: float, deadline: float) -> list[str]:
    if not missing:  # another worker installed them while this one waited
        return []
    apt = [_APT[n] for n in missing if n in _APT]
    if {"axe-core", "buf", "connect-es"} & set(missing) and shutil.which("npm") is None:
        apt.append("npm")
    if apt and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        _run(["apt-get", "update", "-qq"], deadline)
        _run(["apt-get", "install", "-y", "-qq", *apt], deadline)
    npm = shutil.which("npm")
    if "axe-core" in missing and npm:
        _axe_path().parents[2].mkdir(parents=True, exist_ok=True)
        _run(
            [npm, "install", "--prefix", str(_axe_path().parents[2]), "--no-audit", "--no-fund", AXE_PACKAGE], deadline
        )
    if "buf" in missing and npm:
        TOOLS.mkdir(exist_ok=True)
        _run([npm, "install", "--prefix", str(TOOLS), "--no-audit", "--no-fund", BUF_PACKAGE], deadline)
    if "connect-es" in missing and npm:
        _connect_es_path().mkdir(parents=True, exist_ok=True)
        _run(
            [npm, "install", "--prefix", str(_connect_es_path()), "--no-audit", "--no-fund", *CONNECT_ES_PACKAGES],
            deadline,
        )
    if "playwright" in missing:
        _run([sys.executable, "-m", "pip", "install", "-q", PLAYWRIGHT_PACKAGE], deadline)
    still = [n for n in missing if not _PRESENT[n]()]
    late = f" (the {budget:.0f} s of OKEY_TOOLS_TIMEOUT_S ran out)" if time.monotonic() >= deadline else ""
    return [_missing_line(n) + late for n in still]
