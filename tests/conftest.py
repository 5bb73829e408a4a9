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
  free ports, health-checked) on the session's servers (a fresh database per stack unless
  ``database_url`` is given) and returns the started :class:`Stack` (``start=False``: wired but
  not started, for a test that starts them one by one; ``private_nats=True``: on an embedded NATS
  of its own, with the production durable names; on the session's NATS each stack's consumers
  get durables of their own, deleted at its end with its tables' subjects); each service's output goes
  to ``<tmp>/<label>/<name>.log``; everything is stopped (and the fresh database dropped) at the
  end of the test, or of the module for ``make_module_stack`` (share a stack across a module's
  tests where they allow it, with unique table ids: a process costs 1-2 s to start).

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

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
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
def make_stack(database_url: str, nats_url: str, tmp_path: Path) -> Iterator[StackFactory]:
    """Stacks for one test (logs under its tmp_path), stopped at its end."""
    with stack_factory(database_url, nats_url, tmp_path / "services") as make:
        yield make


@pytest.fixture(scope="module")
def make_module_stack(
    database_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[StackFactory]:
    """Stacks shared by a module's tests, stopped after its last one."""
    logs = tmp_path_factory.mktemp(f"{request.module.__name__.rsplit('.', 1)[-1]}-services")
    with stack_factory(database_url, nats_url, logs) as make:
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


# ------------------------------------------------------------------ slow tests and warnings

SLOW_FIXTURES = frozenset({"make_stack", "make_module_stack", "browser", "compiled_site"})
"""A test that uses one of these (directly or through another fixture) starts services as
processes (1-2 s each), a browser or a mypyc build of okeycore: it is ``slow``. So are the
resilience tests (one whole stack on private servers, tests/resilience/conftest.py), and tests
that start ``okey up`` by hand say it themselves (``pytest.mark.slow``). ``-m "not slow"`` is
the rest: the README's quick loop."""


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    resilience = Path(__file__).resolve().parent / "resilience"
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())) or item.path.is_relative_to(resilience):
            item.add_marker(pytest.mark.slow)


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
    names = needed_by(modules)
    if names and not session.config.option.collectonly:
        problems = ensure_for(names)
        if problems:
            raise pytest.UsageError("; ".join(problems))


def pytest_report_header(config: pytest.Config) -> str:
    seed = getattr(config.option, "hypothesis_seed", None)
    if _FUZZ == "explore":
        return f"okey fuzz: explore, seed {seed} (rerun with OKEY_FUZZ=explore --hypothesis-seed={seed})"
    return "okey fuzz: fixed examples (derandomized); OKEY_FUZZ=explore for a random seed"
