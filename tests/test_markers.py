"""Issue 42.7: every test is of exactly one kind (``unit``, ``integration``, ``e2e``, ``tools``,
``browser``), set at collection by tests/conftest.py from the fixtures it uses and its table of
the tests that start processes themselves; ``pytest -m unit`` is the inner loop, so a ``unit``
test touches no server, starts no process and opens no browser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A plugin for the collecting pytest: what _dump reads from its session (test_markers is imported
# by then, as a module of the suite it collected).
DUMP = """
import json, os
from pathlib import Path

def pytest_collection_finish(session):
    from test_markers import _dump
    Path(os.environ["OKEY_MARKERS_OUT"]).write_text(json.dumps(_dump(session)))
"""


def _dump(session: pytest.Session) -> dict[str, Any]:
    """What the DUMP plugin writes, from a session that collected the suite."""
    conftest = next(
        p
        for p in session.config.pluginmanager.get_plugins()
        if str(getattr(p, "__file__", "")).endswith(os.path.join("tests", "conftest.py"))
    )
    kinds = conftest.KINDS
    return {
        "kinds": list(kinds),
        "fixtures": {k: sorted(v) for k, v in conftest.KIND_FIXTURES.items()},
        "patterns": list(conftest.PROCESS_TESTS),
        "tests": {
            item.nodeid: {
                "kinds": [m.name for m in item.iter_markers() if m.name in kinds],
                "fixtures": sorted(conftest._fixtures_of(item)),
            }
            for item in session.items
        },
    }


@pytest.fixture(scope="module")
def collected(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The whole suite as a collecting pytest sees it, whatever subset this run selected. A run of
    the whole suite (the README's command: no paths, no -k, no -m) has collected it already, on
    every xdist worker: its own collection is read. Any other run collects it again, in one
    process."""
    config = request.config
    whole = (
        config.args_source is pytest.Config.ArgsSource.TESTPATHS
        and not config.option.keyword
        and not config.option.markexpr
        and not config.getoption("deselect", None)
        and not config.getoption("lf", False)
    )
    if whole:
        return _dump(request.session)
    where = tmp_path_factory.mktemp("markers")
    (where / "okey_markers_dump.py").write_text(DUMP, encoding="utf-8")
    out = where / "collected.json"
    env = {**os.environ, "PYTHONPATH": str(where), "OKEY_MARKERS_OUT": str(out)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-n",
            "0",
            "-p",
            "no:cacheprovider",
            "-p",
            "okey_markers_dump",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def test_every_test_has_exactly_one_kind_and_a_unit_test_uses_no_server_fixture(collected: dict[str, Any]) -> None:
    tests = collected["tests"]
    assert len(tests) > 1000, len(tests)
    not_one = {nodeid: t["kinds"] for nodeid, t in tests.items() if len(t["kinds"]) != 1}
    assert not not_one, f"tests without exactly one kind: {dict(list(not_one.items())[:10])}"
    servers = {name for kind, names in collected["fixtures"].items() if kind != "unit" for name in names}
    assert {"database_url", "nats_url", "make_stack", "make_module_stack", "browser"} <= servers
    unit_with_servers = {
        nodeid: sorted(set(t["fixtures"]) & servers) for nodeid, t in tests.items() if t["kinds"] == ["unit"]
    }
    unit_with_servers = {nodeid: names for nodeid, names in unit_with_servers.items() if names}
    assert not unit_with_servers, unit_with_servers
    counts = {kind: sum(t["kinds"] == [kind] for t in tests.values()) for kind in collected["kinds"]}
    assert all(counts.values()), counts  # each kind has its tests: none is a name for nothing


def test_every_pattern_of_the_process_table_still_names_a_test(collected: dict[str, Any]) -> None:
    from fnmatch import fnmatchcase

    stale = [p for p in collected["patterns"] if not any(fnmatchcase(nodeid, p) for nodeid in collected["tests"])]
    assert not stale, f"PROCESS_TESTS patterns that match no test (renamed or removed?): {stale}"


def test_the_kinds_are_the_markers_pyproject_registers(request: pytest.FixtureRequest) -> None:
    conftest = _conftest(request)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    registered = [line.split(":", 1)[0] for line in config["markers"]]
    assert registered == list(conftest.KINDS)
    assert "--strict-markers" in config["addopts"]


def test_a_unit_test_that_starts_a_process_fails_saying_where_to_list_it(request: pytest.FixtureRequest) -> None:
    conftest = _conftest(request)
    before = subprocess._fork_exec  # type: ignore[attr-defined]  # (this test is unit: refused already)
    unit = SimpleNamespace(nodeid="tests/x.py::test_y", get_closest_marker=lambda name: name == "unit" or None)
    with conftest._no_processes(unit), pytest.raises(AssertionError, match=r"PROCESS_TESTS in tests/conftest\.py"):
        subprocess.run([sys.executable, "-c", "pass"], check=False)
    assert subprocess._fork_exec is before  # type: ignore[attr-defined]  # put back
    other = SimpleNamespace(nodeid="tests/x.py::test_z", get_closest_marker=lambda name: None)
    with conftest._no_processes(other):
        assert subprocess._fork_exec is before  # type: ignore[attr-defined]  # left alone


def _conftest(request: pytest.FixtureRequest) -> ModuleType:
    found = [
        p
        for p in request.config.pluginmanager.get_plugins()
        if isinstance(p, ModuleType) and Path(str(getattr(p, "__file__", ""))) == ROOT / "tests" / "conftest.py"
    ]
    assert len(found) == 1, found
    return found[0]


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def test_every_readme_subset_selects_some_tests_and_the_readmes_counts_are_true(collected: dict[str, Any]) -> None:
    """Each `pytest -m ...` subset the README names (quoted or one word: the inner loop's `-m unit`)
    selects at least one test and fewer than the whole, and the counts the README gives (the whole
    suite, the inner loop's share) are within a tenth of what is collected: the README's
    expressions evaluated over each test's kind as pytest evaluates them (41.7)."""
    import re

    from _pytest.mark.expression import Expression

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    subsets = {q or w for q, w in re.findall(r'pytest -m (?:"([^"]+)"|(\w+))', text)}
    assert "unit" in subsets, "the README names the inner loop (pytest -m unit)"
    items = [set(t["kinds"]) for t in collected["tests"].values()]
    whole = len(items)
    chosen = {}
    for expression in subsets:
        compiled = Expression.compile(expression)
        chosen[expression] = sum(compiled.evaluate(lambda name, m=kinds, **_: name in m) for kinds in items)
        assert 0 < chosen[expression] < whole, f"-m {expression!r} selects {chosen[expression]} of {whole} tests"

    def near(said: int, counted: int, what: str) -> None:
        assert abs(said - counted) <= counted / 10, f"the README says {said:,} {what}; {counted:,} are collected"

    total = re.search(r"\(([\d,]+) tests on", text)
    assert total, "the README says how many tests the suite has"
    near(_number(total[1]), whole, "tests in the suite")
    share = re.search(r"pytest -m unit`:[^(]*\(about ([\d,]+) of ([\d,]+)", text)
    assert share, "the README says how many tests the inner loop runs"
    near(_number(share[1]), chosen["unit"], "tests in pytest -m unit")
    near(_number(share[2]), whole, "tests in the suite")
