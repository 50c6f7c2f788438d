"""The network frontends' options are defined once, in C++: each native
frontend takes them as keyword arguments by the names its C++ options give
(for_each_option), reports their defaults (defaults()), and the Python
Options dataclasses take their defaults from there. Here: the dataclasses
and the native options name the same fields, every field reaches the native
frontend, and a name or a value the native side does not know is refused."""

from __future__ import annotations

import dataclasses
import pathlib
import urllib.request
from typing import Any, Iterator

import pytest

import conch
from conch import _conch
from conch.frontend import KServeGrpc, KServeHttp, Metrics, SageMaker, VertexAI

from conftest import identity_config, write_model

# KServeHttp.Options leaves the cloud frontends' fields to their own Options.
CLOUD_FIELDS = {
    "sagemaker", "sagemaker_default_model", "sagemaker_ping_mode", "sagemaker_inference_type",
    "vertex_ai", "vertex_ai_default_model", "vertex_ai_health_route", "vertex_ai_predict_route",
}


def field_names(options: type) -> set[str]:
    return {f.name for f in dataclasses.fields(options)} - {"restricted_features"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[conch.Server]:
    repository: pathlib.Path = tmp_path_factory.mktemp("frontend_options")
    write_model(repository, "identity_fp32", identity_config("TYPE_FP32"))
    server = conch.Server(model_repository=str(repository)).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture
def native_server(server: conch.Server) -> Any:
    return server._ptr()


@pytest.mark.parametrize("frontend,native,extra", [
    (KServeHttp, _conch.HttpFrontend, CLOUD_FIELDS),
    (KServeGrpc, _conch.GrpcFrontend, set()),
    (Metrics, _conch.MetricsFrontend, set()),
])
def test_the_dataclass_and_the_native_options_name_the_same_fields(
        frontend: Any, native: Any, extra: set[str]) -> None:
    assert field_names(frontend.Options) == set(native.defaults()) - extra


@pytest.mark.parametrize("frontend,native", [
    (KServeHttp, _conch.HttpFrontend),
    (KServeGrpc, _conch.GrpcFrontend),
    (Metrics, _conch.MetricsFrontend),
])
def test_the_dataclass_defaults_are_the_native_ones(frontend: Any, native: Any) -> None:
    defaults = frontend.Options()
    for name, value in native.defaults().items():
        if hasattr(defaults, name):
            assert getattr(defaults, name) == value, name


def test_the_defaults_are_documented_values() -> None:
    http = _conch.HttpFrontend.defaults()
    assert (http["address"], http["port"], http["thread_count"], http["max_input_size"]) == (
        "0.0.0.0", 8000, 8, 64 << 20)
    assert (http["header_timeout"], http["drain_timeout"], http["max_connections"]) == (
        30.0, 5.0, 4096)
    metrics = _conch.MetricsFrontend.defaults()
    assert (metrics["port"], metrics["thread_count"]) == (8002, 1)
    assert _conch.GrpcFrontend.defaults()["port"] == 8001


def test_the_cloud_frontends_share_the_http_defaults() -> None:
    http = KServeHttp.Options()
    for options in (SageMaker.Options(), VertexAI.Options()):
        for name in ("address", "thread_count", "max_inflight", "max_input_size",
                     "header_timeout", "max_inflight_bytes"):
            assert getattr(options, name) == getattr(http, name), name


@pytest.mark.parametrize("native", [
    _conch.HttpFrontend, _conch.GrpcFrontend, _conch.MetricsFrontend])
def test_an_unknown_option_is_refused(native_server: Any, native: Any) -> None:
    with pytest.raises(TypeError, match="unknown option"):
        native(native_server, port=0, no_such_option=1)


@pytest.mark.parametrize("native,name,value", [
    (_conch.HttpFrontend, "port", "eighty"),
    (_conch.GrpcFrontend, "keepalive_time_ms", 1 << 40),
    (_conch.MetricsFrontend, "thread_count", "two"),
])
def test_a_value_of_the_wrong_type_is_refused(native_server: Any, native: Any, name: str,
                                              value: Any) -> None:
    with pytest.raises(TypeError, match=f"option '{name}' has the wrong type"):
        native(native_server, **{name: value})


@pytest.mark.parametrize("timeout", [-1.0, float("nan"), 2e9])
def test_a_timeout_out_of_range_is_refused(native_server: Any, timeout: float) -> None:
    with pytest.raises(ValueError, match="header_timeout must be between 0 and 1e9 seconds"):
        _conch.HttpFrontend(native_server, header_timeout=timeout)


def test_a_frontend_built_from_every_field_serves(server: conch.Server) -> None:
    options = KServeHttp.Options(port=0, thread_count=1, header_timeout=1.5, max_connections=7)
    with KServeHttp(server, options) as frontend:
        assert frontend.port > 0
        with urllib.request.urlopen(f"http://127.0.0.1:{frontend.port}/v2/health/live") as r:
            assert r.status == 200
