"""The exposition of /metrics passes `promtool check metrics` (Debian's
prometheus package, installed by scripts/setup.sh): it parses as Prometheus
text format 0.0.4, and the only findings are promtool's naming lints on the
family names Triton's protocol fixes (nv_..._count, ..._duration_us, ...)."""

from __future__ import annotations

import re
import shutil
import subprocess
import urllib.request

import numpy
import pytest

import conch
from conch.frontend import Metrics

from conftest import identity_config, write_model

# promtool's lints that Triton's fixed family names trip; any other finding
# (or a parse error) fails the test.
NAMING_LINTS = (
    r'counter metrics should have "_total" suffix',
    r"metric names should not contain abbreviated units",
    r"metric name should not include type 'summary'",
    r'non-histogram and non-summary metrics should not have "_count" suffix',
)
# promtool's exit status when it found lint problems only.
LINT_PROBLEMS = 3


def promtool() -> str:
    path = shutil.which("promtool")
    assert path, "promtool is missing: run scripts/setup.sh (Debian package prometheus)"
    return path


def test_the_exposition_passes_promtool(tmp_path) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    server = conch.Server(
        model_repository=str(tmp_path),
        metrics_configuration={"": {"summary_latencies": True, "histogram_latencies": True}},
    ).start(wait_until_ready=True)
    try:
        model = server.model("m")
        for _ in range(3):
            list(model.infer(inputs={"INPUT0": numpy.arange(4, dtype=numpy.int32)}))
        with pytest.raises(conch.InvalidArgumentError):
            list(model.infer(inputs={"WRONG": numpy.arange(4, dtype=numpy.int32)}))
        counter = conch.MetricFamily(conch.MetricKind.COUNTER, "app_requests_total", "Requests")
        conch.Metric(counter, {"route": "predict"}).increment(2)
        gauge = conch.MetricFamily(conch.MetricKind.GAUGE, "app_queue_depth", "Queued items")
        conch.Metric(gauge, {"queue": "a b \"c\""}).set_value(-1.5)
        with Metrics(server, Metrics.Options(address="127.0.0.1", port=0)) as frontend:
            url = f"http://127.0.0.1:{frontend.port}/metrics"
            with urllib.request.urlopen(url, timeout=10) as response:
                text = response.read()
    finally:
        server.stop()

    assert b'nv_inference_request_failure{model="m",reason="OTHER",version="1"} 1' in text
    checked = subprocess.run([promtool(), "check", "metrics"], input=text,
                             capture_output=True, timeout=60)
    findings = (checked.stdout + checked.stderr).decode().splitlines()
    assert checked.returncode in (0, LINT_PROBLEMS), findings
    unexpected = [line for line in findings
                  if line.strip() and not (line.startswith("nv_")
                                           and any(re.search(l, line) for l in NAMING_LINTS))]
    assert not unexpected, unexpected
