"""Fixtures shared by all tests: PostgreSQL and NATS JetStream for integration tests.

Servers start lazily, once per session, and only for tests that ask for them:

- ``database_url`` / ``nats_url``: ``OKEY_DATABASE_URL`` / ``OKEY_NATS_URL`` when set, else an
  embedded server (``okeytools.embedded``) started on first use and stopped at session end.
- ``fresh_database_url``: a new database on that server for one test, dropped afterwards, with
  every service's schema already applied (``okey migrate``'s: event store, scoring, lobby, bots):
  a copy (``CREATE DATABASE ... TEMPLATE``) of a template migrated once per session, so a test
  does not pay for the migrations (the services' own migrate at start finds nothing to do);
  ``pg_conn``: an asyncpg connection to it. ``empty_database_url``: a new database with no
  schema at all, for the tests of the migrations themselves.
- ``nats_client`` / ``jetstream``: a nats-py connection and its JetStream context; streams the
  test created are deleted afterwards. Name streams and subjects with ``unique_id`` so tests
  never collide on a shared server.
- ``embedded_postgres`` / ``embedded_nats``: a private embedded server for one test, always
  embedded (whatever the environment says), for tests that stop, kill or restart it.
- ``make_stack`` / ``make_module_stack``: THE way a test runs two or more services. Each call
  ``make_stack(services=("table", "lobby"), env={...}, database_url=..., nats_url=...)`` starts
  those services as processes (``okeytools.stack.Stack``: ``python -m services.<name>.main`` on
  free ports, health-checked) on the session's servers (a fresh database per stack, a copy of
  ``migrated_template``, unless ``database_url`` is given) and returns the started
  :class:`Stack` (``start=False``: wired but not started, for a test that starts them one by
  one; ``private_nats=True``: on an embedded NATS of its own, with the production durable names;
  on the session's NATS each stack's consumers get durables of their own, deleted at its end
  with its tables' subjects); each service's output goes to ``<tmp>/<label>/<name>.log``;
  everything is stopped (and the fresh database dropped) at the end of the test, or of the
  module for ``make_module_stack`` (share a stack across a module's tests where they allow it,
  with unique table ids: a process costs 1-2 s to start).

Every test is marked with exactly one kind at collection (``unit``, ``integration``, ``e2e``,
``tools``, ``browser``: :data:`KINDS`), from the fixtures it uses and :data:`PROCESS_TESTS`;
``pytest -m unit`` is the inner loop (docs/testing.md).

Async tests and fixtures run on pytest-asyncio (``asyncio_mode = "auto"`` in pyproject.toml).

Property tests (hypothesis) run derandomized by default: the same examples on every run, so CI
fails only for a change, never for a new example found by chance. ``OKEY_FUZZ=explore`` is the
other run: ten times the examples and a random seed, printed in the header (``okey fuzz seed``);
rerun a failure with ``--hypothesis-seed=SEED``. Programs some tests need (Chromium, Playwright,
axe-core, prometheus) are installed once after collection, only when such tests are collected
(tests/tools_setup.py), never inside a test. Every test has a time limit (pytest-timeout,
``timeout`` in pyproject.toml): a hang fails that test instead of blocking CI.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import sys
import uuid
from collections.abc import AsyncIterator, Hashable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import CodeType
from typing import Any

import asyncpg
import nats
import pytest
from hypothesis import settings as hypothesis_settings
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext
from okeytools.embedded import EmbeddedNats, EmbeddedPostgres, resolve_nats, resolve_postgres, with_database
from stacks import StackFactory, leave_nats_clean, stack_factory
from tools_setup import ensure_for, needed_by

# A bench run by a test (and every process it starts) must not rewrite docs/benchmarks.md, even
# when the shell that runs pytest has recording on.
os.environ.pop("OKEY_BENCH_RECORD", None)


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """The PostgreSQL server of this session (connect as a superuser; the database is the admin one)."""
    url, server = resolve_postgres()
    try:
        yield url
    finally:
        if server is not None:
            server.close()


@pytest.fixture(scope="session")
def nats_url() -> Iterator[str]:
    """The NATS server (with JetStream) of this session."""
    url, server = resolve_nats()
    try:
        yield url
    finally:
        if server is not None:
            server.close()


@pytest.fixture
def unique_id() -> str:
    """A short id unique to this test, for database, stream and subject names."""
    return uuid.uuid4().hex[:12]


async def _migrate_everything(url: str) -> None:
    """Every schema the services own, in ``okey migrate``'s order (okeytools.up.run_migrate)."""
    from okeyplatform.eventstore import migrate

    from services.bots.consumer import migrate_schema as bots_schema
    from services.lobby.store import migrate_schema as lobby_schema
    from services.scoring.store import migrate_schema as scoring_schema

    conn = await asyncpg.connect(url)
    try:
        await migrate(conn)
        for migrate_schema in (scoring_schema, lobby_schema, bots_schema):
            await migrate_schema(conn)
    finally:
        await conn.close()


async def _admin(database_url: str, sql: str) -> None:
    admin = await asyncpg.connect(database_url)
    try:
        await admin.execute(sql)
    finally:
        await admin.close()


@pytest.fixture(scope="session")
def migrated_template(database_url: str) -> Iterator[str]:
    """The name of a database migrated once for this session: ``fresh_database_url`` copies it.
    Nothing stays connected to it (PostgreSQL copies a template only when no one is), and its name
    is this session's own, so sessions sharing a server (OKEY_DATABASE_URL) never meet on it."""
    import asyncio

    name = f"okey_template_{uuid.uuid4().hex[:16]}"

    async def create() -> None:
        await _admin(database_url, f'CREATE DATABASE "{name}"')
        try:
            await _migrate_everything(with_database(database_url, name))
        except BaseException:
            await _admin(database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            raise

    asyncio.run(create())
    try:
        yield name
    finally:
        asyncio.run(_admin(database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@asynccontextmanager
async def _new_database(database_url: str, request: pytest.FixtureRequest, template: str | None) -> AsyncIterator[str]:
    name = f"okey_test_{uuid.uuid4().hex[:16]}"
    await _admin(database_url, f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    url = with_database(database_url, name)
    try:
        yield url
    finally:
        if "nats_url" in request.fixturenames:
            await leave_nats_clean(request.getfixturevalue("nats_url"), (), (url,))
        await _admin(database_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def fresh_database_url(
    database_url: str, migrated_template: str, request: pytest.FixtureRequest
) -> AsyncIterator[str]:
    """The URL of a new database for this test, every service's schema applied (a copy of
    ``migrated_template``); dropped (connections and all) afterwards. When the test also used the
    session's NATS, the events its tables' relay published there are purged first, so no later
    test's consumer replays them."""
    async with _new_database(database_url, request, migrated_template) as url:
        yield url


@pytest.fixture
async def empty_database_url(database_url: str, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """As ``fresh_database_url``, but a database with no schema at all: for a test of the
    migrations themselves."""
    async with _new_database(database_url, request, None) as url:
        yield url


@pytest.fixture
async def pg_conn(fresh_database_url: str) -> AsyncIterator[asyncpg.Connection]:
    """An asyncpg connection to this test's fresh database."""
    conn = await asyncpg.connect(fresh_database_url)
    try:
        yield conn
    finally:
        await conn.close()


@pytest.fixture
async def nats_client(nats_url: str) -> AsyncIterator[NatsClient]:
    """A nats-py connection to the session's NATS server."""
    client = await nats.connect(nats_url, name="okey-tests", connect_timeout=5, max_reconnect_attempts=5)
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
async def jetstream(nats_client: NatsClient) -> AsyncIterator[JetStreamContext]:
    """The JetStream context of ``nats_client``; streams created during the test are deleted after it."""
    js = nats_client.jetstream()
    before = {info.config.name for info in await js.streams_info()}
    yield js
    if nats_client.is_connected:
        for info in await js.streams_info():
            if info.config.name and info.config.name not in before:
                await js.delete_stream(info.config.name)


@pytest.fixture
def embedded_postgres() -> Iterator[EmbeddedPostgres]:
    """A private, started embedded PostgreSQL for this test (stop/kill/start it at will)."""
    with EmbeddedPostgres() as server:
        yield server


@pytest.fixture
def embedded_nats() -> Iterator[EmbeddedNats]:
    """A private, started embedded NATS for this test (stop/kill/start it at will)."""
    with EmbeddedNats() as server:
        yield server


# ------------------------------------------------------------------ the services as processes


@pytest.fixture
def make_stack(database_url: str, nats_url: str, migrated_template: str, tmp_path: Path) -> Iterator[StackFactory]:
    """Stacks for one test (logs under its tmp_path), stopped at its end."""
    with stack_factory(database_url, nats_url, tmp_path / "services", migrated_template) as make:
        yield make


@pytest.fixture(scope="module")
def make_module_stack(
    database_url: str,
    nats_url: str,
    migrated_template: str,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Iterator[StackFactory]:
    """Stacks shared by a module's tests, stopped after its last one."""
    logs = tmp_path_factory.mktemp(f"{request.module.__name__.rsplit('.', 1)[-1]}-services")
    with stack_factory(database_url, nats_url, logs, migrated_template) as make:
        yield make


@pytest.fixture
def spans() -> Iterator[Any]:
    """Every span the services of this process make, kept in memory (the SDK's exporter)."""
    from okeyplatform import tracing
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.install(provider)
    try:
        yield exporter
    finally:
        tracing.install(None)


hypothesis_settings.register_profile("fixed", derandomize=True)
hypothesis_settings.register_profile("explore", max_examples=1000, derandomize=False)
_FUZZ = os.environ.get("OKEY_FUZZ", "fixed").strip().lower() or "fixed"
if _FUZZ not in ("fixed", "explore"):
    raise pytest.UsageError(f"OKEY_FUZZ={_FUZZ!r}: use fixed (the default) or explore")
hypothesis_settings.load_profile(_FUZZ)


def pytest_configure(config: pytest.Config) -> None:
    _warnings_from_the_tests_are_errors(config)
    if _FUZZ == "explore" and getattr(config.option, "hypothesis_seed", None) is None:
        import secrets

        config.option.hypothesis_seed = secrets.randbelow(2**32)


# ------------------------------------------------------------------ each test's kind, and warnings

KINDS = ("unit", "integration", "e2e", "tools", "browser")
"""The markers a test gets at collection, exactly one each (pyproject.toml registers them; the
README's test section and docs/testing.md say what each means). When a test is more than one
kind, the later in this tuple wins: a whole stack with prometheus is ``tools``, with Chromium
``browser``."""

KIND_FIXTURES = {
    "integration": frozenset(
        {"database_url", "nats_url", "migrated_template", "embedded_postgres", "embedded_nats"}
    ),  # and every fixture built on them: fresh_database_url, pg_conn, jetstream, lobby_store, ...
    "e2e": frozenset({"make_stack", "make_module_stack", "resilience_stack"}),
    "tools": frozenset({"compiled_site", "tools_lookup"}),  # compiled_site: a mypyc build (a C compiler)
    "browser": frozenset({"browser", "browser_lookup"}),
}
"""A test is of the kind of the fixtures it uses, directly or through other fixtures
(``item.fixturenames``); ``resilience_stack`` stands for tests/resilience's session ``stack``,
a whole stack on private servers (:func:`_fixtures_of`); ``tools_lookup`` and
``browser_lookup`` for a program of tests/tools_setup.py that the test, a fixture of its or a
helper they call looks up (Chromium, Playwright and axe-core make it ``browser``; buf,
prometheus and the rest ``tools``: :func:`_tools_looked_up`). A test that uses none of them, and
is not in :data:`PROCESS_TESTS`, is ``unit``."""

PROCESS_TESTS = {
    # okey up, okey demo through the stack, okey bench table: whole stacks of services
    "tests/cli/test_admin.py::test_okey_admin_runs_the_staff_work_and_the_tournaments_against_okey_up": "e2e",
    "tests/cli/test_backup.py::*": "e2e",
    "tests/cli/test_readme_snippets.py::*": "e2e",
    "tests/cli/test_temp_folders.py::*": "e2e",
    "tests/cli/test_cli.py::test_demo_runs_the_stack_*": "e2e",
    "tests/cli/test_cli.py::test_bench_table_*": "e2e",
    "tests/cli/test_demo_lines.py::test_the_server_demo_prints_hands_that_add_up": "e2e",
    "tests/observability/test_log_format.py::test_every_line_of_every_service_*": "e2e",
    # one process of our own (the okey command, a service, python -c) or a server of its own
    "tests/cli/test_admin.py::test_every_admin_subcommand_has_help*": "integration",
    "tests/cli/test_admin.py::test_without_a_token_secret_or_a_lobby_it_says_so_in_one_line": "integration",
    "tests/cli/test_bench_record.py::test_a_bench_with_recording_on_*": "integration",
    "tests/cli/test_bench_record.py::test_48_5_a_bench_refuses_*": "integration",
    "tests/cli/test_cli.py::test_every_subcommand_has_help*": "integration",
    "tests/cli/test_cli.py::test_demo_in_process_*": "integration",
    "tests/cli/test_cli.py::test_demo_rejects_a_bad_option_with_a_hint": "integration",
    "tests/cli/test_cli.py::test_D_9_demo_in_process_*": "integration",
    "tests/cli/test_cli.py::test_solve_answers_each_line_and_survives_bad_ones": "integration",
    "tests/cli/test_cli.py::test_each_benchmark_s_help_lists_only_its_own_options*": "integration",
    "tests/cli/test_cli.py::test_a_restore_of_a_file_that_is_no_backup_*": "integration",
    "tests/cli/test_cli_usage.py::test_okey_demo_bogus_as_a_user_runs_it": "integration",
    "tests/cli/test_demo_lines.py::*": "integration",  # okey demo --in-process
    "tests/cli/test_export_all.py::test_a_database_that_cannot_be_reached_*": "integration",
    "tests/cli/test_tools_apart.py::test_building_the_okey_command_imports_no_service": "integration",
    "tests/cli/test_tools_apart.py::test_okey_serve_without_the_urls_says_which_to_set": "integration",
    "tests/cli/test_top.py::test_okey_top_*": "integration",
    "tests/deploy/test_dockerfile.py::test_the_image_generates_the_protobuf_code_*": "integration",
    "tests/lobby/test_collusion.py::test_okey_review_collusion_has_help": "integration",
    "tests/observability/test_log_format.py::test_every_kind_of_line_*": "integration",
    "tests/observability/test_log_format.py::test_okey_log_format_overrides_the_terminal_rule*": "integration",
    "tests/observability/test_metrics.py::test_table_workers_with_their_metrics_port_taken_*": "integration",
    "tests/observability/test_metrics.py::test_okey_metrics_off_records_and_serves_nothing": "integration",
    "tests/platform/test_embedded.py::*": "integration",  # embedded servers of its own
    "tests/platform/test_eventstore_contract.py::*postgres*": "integration",  # getfixturevalue("database_url")
    "tests/platform/test_service_gc.py::*": "integration",
    "tests/test_markers.py::test_every_*": "integration",  # pytest --collect-only
    # programs that are not the project's Python (installed by tests/tools_setup.py, or the linters)
    "tests/cli/test_bench_record.py::test_write_appends_*": "tools",  # git
    "tests/deploy/test_alerts.py::test_promtool_*": "tools",
    "tests/deploy/test_manifests.py::*[[]*": "tools",  # the overlays [dev] and [prod], rendered by kubectl
    "tests/deploy/test_manifests.py::test_promtool_*": "tools",
    "tests/observability/test_prometheus.py::*": "tools",  # prometheus, scraping a whole stack
    "tests/test_lint.py::*": "tools",  # ruff, mypy
    "tests/test_protos.py::test_buf_*": "tools",
    "tests/test_protos.py::test_the_baseline_catches_a_removed_field": "tools",
}
"""Tests that start processes themselves, or ask for a server while they run
(``request.getfixturevalue``), with the kind they are (fnmatch patterns of node ids; a pattern
raises a test's kind, never lowers it). A ``unit`` test that starts a process fails, saying to
add it here (:func:`pytest_runtest_call`); tests/test_markers.py checks every pattern still
matches a test."""


def _fixtures_of(item: pytest.Item) -> set[str]:
    names = set(getattr(item, "fixturenames", ()))
    if "stack" in names:  # tests/resilience's session stack is a whole stack
        defs = _fixture_defs(item).get("stack", ())
        if defs and Path(defs[-1].func.__code__.co_filename).parent.name == "resilience":
            names.add("resilience_stack")
    return names


def _fixture_defs(item: pytest.Item) -> dict[str, Any]:
    info = getattr(item, "_fixtureinfo", None)
    return dict(info.name2fixturedefs) if info is not None else {}


def _code_names(code: CodeType) -> frozenset[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _code_names(const)
    return frozenset(names)


def _lookup_kinds() -> dict[Any, str]:
    """tests/tools_setup.py's lookups, each with the kind of a test that calls it."""
    import tools_setup

    lookups = {getattr(tools_setup, name) for name in tools_setup.__all__} - {ensure_for, needed_by}
    browser = {tools_setup.chromium, tools_setup.playwright, tools_setup.axe_script}
    return {lookup: "browser" if lookup in browser else "tools" for lookup in lookups}


_LOOKUP_KINDS = _lookup_kinds()
_TESTS = Path(__file__).resolve().parent


def _tools_looked_up(item: pytest.Item) -> set[str]:
    """The kinds (``tools``, ``browser``) of the programs of tests/tools_setup.py that the test
    or one of its fixtures looks up: a lookup (``buf_tool()``, ``chromium()``, ...) its code
    names, or a helper of the tests' that names one (``open_signin_page`` launches Chromium)."""
    functions = [getattr(item, "function", None)]
    functions += [defs[-1].func for defs in _fixture_defs(item).values() if defs]
    kinds: set[str] = set()
    for function in functions:
        kinds |= _kinds_named(function, frozenset())
    return kinds


@functools.cache
def _kinds_named(function: Any, seen: frozenset[Any]) -> frozenset[str]:
    code = getattr(function, "__code__", None)
    if code is None or function in seen:
        return frozenset()
    kinds: set[str] = set()
    found = function.__globals__
    for name in _code_names(code):
        value = found.get(name)
        if not callable(value) or not isinstance(value, Hashable):
            continue
        if value in _LOOKUP_KINDS:
            kinds.add(_LOOKUP_KINDS[value])
        elif str(getattr(getattr(value, "__code__", None), "co_filename", "")).startswith(str(_TESTS)):
            kinds |= _kinds_named(value, seen | {function})  # a helper of the tests'
    return frozenset(kinds)


def kind_of(item: pytest.Item) -> str:
    """The one kind (marker) of ``item``: from its fixtures and the programs it looks up, raised
    by :data:`PROCESS_TESTS`."""
    import fnmatch

    names = _fixtures_of(item)
    names |= {f"{kind}_lookup" for kind in _tools_looked_up(item)}
    rank = 0
    for i, kind in enumerate(KINDS):
        if KIND_FIXTURES.get(kind, frozenset()) & names:
            rank = max(rank, i)
    for pattern, kind in PROCESS_TESTS.items():
        if fnmatch.fnmatchcase(item.nodeid, pattern):
            rank = max(rank, KINDS.index(kind))
    return KINDS[rank]


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each test's kind as its marker; and the modules reordered, heavy first (a module's tests
    keep their order). pytest-xdist's ``--dist loadfile`` hands out modules in collection order,
    each to the next free worker: the long ones (browser, then tools and e2e, alternating so that
    two Chromiums seldom run at once) start early and the short unit modules fill the end,
    instead of a 60 s module starting last on one worker while the others sit idle."""
    heaviest: dict[str, int] = {}
    for item in items:
        kind = kind_of(item)
        item.add_marker(kind)
        module = item.nodeid.split("::", 1)[0]
        heaviest[module] = max(heaviest.get(module, 0), KINDS.index(kind))
    browser, heavy = KINDS.index("browser"), KINDS.index("e2e")
    firsts = [m for m, k in heaviest.items() if k == browser]
    seconds = [m for m, k in heaviest.items() if heavy <= k < browser]
    order = [m for pair in itertools.zip_longest(firsts, seconds) for m in pair if m is not None]
    order += sorted((m for m, k in heaviest.items() if k < heavy), key=lambda m: -heaviest[m])
    place = {m: i for i, m in enumerate(order)}
    items.sort(key=lambda item: place[item.nodeid.split("::", 1)[0]])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    """A ``unit`` test, its fixtures included, runs with starting a process refused: one that
    starts one fails, saying to add it to :data:`PROCESS_TESTS`."""
    with _no_processes(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _no_processes(item):
        return (yield)


@contextlib.contextmanager
def _no_processes(item: pytest.Item) -> Iterator[None]:
    if item.get_closest_marker("unit") is None:
        yield
        return
    import _posixsubprocess
    import subprocess

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(
            f"{item.nodeid} is a unit test and started a process: add it to PROCESS_TESTS in tests/conftest.py "
            "with its kind (integration: a process of ours or a server; e2e: a whole stack; tools: another program)"
        )

    saved = [(subprocess, "_fork_exec"), (_posixsubprocess, "fork_exec"), (os, "fork"), (os, "posix_spawn")]
    saved = [(home, name, getattr(home, name)) for home, name in saved if hasattr(home, name)]
    for home, name, _ in saved:
        setattr(home, name, refuse)
    try:
        yield
    finally:
        for home, name, was in saved:
            setattr(home, name, was)


def _warnings_from_the_tests_are_errors(config: pytest.Config) -> None:
    """pyproject.toml's ``filterwarnings`` makes a warning raised from the project's packages an
    error; the tests' own modules are imported by file name (``test_abuse``, ``stacks``), so
    their names are added here, from the files."""
    names = sorted({path.stem for path in Path(__file__).resolve().parent.rglob("*.py")})
    config.addinivalue_line("filterwarnings", "error:::(" + "|".join(names) + ")$")


def pytest_collection_finish(session: pytest.Session) -> None:
    """The programs the collected tests need (Chromium, Playwright, axe-core, prometheus), once,
    before any test runs: installed when missing, else the run stops with what to install."""
    modules = {item.module for item in session.items if isinstance(item, pytest.Function) and item.module}
    for item in session.items:  # and the modules of the fixtures they use (the browser fixture's conftest)
        info = getattr(item, "_fixtureinfo", None)
        for defs in info.name2fixturedefs.values() if info is not None else ():
            home = sys.modules.get(getattr(defs[-1].func, "__module__", "") or "")
            if home is not None:
                modules.add(home)
    names = needed_by(modules)
    if names and not session.config.option.collectonly:
        problems = ensure_for(names)
        if problems:
            raise pytest.UsageError("; ".join(problems))


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject.toml's addopts): one worker more than the cores, at least two and at
    most four. A serial run spends most of its time waiting on processes it started (services,
    Chromium, the ``okey`` command): on 2 cores three workers took 14 min where two took 19 and one
    31. Each worker starts its own PostgreSQL, NATS and stacks, so more than four costs memory for
    little. PYTEST_XDIST_AUTO_NUM_WORKERS sets the number outright."""
    chosen = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if chosen.isdigit():
        return int(chosen)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(2, min(4, cores + 1))


def pytest_report_header(config: pytest.Config) -> str:
    seed = getattr(config.option, "hypothesis_seed", None)
    if _FUZZ == "explore":
        return f"okey fuzz: explore, seed {seed} (rerun with OKEY_FUZZ=explore --hypothesis-seed={seed})"
    return "okey fuzz: fixed examples (derandomized); OKEY_FUZZ=explore for a random seed"
