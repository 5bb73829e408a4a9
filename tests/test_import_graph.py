"""The layers stand in the imports: okeycore imports nothing of ours, the runtime (okeyplatform)
never reaches up to the services or the tools, the services never reach the tools, and no two
modules import each other, directly or round a longer loop.

The imports are read with ``ast`` (nothing is executed), all of them: at the top of a module,
inside functions and under ``TYPE_CHECKING`` alike, since an import deferred into a function is
still a dependency (the cycles this test was written against were deferred ones).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Where each top-level package of ours lives (pyproject's package-dir).
PACKAGES = {
    "okeycore": ROOT / "libs" / "okeycore",
    "okeyplatform": ROOT / "libs" / "okeyplatform",
    "okeytools": ROOT / "tools",
    "okey": ROOT / "libs" / "okeyproto" / "okey",
    "okeybench": ROOT / "bench",
    "services": ROOT / "services",
}

# importer's package -> packages of ours it must never import
FORBIDDEN = {
    "okeycore": {"okeyplatform", "okeytools", "okey", "okeybench", "services"},
    "okeyplatform": {"okeytools", "okeybench", "services"},
    "services": {"okeytools", "okeybench"},
}


def modules(packages: Mapping[str, Path]) -> dict[str, Path]:
    """Every module of ours by dotted name (a package by its ``__init__``)."""
    found: dict[str, Path] = {}
    for top, root in packages.items():
        for path in sorted(root.rglob("*.py")):
            parts = [top, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported_names(name: str, path: Path) -> Iterable[str]:
    """The dotted names ``name`` imports, relative imports made absolute; ``from a import b``
    yields ``a.b`` (b may be a module or a name defined in a) and the caller keeps what it knows."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield from (f"{module}.{alias.name}" for alias in node.names)


def import_graph(packages: Mapping[str, Path] = PACKAGES) -> dict[str, set[str]]:
    """module -> the modules of ours it imports (the most specific one each import names)."""
    known = modules(packages)
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        targets: set[str] = set()
        for imported in _imported_names(name, path):
            # `from a import b`: a.b when b is a module, else a (the module that defines b). The
            # parent packages every import runs first are left out: they are nobody's choice.
            while imported and imported not in known:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def forbidden_imports(graph: Mapping[str, set[str]]) -> list[str]:
    found = []
    for importer, targets in sorted(graph.items()):
        banned = FORBIDDEN.get(importer.split(".")[0], set())
        found += [f"{importer} imports {t}" for t in sorted(targets) if t.split(".")[0] in banned]
    return found


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_layer_imports_upwards() -> None:
    """okeycore imports nothing of ours; okeyplatform neither services nor tools; services no tools."""
    assert forbidden_imports(import_graph()) == []


def test_no_import_cycles_between_modules() -> None:
    assert cycles(import_graph()) == []


def test_the_graph_sees_the_runtime_the_services_and_the_tools() -> None:
    graph = import_graph()
    assert "okeyplatform.eventstore" in graph["okeytools.export"]
    assert "okeytools.embedded.infra" in graph["okeytools.embedded"]  # relative, from a package
    assert "okeyplatform.host" in graph["services.table.main"]


# -- the checker itself, on a small tree of made-up modules -------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    def write(rel: str, text: str) -> None:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    for pkg in ("okeycore", "okeyplatform", "okeytools", "services", "services/lobby"):
        write(f"{pkg}/__init__.py", "")
    write("okeycore/rules.py", "from okeyplatform.logs import log\n")
    write("okeyplatform/logs.py", "def f():\n    from services.lobby import app\n")
    write("okeyplatform/a.py", "from . import b\n")
    write("okeyplatform/b.py", "def f():\n    from .a import x\n")
    write("services/lobby/app.py", "from okeytools import cli\nfrom ..lobby import store\n")
    write("services/lobby/store.py", "import okeycore.rules\n")
    write("okeytools/cli.py", "import services.lobby.app\n")
    return {p: tmp_path / p for p in ("okeycore", "okeyplatform", "okeytools", "services")}


def test_the_checker_finds_upward_imports_even_inside_functions(tree: dict[str, Path]) -> None:
    assert forbidden_imports(import_graph(tree)) == [
        "okeycore.rules imports okeyplatform.logs",
        "okeyplatform.logs imports services.lobby.app",
        "services.lobby.app imports okeytools.cli",
    ]


def test_the_checker_finds_cycles_direct_and_round_a_loop(tree: dict[str, Path]) -> None:
    graph = import_graph(tree)
    assert graph["services.lobby.app"] == {"okeytools.cli", "services.lobby.store"}
    assert sorted(cycles(graph)) == [
        ["okeycore.rules", "okeyplatform.logs", "okeytools.cli", "services.lobby.app", "services.lobby.store"],
        ["okeyplatform.a", "okeyplatform.b"],
    ]
