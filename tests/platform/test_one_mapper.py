"""One mapper between okeycore and okey.v1 (issue 42.3): ``okeyplatform.contract`` alone builds
field plans from message descriptors, converts tiles and looks enum values up; every other module
of ours (the runtime, the services, the tools, the benchmarks) calls it. Two mappers once kept two
tile tables and four enum lookups, each free to drift from the others.

Read with ``ast`` (nothing runs), like tests/test_import_graph.py."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAPPER = ROOT / "libs" / "okeyplatform" / "contract.py"
OURS = [ROOT / "libs" / "okeyplatform", ROOT / "tools", ROOT / "services", ROOT / "bench"]

PLAN_BUILDING = {"fields_by_name", "get_type_hints"}
"""What building a plan from a descriptor and a dataclass reads."""
ENUM_LOOKUP = {"enum_type", "enum_types_by_name", "values_by_name", "values_by_number"}
"""What looking a proto enum value up by its name (or a field's enum values) reads."""


def _modules() -> Iterator[tuple[Path, ast.AST]]:
    for root in OURS:
        for path in sorted(root.rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _names(tree: ast.AST) -> set[str]:
    """Every attribute and name read in a module."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.Name):
            out.add(node.id)
    return out


def _tile_messages_made(tree: ast.AST) -> bool:
    """Whether the module makes a ``Tile`` message itself (``common_pb2.Tile(...)``)."""
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Tile"
        for node in ast.walk(tree)
    )


def test_only_the_contract_builds_field_plans_from_descriptors() -> None:
    builders = [path.relative_to(ROOT) for path, tree in _modules() if _names(tree) >= PLAN_BUILDING]
    assert builders == [MAPPER.relative_to(ROOT)]


def test_only_the_contract_converts_tiles() -> None:
    tables = [path.relative_to(ROOT) for path, tree in _modules() if _tile_messages_made(tree)]
    assert tables == [MAPPER.relative_to(ROOT)]


def test_only_the_contract_looks_enum_values_up_by_name() -> None:
    lookups = [path.relative_to(ROOT) for path, tree in _modules() if ENUM_LOOKUP & _names(tree)]
    assert lookups == [MAPPER.relative_to(ROOT)]


def test_the_old_mappers_are_gone() -> None:
    package = ROOT / "libs" / "okeyplatform"
    assert not (package / "protoconv.py").exists() and not (package / "optionsconv.py").exists()
