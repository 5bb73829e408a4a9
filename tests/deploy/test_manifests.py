"""The Kubernetes manifests, offline: both overlays render, pass kubernetes-validate --strict,
and every port, probe, command and env var in them matches what the code reads."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from tools_setup import prometheus_tool

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
OVERLAYS = ["dev", "prod"]

# What the code binds by default (services' main modules / README), by container port name.
SERVICE_PORTS = {
    "table": {"grpc": 50061},
    "scoring": {"grpc": 50062},
    "lobby": {"grpc": 50063},
    "bots": {"grpc": 50064},
    "gateway": {"grpc": 50051, "http": 8080},
}


CRD_GROUPS = ("postgresql.cnpg.io", "barmancloud.cnpg.io", "monitoring.coreos.com", "keda.sh")
METRICS_PORT = 9090  # every pod's OKEY_METRICS_ADDR (okey-config), container port "metrics"
AUTOSCALED_ON_LAG = {"bots", "scoring"}  # KEDA ScaledObjects; the others keep their CPU HPA


def kustomize(overlay: str) -> str:
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed to render the manifests (Debian: apt-get install kubernetes-client)"
    got = subprocess.run(
        [kubectl, "kustomize", str(K8S / "overlays" / overlay)], capture_output=True, text=True, timeout=120
    )
    assert got.returncode == 0, got.stderr
    return got.stdout


@pytest.fixture(scope="module", params=OVERLAYS)
def rendered(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, list[dict[str, Any]]]:
    text = kustomize(request.param)
    path = tmp_path_factory.mktemp(request.param) / "all.yaml"
    path.write_text(text)
    docs = [d for d in yaml.safe_load_all(text) if d]
    return request.param, path, docs


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def test_overlay_passes_kubernetes_validate_strict(rendered: tuple[str, Path, list[dict[str, Any]]]) -> None:
    _, path, docs = rendered
    got = subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert got.returncode == 0, got.stdout + got.stderr
    # Only the operators' objects (CRDs: CloudNativePG, prometheus-operator, KEDA) have no schema
    # offline; their required fields are checked by hand below.
    unknown = [line for line in got.stdout.splitlines() if "Couldn't find schema" in line]
    assert all(any(g in line for g in CRD_GROUPS) for line in unknown), unknown
    assert {d["kind"] for d in docs} >= {
        "Deployment",
        "Service",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "NetworkPolicy",
        "ConfigMap",
        "StatefulSet",
        "Job",
        "Cluster",
    }


def test_postgres_is_a_cloudnativepg_cluster(rendered: tuple[str, Path, list[dict[str, Any]]]) -> None:
    overlay, _, docs = rendered
    (cluster,) = by_kind(docs, "Cluster").values()
    assert cluster["apiVersion"] == "postgresql.cnpg.io/v1"
    assert cluster["spec"]["instances"] == (1 if overlay == "dev" else 3)
    assert cluster["spec"]["bootstrap"]["initdb"]["database"] == "okey"
    # apps take the -rw service's URI from the operator's app secret
    name = cluster["metadata"]["name"]
    for dep in by_kind(docs, "Deployment").values():
        for env in dep["spec"]["template"]["spec"]["containers"][0].get("env", []):
            if env["name"] == "OKEY_DATABASE_URL":
                assert env["valueFrom"]["secretKeyRef"] == {"name": f"{name}-app", "key": "uri"}


def test_nats_is_a_jetstream_cluster(rendered: tuple[str, Path, list[dict[str, Any]]]) -> None:
    overlay, _, docs = rendered
    nats = by_kind(docs, "StatefulSet")["nats"]
    conf = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].startswith("nats-config"))
    assert "jetstream" in conf["data"]["nats.conf"]
    if overlay == "prod":
        assert nats["spec"]["replicas"] == 3
        assert conf["data"]["nats.conf"].count("nats-headless:6222") == 3
    config = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].startswith("okey-config"))
    assert config["data"]["OKEY_STREAM_REPLICAS"] == ("1" if overlay == "dev" else "3")


def test_services_ports_probes_commands_match_the_code(rendered: tuple[str, Path, list[dict[str, Any]]]) -> None:
    from okeytools.cli import build_parser

    overlay, _, docs = rendered
    deps = by_kind(docs, "Deployment")
    svcs = by_kind(docs, "Service")
    assert set(deps) == set(SERVICE_PORTS)
    serve_choices = set(build_parser()._subparsers._group_actions[0].choices["serve"]._actions[1].choices)  # type: ignore[union-attr]
    for name, ports in SERVICE_PORTS.items():
        spec = deps[name]["spec"]["template"]["spec"]
        (c,) = spec["containers"]
        assert c["args"] == ["serve", name] and name in serve_choices
        declared = {p["name"]: p["containerPort"] for p in c["ports"]}
        assert declared == {**ports, "metrics": METRICS_PORT}
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        if name == "gateway":
            assert env["OKEY_GATEWAY_GRPC_ADDR"] == f"0.0.0.0:{ports['grpc']}"
            assert env["OKEY_GATEWAY_HTTP_ADDR"] == f"0.0.0.0:{ports['http']}"
            assert c["readinessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
        else:
            assert env[f"OKEY_{name.upper()}_ADDR"] == f"0.0.0.0:{ports['grpc']}"
            assert c["readinessProbe"]["grpc"]["port"] == ports["grpc"]
        assert c["livenessProbe"]["grpc"]["port"] == ports["grpc"]
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
        assert spec["securityContext"]["runAsNonRoot"] is True
        assert "limits" in c["resources"] and "requests" in c["resources"]
        svc_ports = {p["targetPort"]: p["port"] for p in svcs[name]["spec"]["ports"]}
        assert svc_ports == ports
        assert (svcs[name]["spec"].get("type", "ClusterIP") == "LoadBalancer") == (name == "gateway")
    # the ConfigMap tells every service where the others are, on the same ports
    config = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"].startswith("okey-config"))
    for name in ("table", "scoring", "lobby", "bots"):
        assert config["data"][f"OKEY_{name.upper()}_ADDR"] == f"{name}:{SERVICE_PORTS[name]['grpc']}"
    job = by_kind(docs, "Job")["okey-migrate"]
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["migrate"]
    assert "migrate" in build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert config["data"]["OKEY_METRICS_ADDR"] == f"0.0.0.0:{METRICS_PORT}"
    hpas = by_kind(docs, "HorizontalPodAutoscaler")
    assert set(hpas) == set(SERVICE_PORTS) - AUTOSCALED_ON_LAG
    assert all(h["apiVersion"] == "autoscaling/v2" for h in hpas.values())
    assert set(by_kind(docs, "ScaledObject")) == AUTOSCALED_ON_LAG
    pdbs = by_kind(docs, "PodDisruptionBudget")
    assert set(SERVICE_PORTS) <= set(pdbs)
    if overlay == "prod":
        assert all(d["spec"]["replicas"] >= 2 for d in deps.values())
    else:
        assert all(d["spec"]["replicas"] == 1 for d in deps.values())


def test_every_env_var_in_the_manifests_is_read_by_the_code(rendered: tuple[str, Path, list[dict[str, Any]]]) -> None:
    _, _, docs = rendered
    in_manifests: set[str] = set()
    for d in docs:
        if d["kind"] == "ConfigMap" and d["metadata"]["name"].startswith("okey-config"):
            in_manifests |= set(d["data"])
        if d["kind"] in ("Deployment", "Job"):
            for c in d["spec"]["template"]["spec"]["containers"]:
                in_manifests |= {e["name"] for e in c.get("env", [])}
    code = "\n".join(p.read_text() for base in ("libs", "services", "tools") for p in (ROOT / base).rglob("*.py"))
    read = set(re.findall(r"\"(OKEY_[A-Z0-9_]+)\"", code))
    unread = sorted(v for v in in_manifests if v.startswith("OKEY_") and v not in read)
    assert not unread, f"set in the manifests but read nowhere: {unread}"
    for needed in ("OKEY_DATABASE_URL", "OKEY_NATS_URL", "OKEY_TOKEN_SECRET"):
        assert needed in in_manifests


def test_only_the_gateway_is_exposed(rendered: tuple[str, Path, list[dict[str, Any]]]) -> None:
    _, _, docs = rendered
    pols = by_kind(docs, "NetworkPolicy")
    assert pols["default-deny"]["spec"]["podSelector"] == {}
    assert set(pols["default-deny"]["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    open_ingress = [n for n, p in pols.items() for rule in p["spec"].get("ingress", []) if "from" not in rule]
    assert open_ingress == ["gateway-public"]
    assert pols["gateway-public"]["spec"]["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "gateway"}


def test_dockerfile_runs_as_non_root_and_builds_the_protos() -> None:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "AS build" in text and "grpc_tools.protoc" in text
    assert re.search(r"^USER 10001", text, re.M)
    assert 'ENTRYPOINT ["okey"]' in text


def test_prod_backs_up_the_cluster_continuously_to_an_object_store(
    rendered: tuple[str, Path, list[dict[str, Any]]],
) -> None:
    """Issue 22.4: WAL archiving and a nightly base backup through CloudNativePG's Barman Cloud
    plugin, with the fields their CRDs require, the credentials from a Secret; dev has none."""
    overlay, _, docs = rendered
    (cluster,) = by_kind(docs, "Cluster").values()
    stores = by_kind(docs, "ObjectStore")
    schedules = by_kind(docs, "ScheduledBackup")
    if overlay == "dev":
        assert not stores and not schedules and "plugins" not in cluster["spec"]
        return
    (store,) = stores.values()
    assert store["apiVersion"] == "barmancloud.cnpg.io/v1"
    conf = store["spec"]["configuration"]
    assert conf["destinationPath"].startswith(("s3://", "gs://", "https://"))
    creds = conf["s3Credentials"]
    assert {creds[k]["key"] for k in ("accessKeyId", "secretAccessKey")} == {"ACCESS_KEY_ID", "ACCESS_SECRET_KEY"}
    assert creds["accessKeyId"]["name"] == creds["secretAccessKey"]["name"]  # a Secret, never inline
    assert "serverName" not in conf  # the plugin's rule: left empty on the ObjectStore
    (plugin,) = cluster["spec"]["plugins"]
    assert plugin["name"] == "barman-cloud.cloudnative-pg.io" and plugin["isWALArchiver"] is True
    assert plugin["parameters"]["barmanObjectName"] == store["metadata"]["name"]
    (nightly,) = schedules.values()
    assert nightly["apiVersion"] == "postgresql.cnpg.io/v1"
    spec = nightly["spec"]
    assert spec["cluster"]["name"] == cluster["metadata"]["name"]
    assert len(spec["schedule"].split()) == 6  # CloudNativePG's cron: seconds first
    assert spec["method"] == "plugin" and spec["pluginConfiguration"]["name"] == plugin["name"]


def test_the_operators_objects_carry_the_fields_their_crds_require(
    rendered: tuple[str, Path, list[dict[str, Any]]],
) -> None:
    """PodMonitor, PrometheusRule and ScaledObject have no schema offline: their required fields,
    and that they point at what exists (the metrics port, the consumers' durables, NATS's monitor)."""
    _, _, docs = rendered
    (pm,) = by_kind(docs, "PodMonitor").values()
    assert pm["apiVersion"] == "monitoring.coreos.com/v1"
    assert pm["spec"]["selector"]["matchExpressions"] or pm["spec"]["selector"]["matchLabels"]
    assert [e["port"] for e in pm["spec"]["podMetricsEndpoints"]] == ["metrics"]
    (rule,) = by_kind(docs, "PrometheusRule").values()
    assert rule["apiVersion"] == "monitoring.coreos.com/v1"
    alerts = [r for g in rule["spec"]["groups"] for r in g["rules"]]
    assert alerts and all(r["alert"] and r["expr"] and r["labels"]["severity"] for r in alerts)
    assert all({"summary", "description", "runbook_url"} <= set(r["annotations"]) for r in alerts)
    from services.bots.consumer import DURABLE as BOTS_DURABLE
    from services.scoring.consumer import DURABLE as SCORING_DURABLE

    durables = {"bots": BOTS_DURABLE, "scoring": SCORING_DURABLE}
    nats_ports = {
        p["name"] for p in by_kind(docs, "StatefulSet")["nats"]["spec"]["template"]["spec"]["containers"][0]["ports"]
    }
    assert "monitor" in nats_ports
    for name, so in by_kind(docs, "ScaledObject").items():
        assert so["apiVersion"] == "keda.sh/v1alpha1"
        assert so["spec"]["scaleTargetRef"]["name"] == name
        (trigger,) = so["spec"]["triggers"]
        assert trigger["type"] == "nats-jetstream"
        meta = trigger["metadata"]
        assert {"natsServerMonitoringEndpoint", "account", "stream", "consumer", "lagThreshold"} <= set(meta)
        assert meta["stream"] == "OKEY_TABLES" and meta["consumer"] == durables[name]
        assert meta["natsServerMonitoringEndpoint"].endswith(":8222")


def test_promtool_checks_the_alert_rules_as_deployed(
    rendered: tuple[str, Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    from okeyplatform.metrics import METRIC_NAMES

    _, _, docs = rendered
    (rule,) = by_kind(docs, "PrometheusRule").values()
    # The overlays deploy alerts.yaml's groups unchanged: tests/deploy/test_alerts.py unit-tests
    # that file, so it tests what runs.
    source = yaml.safe_load((K8S / "base" / "monitoring" / "alerts.yaml").read_text())
    assert rule["spec"]["groups"] == source["spec"]["groups"]
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
    got = subprocess.run(
        [prometheus_tool("promtool"), "check", "rules", str(path)], capture_output=True, text=True, timeout=60
    )
    assert got.returncode == 0, got.stdout + got.stderr
    # Every okey_/grpc_/http_ name the rules and the dashboard read is one the code exports.
    dashboard = (K8S / "base" / "monitoring" / "okey-dashboard.json").read_text()
    used = set(re.findall(r"\b((?:okey|grpc|http)_[a-z0-9_]+)", path.read_text() + dashboard))
    labels = {"grpc_service", "grpc_method", "grpc_type", "grpc_code"}  # label names, not metrics
    base = {re.sub(r"_(bucket|sum|count)$", "", n) for n in used} - labels
    unknown = sorted(n for n in base if n not in METRIC_NAMES)
    assert not unknown, unknown
