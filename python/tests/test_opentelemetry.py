"""OpenTelemetry-mode tracing checked as upstream's opentelemetry_unittest
checks Triton, with an OTLP/HTTP receiver of our own that decodes each
export with the `opentelemetry-proto` package: the spans and their nesting
for a model and an ensemble, their events and attributes, the resource,
and W3C trace context propagated from HTTP headers and gRPC metadata."""

from __future__ import annotations

import http.server
import pathlib
import socket
import threading
import time
from collections import defaultdict
from typing import Any, Callable, Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

import conch
from conch.frontend import KServeGrpc, KServeHttp
from conftest import identity_config, write_model
from test_tracing import ENSEMBLE

X = numpy.array([1, 2, 3, 4], dtype=numpy.float32)
TRACEPARENT = "00-0af7651916cd43dd8448eb211c12666c-b7ad6b7169242424-01"


class Receiver:
    """An OTLP/HTTP traces endpoint on a free port: keeps every span of
    every export, decoded, and the content types the exports came with."""

    def __init__(self) -> None:
        self.spans: list[Any] = []
        self.resources: list[dict[str, str]] = []
        self.content_types: list[str] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the base class names it)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = trace_service_pb2.ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.content_types.append(self.headers["Content-Type"])
                for rs in request.resource_spans:
                    receiver.resources.append(
                        {kv.key: kv.value.string_value for kv in rs.resource.attributes})
                    for ss in rs.scope_spans:
                        assert ss.scope.name == "triton-server"
                        receiver.spans.extend(ss.spans)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def start(tmp_path: pathlib.Path, receiver: Receiver,
          make_server: Callable[..., conch.Server]) -> Callable[..., conch.Server]:
    models = tmp_path / "models"
    write_model(models, "m", identity_config("TYPE_FP32"))
    write_model(models, "pipe", ENSEMBLE)

    def go(*config: str) -> conch.Server:
        args = ["mode=opentelemetry", "level=TIMESTAMPS",
                f"opentelemetry,url=127.0.0.1:{receiver.port}/v1/traces",
                "opentelemetry,bsp_schedule_delay=50", *config]
        return make_server(model_repository=str(models), trace_config=args)
    return go


def nesting(spans: list[Any]) -> dict[str, list[str]]:
    """Span name -> its children's names, as upstream's _verify_nesting reads them."""
    names = {s.span_id: s.name for s in spans}
    out: dict[str, list[str]] = defaultdict(list)
    for s in spans:
        if s.parent_span_id in names:
            out[names[s.parent_span_id]].append(s.name)
    return {k: sorted(v) for k, v in out.items()}


def events(span: Any) -> list[str]:
    return [e.name for e in span.events]


def attributes(span: Any) -> dict[str, Any]:
    return {kv.key: kv.value.string_value if kv.value.HasField("string_value")
            else kv.value.int_value for kv in span.attributes}


def infer_http(port: int, model: str, headers: dict[str, str] | None = None) -> None:
    client = httpclient.InferenceServerClient(f"127.0.0.1:{port}")
    tensor = httpclient.InferInput("IN" if model == "pipe" else "INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(X)
    client.infer(model, [tensor], headers=headers)
    client.close()


def test_a_model_request_makes_three_nested_spans(start, receiver: Receiver) -> None:
    server = start("rate=1", "opentelemetry,resource=test.key=test.value",
                   "opentelemetry,resource=service.name=test_triton")
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http:
        infer_http(http.port, "m")
    server.stop()
    assert len(receiver.spans) == 3
    assert nesting(receiver.spans) == {"InferRequest": ["m"], "m": ["compute"]}
    by_name = {s.name: s for s in receiver.spans}
    root = by_name["InferRequest"]
    assert root.parent_span_id == b""
    assert events(root) == ["HTTP_RECV_START", "HTTP_RECV_END", "INFER_RESPONSE_COMPLETE",
                            "HTTP_SEND_START", "HTTP_SEND_END"]
    assert events(by_name["m"]) == ["REQUEST_START", "QUEUE_START", "REQUEST_END"]
    assert events(by_name["compute"]) == ["COMPUTE_START", "COMPUTE_INPUT_END",
                                          "COMPUTE_OUTPUT_START", "COMPUTE_END"]
    attrs = attributes(by_name["m"])
    assert attrs["triton.model_name"] == "m" and attrs["triton.model_version"] == 1
    assert attrs["triton.trace_parent_id"] == 0 and attrs["triton.trace_id"] > 0
    assert len({s.trace_id for s in receiver.spans}) == 1
    for s in receiver.spans:
        assert s.start_time_unix_nano <= s.end_time_unix_nano
        # Wall-clock times: after 2020.
        assert s.start_time_unix_nano > 1_577_836_800 * 10**9
    assert receiver.resources[0] == {"service.name": "test_triton", "test.key": "test.value"}
    assert receiver.content_types == ["application/x-protobuf"]


def test_an_ensemble_nests_its_steps(start, receiver: Receiver) -> None:
    server = start("rate=1")
    list(server.model("pipe").infer(inputs={"IN": X}))
    server.stop()
    assert len(receiver.spans) == 6
    assert nesting(receiver.spans) == {"InferRequest": ["pipe"], "pipe": ["m", "m"],
                                       "m": ["compute", "compute"]}
    steps = [s for s in receiver.spans if s.name == "m"]
    parent = next(s for s in receiver.spans if s.name == "pipe")
    for step in steps:
        assert attributes(step)["triton.trace_parent_id"] == attributes(parent)["triton.trace_id"]


def test_a_propagated_context_is_continued_and_always_traced(start, receiver: Receiver) -> None:
    # rate=0: only requests that come with a context are traced, as in Triton.
    server = start("rate=0")
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http, \
            KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        infer_http(http.port, "m")
        infer_http(http.port, "m", headers={"traceparent": TRACEPARENT})
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
        tensor.set_data_from_numpy(X)
        client.infer("m", [tensor], headers={"traceparent": TRACEPARENT})
        client.close()
    server.stop()
    roots = [s for s in receiver.spans if s.name == "InferRequest"]
    assert len(roots) == 2
    for root in roots:
        assert root.trace_id.hex() == "0af7651916cd43dd8448eb211c12666c"
        assert root.parent_span_id.hex() == "b7ad6b7169242424"
    assert sorted(events(r)[0] for r in roots) == ["GRPC_WAITREAD_START", "HTTP_RECV_START"]
    assert all(s.trace_id.hex() == "0af7651916cd43dd8448eb211c12666c" for s in receiver.spans)


def test_settings_show_the_exporter_and_a_stalled_collector_does_not_hold_the_stop(
        tmp_path: pathlib.Path, make_server: Callable[..., conch.Server]) -> None:
    # A collector that takes the connection (the kernel's backlog) and never
    # answers.
    stalled = socket.socket()
    stalled.bind(("127.0.0.1", 0))
    stalled.listen(8)
    url = f"127.0.0.1:{stalled.getsockname()[1]}/v1/traces"
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    server = make_server(model_repository=str(tmp_path / "models"),
                         trace_config=["mode=opentelemetry", "level=TIMESTAMPS", "rate=1",
                                       f"opentelemetry,url={url}"])
    settings = server.get_trace_settings()
    assert settings == {"trace_level": ["TIMESTAMPS"], "trace_rate": "1", "trace_count": "-1",
                        "trace_mode": "opentelemetry", "url": url,
                        "bsp_max_queue_size": "2048", "bsp_schedule_delay": "5000",
                        "bsp_max_export_batch_size": "512"}
    for _ in range(3):
        list(server.model("m").infer(inputs={"INPUT0": X}))
    begin = time.monotonic()
    server.stop()
    # One export attempt of at most two seconds, then the rest is dropped.
    assert time.monotonic() - begin < 8
    stalled.close()
