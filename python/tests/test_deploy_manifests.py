"""The manifests in deploy/ checked against what `conch serve` really takes
and serves: every container's flags parse, ports, probe paths, metric names
and grace periods agree with the server, and the Deployment's own command
line runs, answers its probes and drains on SIGTERM. (No cluster here: the
manifests are parsed, not applied.)"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import signal
import urllib.request
from typing import Any, Iterator

import pytest
import yaml

from conch import _serve
from conftest import identity_config, write_model
from test_serve import DEADLINE_S, LISTENING, METRICS, Serve

DEPLOY = pathlib.Path(__file__).resolve().parents[2] / "deploy"
HEALTH_PATHS = {"/v2/health/live", "/v2/health/ready"}


def documents(path: pathlib.Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def find(kind: str, directory: str) -> dict[str, Any]:
    found = [d for p in sorted((DEPLOY / directory).glob("*.yaml")) for d in documents(p)
             if d["kind"] == kind]
    assert len(found) == 1, f"{kind} in deploy/{directory}: {len(found)}"
    return found[0]


def serve_args(argv: list[str]) -> argparse.Namespace:
    """`argv` parsed as `conch serve` parses it; fails the test for a flag
    or a value it does not take."""
    parser = argparse.ArgumentParser(prog="conch serve", exit_on_error=False)
    _serve.add_serve_arguments(parser)
    try:
        return parser.parse_args(argv)
    except (argparse.ArgumentError, SystemExit) as e:
        pytest.fail(f"conch serve does not take {argv}: {e}")


def container(spec: dict[str, Any]) -> dict[str, Any]:
    (only,) = spec["containers"]
    return only


def prestop_seconds(c: dict[str, Any]) -> int:
    command = c.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
    return int(command[1]) if command[:1] == ["sleep"] else 0


def test_every_manifest_parses_and_each_kustomization_lists_its_directory() -> None:
    manifests = sorted(DEPLOY.rglob("*.yaml"))
    assert {p.parent.name for p in manifests} == {"kubernetes", "kserve"}
    for path in manifests:
        for doc in documents(path):
            assert doc.get("apiVersion") and doc.get("kind"), path
            if doc["kind"] == "Kustomization":
                listed = set(doc["resources"])
                present = {p.name for p in path.parent.glob("*.yaml")} - {path.name}
                assert listed == present, path
            else:
                assert doc["metadata"]["name"], path


def test_the_deployment_agrees_with_conch_serve() -> None:
    deployment = find("Deployment", "kubernetes")
    pod = deployment["spec"]["template"]
    c = container(pod["spec"])
    args = serve_args(c["args"])
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"http": args.http_port, "grpc": args.grpc_port,
                     "metrics": args.metrics_port}
    mounts = {m["mountPath"] for m in c["volumeMounts"]}
    assert args.model_repository == ["/models"] and "/models" in mounts

    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        get = c[probe]["httpGet"]
        assert get["path"] in HEALTH_PATHS and get["port"] == "http", probe
    assert c["readinessProbe"]["httpGet"]["path"] == "/v2/health/ready"
    assert c["livenessProbe"]["httpGet"]["path"] == "/v2/health/live"

    # The grace period covers the preStop pause and the whole drain.
    grace = pod["spec"]["terminationGracePeriodSeconds"]
    assert grace > prestop_seconds(c) + args.exit_timeout_secs
    annotations = pod["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert int(annotations["prometheus.io/port"]) == args.metrics_port
    assert annotations["prometheus.io/path"] == "/metrics"
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True

    claim = {v["name"]: v for v in pod["spec"]["volumes"]}["models"]
    pvc = find("PersistentVolumeClaim", "kubernetes")
    assert claim["persistentVolumeClaim"]["claimName"] == pvc["metadata"]["name"]


def test_the_service_and_the_autoscaler_point_at_the_deployment() -> None:
    deployment = find("Deployment", "kubernetes")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    service = find("Service", "kubernetes")
    assert service["spec"]["selector"].items() <= labels.items()
    named = {p["name"] for p in container(deployment["spec"]["template"]["spec"])["ports"]}
    assert {p["targetPort"] for p in service["spec"]["ports"]} == named

    hpa = find("HorizontalPodAutoscaler", "kubernetes")
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert hpa["spec"]["minReplicas"] >= 2  # a rollout never leaves one replica alone
    (metric,) = hpa["spec"]["metrics"]
    rules = yaml.safe_load(find("ConfigMap", "kubernetes")["data"]["config.yaml"])["rules"]
    (rule,) = rules
    assert metric["pods"]["metric"]["name"] == rule["name"]["as"]
    assert rule_series(rule) == "nv_inference_pending_request_count"


def rule_series(rule: dict[str, Any]) -> str:
    match = re.match(r"([a-z_:]+)\{", rule["seriesQuery"])
    assert match, rule["seriesQuery"]
    return match.group(1)


def test_the_kserve_runtime_agrees_with_conch_serve() -> None:
    runtime = find("ServingRuntime", "kserve")
    c = container(runtime["spec"])
    assert c["name"] == "kserve-container"
    args = serve_args(c["args"])
    # KServe's storage initializer fills /mnt/models, routes HTTP to 8080,
    # and gRPC (grpc-v2) to the port an InferenceService declares, 9000.
    assert args.model_repository == ["/mnt/models"]
    assert (args.http_port, args.grpc_port) == (8080, 9000)
    assert args.allow_http and args.allow_grpc
    assert set(runtime["spec"]["protocolVersions"]) == {"v2", "grpc-v2"}
    assert int(runtime["spec"]["annotations"]["prometheus.kserve.io/port"]) == args.metrics_port
    assert runtime["spec"]["annotations"]["prometheus.kserve.io/path"] == "/metrics"

    service = find("InferenceService", "kserve")
    predictor = service["spec"]["predictor"]
    assert predictor["model"]["runtime"] == runtime["metadata"]["name"]
    formats = {f["name"] for f in runtime["spec"]["supportedModelFormats"]}
    assert predictor["model"]["modelFormat"]["name"] in formats
    assert predictor["model"]["protocolVersion"] in runtime["spec"]["protocolVersions"]
    assert predictor["terminationGracePeriodSeconds"] > args.exit_timeout_secs


@pytest.fixture
def repository(tmp_path: pathlib.Path) -> pathlib.Path:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    return tmp_path / "models"


def local_args(args: list[str], repository: pathlib.Path) -> list[str]:
    """The manifest's flags with this machine's repository and free ports."""
    out = []
    for arg in args:
        flag = arg.split("=", 1)[0]
        if flag == "--model-repository":
            arg = f"{flag}={repository}"
        elif flag.endswith("-port"):
            arg = f"{flag}=0"
        out.append(arg)
    return out


@pytest.fixture
def deployed(repository: pathlib.Path) -> Iterator[tuple[Serve, int, int]]:
    c = container(find("Deployment", "kubernetes")["spec"]["template"]["spec"])
    process = Serve(*local_args(c["args"], repository))
    http = int(process.wait_for(LISTENING).group(1))
    metrics = int(process.wait_for(METRICS).group(1))
    yield process, http, metrics
    process.kill()


def get(port: int, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body)
    with urllib.request.urlopen(request, timeout=30) as reply:
        return reply.status, reply.read()


def test_the_deployments_command_line_serves_its_probes_and_metric_and_drains(
        deployed: tuple[Serve, int, int]) -> None:
    process, http, metrics = deployed
    c = container(find("Deployment", "kubernetes")["spec"]["template"]["spec"])
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert get(http, c[probe]["httpGet"]["path"])[0] == 200
    body = json.dumps({"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1],
                                   "data": [1.0]}]}).encode()
    assert get(http, "/v2/models/m/infer", body)[0] == 200
    status, text = get(metrics, "/metrics")
    assert status == 200
    rule = yaml.safe_load(find("ConfigMap", "kubernetes")["data"]["config.yaml"])["rules"][0]
    assert re.search(rf'^{rule_series(rule)}\{{model="m",version="1"\}} 0$', text.decode(),
                     re.MULTILINE)
    # A rollout's SIGTERM: the server drains and exits 0 within its exit timeout.
    process.process.send_signal(signal.SIGTERM)
    assert process.process.wait(timeout=DEADLINE_S) == 0
