"""A consumer is one kind of thing, in one shape (STYLE.md): okeyplatform.consumer alone decodes
the table events, keeps the applied-version record, parks what cannot be applied and fills gaps
from the log; a service hands over a ConsumerSpec (``apply(unit_of_work, envelope)``) and
nothing of that loop. Read from the source, so a second decoder, record or parking table cannot
come back unnoticed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLATFORM_CONSUMER = "libs/okeyplatform/consumer"
# The production code: a bench or a test may read the stream to measure or check it.
SOURCES = sorted(p for d in ("libs", "services", "tools") for p in (ROOT / d).rglob("*.py") if ".venv" not in p.parts)

# What only the platform's consumer module may touch: the decoder, the outcomes of its loop.
PLATFORM_ONLY = {"decode_envelope", "BatchResult", "APPLIED", "DUPLICATE", "HELD", "PARKED", "RETRY"}
# Its engine and appliers, which a service composes through a ConsumerSpec and never extends.
ENGINE = {"TableEventConsumer", "VersionedApplier", "ConcurrentApplier"}
# The carry-over of scoring's own record into the consumers' (a migration, kept for kept installs).
CARRY_OVER = {"services/scoring/store.py"}


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def _in_platform_consumer(rel: str) -> bool:
    return rel.startswith(f"{PLATFORM_CONSUMER}/")


def _names_used(tree: ast.AST) -> set[str]:
    """What a module takes of okeyplatform's (imported from it, or reached as an attribute)."""
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("okeyplatform"):
            used |= {a.name for a in node.names}
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.Name) and node.id == "decode_envelope":
            used.add(node.id)
    return used


def test_only_okeyplatform_decodes_table_events_and_runs_the_consumer_loop() -> None:
    offenders = {}
    for p in SOURCES:
        rel = _rel(p)
        if _in_platform_consumer(rel) or rel == "libs/okeyplatform/contract.py":
            continue
        got = _names_used(ast.parse(p.read_text(encoding="utf-8"))) & PLATFORM_ONLY
        if got:
            offenders[rel] = sorted(got)
    assert offenders == {}, f"only {PLATFORM_CONSUMER} decodes envelopes and decides outcomes: {offenders}"


def test_a_service_hands_over_a_spec_and_extends_no_part_of_the_engine() -> None:
    for p in SOURCES:
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                bases |= {
                    b.value.id for b in node.bases if isinstance(b, ast.Subscript) and isinstance(b.value, ast.Name)
                }
                assert not bases & ENGINE, f"{_rel(p)}: {node.name} extends {bases & ENGINE}; declare a ConsumerSpec"
    consumers = sorted((ROOT / "services").glob("*/consumer.py"))
    assert [c.parent.name for c in consumers] == ["bots", "lobby", "scoring"]
    for c in consumers:
        assert "ConsumerSpec(" in c.read_text(encoding="utf-8"), f"{_rel(c)} declares no ConsumerSpec"


def _sql_tables(pattern: str) -> dict[str, set[str]]:
    """Tables created (``CREATE TABLE``) and dropped (``DROP TABLE``) in the code's SQL."""
    created: set[str] = set()
    dropped: set[str] = set()
    for p in SOURCES:
        text = p.read_text(encoding="utf-8")
        for m in re.finditer(r"CREATE TABLE (?:IF NOT EXISTS )?(?:\{p\})?([a-z_]+)", text):
            if re.search(pattern, m.group(1)):
                created.add(m.group(1))
        for m in re.finditer(r"DROP TABLE (?:IF EXISTS )?([a-z_]+)", text):
            dropped.add(m.group(1))
    return {"created": created, "kept": created - dropped}


def test_one_applied_version_record_and_one_parking_table_in_the_tree() -> None:
    assert _sql_tables(r"version")["kept"] == {"okey_consumer_versions"}
    assert _sql_tables(r"parked")["kept"] == {"okey_consumer_parked"}
    # Only the platform writes them (and the migration that carried scoring's record over).
    for p in SOURCES:
        rel = _rel(p)
        text = p.read_text(encoding="utf-8")
        if re.search(r"(INSERT INTO|UPDATE|DELETE FROM) okey_consumer_(versions|parked)", text):
            assert _in_platform_consumer(rel) or rel in CARRY_OVER, f"{rel} writes the consumers' record"


def test_inside_the_package_each_job_has_one_module() -> None:
    """One decoder, one writer of the record, one of the parking table, one schema: a second copy
    inside okeyplatform.consumer is as much a fork as one in a service."""
    package = sorted((ROOT / PLATFORM_CONSUMER).glob("*.py"))
    owners: dict[str, set[str]] = {"decode_envelope(": set(), "versions": set(), "parked": set(), "CREATE TABLE": set()}
    for p in package:
        text = p.read_text(encoding="utf-8")
        if "decode_envelope(" in text:
            owners["decode_envelope("].add(p.name)
        for table in ("versions", "parked"):
            if re.search(rf"(INSERT INTO|UPDATE|DELETE FROM) okey_consumer_{table}", text):
                owners[table].add(p.name)
        if "CREATE TABLE" in text:
            owners["CREATE TABLE"].add(p.name)
        assert len(text.splitlines()) <= 600, f"{_rel(p)}: a module of one job stays under 600 lines"
    assert owners == {
        "decode_envelope(": {"decoding.py"},
        "versions": {"versions.py"},
        "parked": {"parking.py"},
        "CREATE TABLE": {"schema.py"},
    }
