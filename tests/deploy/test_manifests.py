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
    # Only the CloudNativePG Cluster (a CRD) has no schema offline; it is checked by hand below.
    unknown = [line for line in got.stdout.splitlines() if "Couldn't find schema" in line]
    assert all("postgresql.cnpg.io" in line for line in unknown), unknown
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
        assert declared == ports
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
    hpas = by_kind(docs, "HorizontalPodAutoscaler")
    assert set(hpas) == set(SERVICE_PORTS) and all(h["apiVersion"] == "autoscaling/v2" for h in hpas.values())
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
    code = "\n".join(p.read_text() for base in ("libs", "services") for p in (ROOT / base).rglob("*.py"))
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
