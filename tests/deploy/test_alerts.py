"""The alerts, unit-tested: ``promtool test rules`` runs tests/deploy/alerts.test.yaml on the rule
groups of deploy/k8s/base/monitoring/alerts.yaml, written out as a plain rule file (the overlays
deploy those groups unchanged: test_manifests.py). Every alert fires on synthetic series once its
``for:`` has elapsed, with its labels and rendered annotations, and stays quiet on healthy ones."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml
from tools_setup import prometheus_tool

ROOT = Path(__file__).resolve().parents[2]
ALERTS = ROOT / "deploy" / "k8s" / "base" / "monitoring" / "alerts.yaml"
UNIT = Path(__file__).with_name("alerts.test.yaml")


def _groups() -> list[dict[str, Any]]:
    groups: list[dict[str, Any]] = yaml.safe_load(ALERTS.read_text())["spec"]["groups"]
    return groups


def _alerts() -> list[str]:
    return [r["alert"] for g in _groups() for r in g["rules"] if "alert" in r]


def _unit() -> dict[str, Any]:
    unit: dict[str, Any] = yaml.safe_load(UNIT.read_text())
    return unit


def test_promtool_runs_the_unit_tests_on_the_rules_as_written(tmp_path: Path) -> None:
    (rules,) = _unit()["rule_files"]
    (tmp_path / rules).write_text(yaml.safe_dump({"groups": _groups()}, sort_keys=False))
    shutil.copy(UNIT, tmp_path / UNIT.name)
    got = subprocess.run(
        [prometheus_tool("promtool"), "test", "rules", UNIT.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 0, got.stdout + got.stderr
    assert "SUCCESS" in got.stdout, got.stdout


def _eval_seconds(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600}
    return float(text[:-1]) * units[text[-1]]


def test_every_alert_has_a_firing_case_and_a_healthy_case() -> None:
    """A new alert without unit tests fails here; so does a test of an alert that is gone. The
    firing case also looks before the alert's ``for:`` has elapsed, when it must be quiet."""
    alerts = _alerts()
    assert len(alerts) == len(set(alerts)), alerts
    tested: dict[str, set[str]] = {}  # alert -> {"firing", "healthy"}
    for group in _unit()["tests"]:
        cases: dict[str, list[tuple[float, bool]]] = {}
        for case in group.get("alert_rule_test", []):
            cases.setdefault(case["alertname"], []).append((_eval_seconds(case["eval_time"]), bool(case["exp_alerts"])))
        for name, evals in cases.items():
            firing = [t for t, fires in evals if fires]
            if firing:
                assert any(t < min(firing) for t, fires in evals if not fires), (
                    f"{group['name']}: no quiet evaluation before {name} fires"
                )
            tested.setdefault(name, set()).add("firing" if firing else "healthy")
    assert set(tested) <= set(alerts), f"unit tests of alerts not in alerts.yaml: {sorted(set(tested) - set(alerts))}"
    missing = [(n, k) for n in alerts for k in ("firing", "healthy") if k not in tested.get(n, set())]
    assert not missing, f"alerts without a firing or a healthy case in {UNIT.name}: {missing}"


def test_every_firing_case_expects_the_alerts_own_labels() -> None:
    """exp_labels carry the rule's severity and every label its ``by (...)`` keeps, so the test
    reads as what the alert manager receives."""
    severity = {r["alert"]: r["labels"]["severity"] for g in _groups() for r in g["rules"] if "alert" in r}
    for group in _unit()["tests"]:
        for case in group.get("alert_rule_test", []):
            for alert in case["exp_alerts"]:
                assert alert["exp_labels"]["severity"] == severity[case["alertname"]], group["name"]
                assert alert["exp_labels"]["namespace"] == "okey", group["name"]
                assert set(alert["exp_annotations"]) == {"summary", "description", "runbook_url"}, group["name"]
