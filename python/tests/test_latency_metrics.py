"""The optional per-model latency families of Options.metrics_configuration
(summaries, the first-response histogram, the duration counters) and the
system families that depend on the machine (GPU, pinned memory)."""

from __future__ import annotations

import ctypes
import pathlib
import re
import urllib.request
from typing import Optional

import numpy
import pytest

import conch
from conch.frontend import Metrics

from conftest import identity_config, write_model

N = 4
SUMMARIES = (
    "nv_inference_request_summary_us",
    "nv_inference_queue_summary_us",
    "nv_inference_compute_input_summary_us",
    "nv_inference_compute_infer_summary_us",
    "nv_inference_compute_output_summary_us",
)
HISTOGRAM = "nv_inference_first_response_histogram_ms"
GPU_FAMILIES = (
    "nv_gpu_utilization",
    "nv_gpu_memory_total_bytes",
    "nv_gpu_memory_used_bytes",
    "nv_gpu_power_usage",
    "nv_gpu_power_limit",
    "nv_energy_consumption",
)
REPEAT = """
    backend: "repeat"
    max_batch_size: 0
    model_transaction_policy { decoupled: true }
    input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]
    output [
      { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },
      { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] }
    ]
"""


def series(text: str, name: str, model: str, extra: str = "") -> Optional[float]:
    labels = f'model="{model}",version="1"' + extra
    match = re.search(rf"^{name}\{{{re.escape(labels)}\}} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else None


def infer_identity(server: conch.Server, model: str, times: int) -> None:
    for i in range(times):
        list(server.model(model).infer(inputs={"INPUT0": numpy.array([i], dtype=numpy.int32)}))


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        return response.read().decode()


def test_the_optional_families_are_off_by_default(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    write_model(tmp_path, "stream", REPEAT)
    server = make_server()
    infer_identity(server, "m", 1)
    list(server.model("stream").infer(inputs={"IN": numpy.array([1, 2], dtype=numpy.int32)}))
    text = server.metrics()
    assert "_summary_us" not in text
    assert HISTOGRAM not in text
    assert series(text, "nv_inference_request_duration_us", "m") is not None


def test_summaries_match_the_counters_and_leave_with_the_model(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    server = make_server(
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["m"],
        metrics_configuration={
            "": {"summary_latencies": True, "summary_quantiles": "0.5:0.05,0.99:0.001"}
        },
    )
    text = server.metrics()
    for name in SUMMARIES:
        assert f"# TYPE {name} summary\n" in text
        assert series(text, f"{name}_count", "m") == 0
    infer_identity(server, "m", N)
    with Metrics(server, Metrics.Options(address="127.0.0.1", port=0)) as frontend:
        scraped = scrape(frontend.port)
    for text in (server.metrics(), scraped):
        assert series(text, "nv_inference_request_summary_us_count", "m") == N
        assert series(text, "nv_inference_request_summary_us_sum", "m") == series(
            text, "nv_inference_request_duration_us", "m")
        assert series(text, "nv_inference_queue_summary_us_sum", "m") == series(
            text, "nv_inference_queue_duration_us", "m")
        quantiles = re.findall(
            r'^nv_inference_request_summary_us\{model="m",version="1",quantile="([^"]+)"\}',
            text, re.MULTILINE)
        assert quantiles == ["0.5", "0.99"]
    assert ("# HELP nv_inference_request_summary_us Summary of inference request duration in "
            "microseconds (includes cached requests)\n") in text
    server.unload("m", wait_until_unloaded=True)
    assert "_summary_us" not in server.metrics()


def test_the_histogram_counts_first_responses_of_decoupled_models(tmp_path, make_server) -> None:
    write_model(tmp_path, "plain", identity_config("TYPE_INT32"))
    write_model(tmp_path, "stream", REPEAT)
    write_model(tmp_path, "tuned", REPEAT + """
        model_metrics { metric_control [ {
          metric_identifier { family: "nv_inference_first_response_histogram_ms" }
          histogram_options { buckets: [ -1, 0, 1, 2.5 ] } } ] }
    """)
    server = make_server(metrics_configuration={"": {"histogram_latencies": "true"}})
    infer_identity(server, "plain", 2)
    for _ in range(N):
        responses = server.model("stream").infer(
            inputs={"IN": numpy.array([1, 2, 3], dtype=numpy.int32)})
        assert len(list(responses)) == 4
    text = server.metrics()
    assert (f"# HELP {HISTOGRAM} Duration from request to first response in milliseconds\n"
            f"# TYPE {HISTOGRAM} histogram\n") in text
    assert series(text, f"{HISTOGRAM}_count", "stream") == N
    assert series(text, f"{HISTOGRAM}_bucket", "stream", ',le="+Inf"') == N
    assert [le for le in re.findall(
        rf'^{HISTOGRAM}_bucket\{{model="stream",version="1",le="([^"]+)"\}}', text, re.MULTILINE)
    ] == ["100", "500", "2000", "5000", "+Inf"]
    assert [le for le in re.findall(
        rf'^{HISTOGRAM}_bucket\{{model="tuned",version="1",le="([^"]+)"\}}', text, re.MULTILINE)
    ] == ["-1", "0", "1", "2.5", "+Inf"]
    assert series(text, f"{HISTOGRAM}_count", "plain") is None


def test_counter_latencies_off_drops_the_duration_counters(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    server = make_server(metrics_configuration={"": {"counter_latencies": "false"}})
    infer_identity(server, "m", 1)
    text = server.metrics()
    assert "_duration_us" not in text
    assert series(text, "nv_inference_request_success", "m") == 1


@pytest.mark.parametrize("configuration, message", [
    ({"": {"summary_latencies": "maybe"}}, "summary_latencies=maybe"),
    ({"": {"summary_quantiles": "0.5"}}, "summary_quantiles"),
    ({"": {"histogram_buckets": "1,2"}}, "unknown metrics configuration setting"),
    ({"model": {"summary_latencies": "true"}}, "group 'model'"),
])
def test_a_bad_configuration_fails_start(tmp_path, configuration, message) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    server = conch.Server(model_repository=str(tmp_path), metrics_configuration=configuration)
    with pytest.raises(conch.InvalidArgumentError, match=re.escape(message)):
        server.start()


def test_a_histogram_bucket_list_out_of_order_fails_the_load(tmp_path, make_server) -> None:
    write_model(tmp_path, "bad", REPEAT + """
        model_metrics { metric_control [ {
          metric_identifier { family: "nv_inference_first_response_histogram_ms" }
          histogram_options { buckets: [ 5, 1 ] } } ] }
    """)
    server = make_server(model_control_mode=conch.ModelControlMode.EXPLICIT)
    with pytest.raises(conch.InvalidArgumentError, match="strictly increasing"):
        server.load("bad")


def _nvml_loads() -> bool:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
        return True
    except OSError:
        return False


def test_gpu_families_follow_nvml(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    text = make_server(metrics_interval=50).metrics()
    if not _nvml_loads():
        # No driver library: no GPU family at all, and the server runs.
        for name in GPU_FAMILIES:
            assert name not in text
        return
    # With NVML each GPU series has exactly the gpu_uuid label and a plain
    # decimal value, as perf_analyzer's --collect-metrics parses them.
    for name in ("nv_gpu_utilization", "nv_gpu_memory_total_bytes"):
        values = re.findall(rf'\n{name}\{{gpu_uuid="(GPU-[^"]+)"\}} (\d+\.?\d*)\n', text)
        assert values, text
        assert len(values) == len(re.findall(rf"^{name}\{{", text, re.MULTILINE))


@pytest.mark.parametrize("switch", [{"gpu_metrics": False}, {"metrics": False}])
def test_either_flag_switches_the_gpu_families_off(tmp_path, make_server, switch) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    text = make_server(**switch).metrics()
    assert "nv_gpu_" not in text and "nv_energy_consumption" not in text
    assert series(text, "nv_inference_count", "m") == 0


def test_the_pinned_memory_pool_gauges_report_an_empty_pool(tmp_path, make_server) -> None:
    write_model(tmp_path, "m", identity_config("TYPE_INT32"))
    text = make_server().metrics()
    for name in ("nv_pinned_memory_pool_total_bytes", "nv_pinned_memory_pool_used_bytes"):
        assert f"# TYPE {name} gauge\n" in text
        assert f"\n{name} 0\n" in text
    assert "nv_pinned_memory_pool" not in make_server(metrics=False).metrics()
