"""Custom metrics (conch.MetricFamily, conch.Metric): counters and gauges of
the user's own, in server.metrics() and on the Metrics frontend."""

from __future__ import annotations

import gc
import re
import urllib.request
from typing import Iterator, Optional

import pytest

import conch
from conch.frontend import Metrics

from conftest import identity_config, write_model


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[conch.Server]:
    repository = tmp_path_factory.mktemp("custom")
    write_model(repository, "identity_INT32", identity_config("TYPE_INT32"))
    server = conch.Server(model_repository=str(repository)).start(wait_until_ready=True)
    yield server
    server.stop()


def scrape(server: conch.Server) -> str:
    with Metrics(server, Metrics.Options(address="127.0.0.1", port=0)) as metrics:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics.port}/metrics",
                                    timeout=10) as response:
            return response.read().decode()


def sample(text: str, series: str) -> Optional[float]:
    match = re.search(rf"^{re.escape(series)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else None


def test_a_counter_counts_and_shows_everywhere(server: conch.Server) -> None:
    family = conch.MetricFamily(conch.MetricKind.COUNTER, "app_requests_total", "Requests seen")
    metric = conch.Metric(family, {"route": "predict"})
    assert metric.kind is conch.MetricKind.COUNTER
    assert family.kind is conch.MetricKind.COUNTER
    assert metric.value == 0
    metric.increment(2)
    metric.increment(0.5)
    assert metric.value == 2.5
    for text in (server.metrics(), scrape(server)):
        assert "# HELP app_requests_total Requests seen\n" in text
        assert "# TYPE app_requests_total counter\n" in text
        assert sample(text, 'app_requests_total{route="predict"}') == 2.5
    # Conch's own families are still there.
    assert "nv_inference_request_success{" in server.metrics()


def test_a_counter_refuses_set_value_and_negative_steps() -> None:
    metric = conch.Metric(conch.MetricFamily(conch.MetricKind.COUNTER, "app_refusing", "x"))
    metric.increment(1)
    with pytest.raises(conch.UnsupportedError, match="set_value") as caught:
        metric.set_value(5)
    assert isinstance(caught.value, conch.TritonError)
    with pytest.raises(conch.InvalidArgumentError):
        metric.increment(-1)
    assert metric.value == 1


def test_a_gauge_moves_both_ways_and_is_set(server: conch.Server) -> None:
    family = conch.MetricFamily(conch.MetricKind.GAUGE, "app_queue_depth", "Queued items")
    metric = conch.Metric(family)
    assert metric.kind is conch.MetricKind.GAUGE
    metric.increment(3)
    metric.increment(-1)
    assert metric.value == 2
    metric.set_value(7.25)
    assert metric.value == 7.25
    text = scrape(server)
    assert "# TYPE app_queue_depth gauge\n" in text
    assert sample(text, "app_queue_depth") == 7.25


def test_metrics_leave_the_exposition_with_their_objects(server: conch.Server) -> None:
    family = conch.MetricFamily(conch.MetricKind.GAUGE, "app_transient", "Short-lived")
    first = conch.Metric(family, {"k": "a"})
    second = conch.Metric(family, {"k": "b"})
    first.set_value(1)
    second.set_value(2)
    del first
    gc.collect()
    text = server.metrics()
    assert sample(text, 'app_transient{k="a"}') is None
    assert sample(text, 'app_transient{k="b"}') == 2
    # A metric keeps its family alive; the name frees when both are gone.
    del family
    gc.collect()
    with pytest.raises(conch.AlreadyExistsError):
        conch.MetricFamily(conch.MetricKind.GAUGE, "app_transient", "again")
    assert sample(server.metrics(), 'app_transient{k="b"}') == 2
    del second
    gc.collect()
    assert "app_transient" not in server.metrics()
    conch.MetricFamily(conch.MetricKind.COUNTER, "app_transient", "again")


def test_bad_families_and_metrics_are_refused() -> None:
    with pytest.raises(conch.InvalidArgumentError):
        conch.MetricFamily(conch.MetricKind.COUNTER, "has space", "x")
    with pytest.raises(conch.InvalidArgumentError, match="nv_"):
        conch.MetricFamily(conch.MetricKind.COUNTER, "nv_inference_count", "x")
    with pytest.raises(conch.InvalidArgumentError, match="MetricKind"):
        conch.MetricFamily(0, "app_untyped", "x")  # type: ignore[arg-type]
    family = conch.MetricFamily(conch.MetricKind.GAUGE, "app_labelled", "x")
    with pytest.raises(conch.InvalidArgumentError):
        conch.Metric(family, {"bad-label": "v"})
    with pytest.raises(conch.InvalidArgumentError):
        conch.Metric(family, {"k": 1})  # type: ignore[dict-item]
    with pytest.raises(conch.InvalidArgumentError, match="MetricFamily"):
        conch.Metric("app_labelled")  # type: ignore[arg-type]


def test_exported_from_conch_and_tritonserver() -> None:
    import tritonserver

    assert "MetricFamily" in conch.__all__ and "Metric" in conch.__all__
    assert tritonserver.MetricFamily is conch.MetricFamily
    assert tritonserver.Metric is conch.Metric
    assert issubclass(conch.Metric, conch._conch.Metric)
