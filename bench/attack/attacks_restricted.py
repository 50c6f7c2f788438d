"""Restricted groups and the routes around them (finding 8): with every
group behind a key, no route of any frontend may answer without it — not
SageMaker's, not Vertex AI's redirects, not gRPC health, not a path spelled
another way.

Modelled on CVE-2026-24206/24207 (authentication bypass through an
alternate path or channel, CWE-288)."""

from __future__ import annotations

import json

import grpc
import numpy
from tritonclient.grpc import service_pb2

import wire
from harness import Context, Fail, attack

CLASS = "CVE-2026-24206/24207 restriction bypass by an alternate route; finding 8"
KEY, VALUE = "x-attack-key", "secret"
GRPC_KEY = f"triton-grpc-protocol-{KEY}"

INFER_BODY = json.dumps(wire.infer_json(range(16))).encode()
SHM_BODY = b'{"key": "/conch-attack-restricted", "offset": 0, "byte_size": 64}'
CUDA_BODY = b'{"raw_handle": {"b64": "AAAA"}, "device_id": 0, "byte_size": 64}'

KSERVE = [
    ("GET", "/v2/health/live", b""), ("GET", "/v2/health/ready", b""), ("GET", "/v2", b""),
    ("GET", "/v2/models/identity_fp32", b""), ("GET", "/v2/models/identity_fp32/ready", b""),
    ("GET", "/v2/models/identity_fp32/versions/1/ready", b""),
    ("GET", "/v2/models/identity_fp32/config", b""), ("GET", "/v2/models/identity_fp32/stats", b""),
    ("GET", "/v2/models/stats", b""),
    ("POST", "/v2/models/identity_fp32/infer", INFER_BODY),
    ("POST", "/v2/models/identity_fp32/versions/1/infer", INFER_BODY),
    ("POST", "/v2/models/identity_fp32/generate", b'{"INPUT0": [1]}'),
    ("POST", "/v2/models/identity_fp32/generate_stream", b'{"INPUT0": [1]}'),
    ("POST", "/v2/repository/index", b"{}"),
    ("POST", "/v2/repository/models/identity_extra/load", b"{}"),
    ("POST", "/v2/repository/models/identity_fp32/unload", b"{}"),
    ("GET", "/v2/logging", b""), ("POST", "/v2/logging", b"{}"),
    ("GET", "/v2/trace/setting", b""), ("POST", "/v2/trace/setting", b"{}"),
    ("GET", "/v2/models/identity_fp32/trace/setting", b""),
    ("POST", "/v2/models/identity_fp32/trace/setting", b"{}"),
    ("GET", "/v2/systemsharedmemory/status", b""),
    ("GET", "/v2/systemsharedmemory/region/r/status", b""),
    ("POST", "/v2/systemsharedmemory/region/r/register", SHM_BODY),
    ("POST", "/v2/systemsharedmemory/unregister", b""),
    ("GET", "/v2/cudasharedmemory/status", b""),
    ("POST", "/v2/cudasharedmemory/region/r/register", CUDA_BODY),
    ("POST", "/v2/cudasharedmemory/unregister", b""),
]

SAGEMAKER = [
    ("GET", "/ping", b""), ("POST", "/invocations", INFER_BODY), ("GET", "/models", b""),
    ("POST", "/models", b'{"model_name": "m", "url": "/nonexistent"}'),
    ("GET", "/models/identity_fp32", b""), ("POST", "/models/identity_fp32/invoke", INFER_BODY),
    ("DELETE", "/models/identity_fp32", b""),
]

REDIRECTS = [
    "v2", "v2/health/live", "v2/health/ready", "v2/models/stats", "v2/models/identity_fp32",
    "v2/models/identity_fp32/ready", "v2/models/identity_fp32/config",
    "v2/models/identity_fp32/stats", "v2/models/identity_fp32/versions/1/ready",
    "v2/models/identity_fp32/infer", "v2/models/identity_fp32/versions/1/infer",
    "v2/systemsharedmemory/status", "v2/systemsharedmemory/region/r/register",
    "v2/systemsharedmemory/unregister", "v2/cudasharedmemory/status",
    "v2/cudasharedmemory/region/r/register", "v2/repository/index",
    "v2/repository/models/identity_extra/load", "v2/repository/models/identity_fp32/unload",
    "metrics", "/metrics", "//v2/repository/index",
]


def _refused(answer: wire.Answer, what: str) -> None:
    if answer.status != 403:
        raise Fail(f"{what} without the key: {answer.brief()}, expected 403")


@attack("restricted_kserve_http", CLASS, server="restricted")
def kserve_routes(ctx: Context) -> None:
    ctx.need_flag("--http-restricted-api")
    for method, path, body in KSERVE:
        _refused(wire.request(ctx.server.http, method, path, body), f"{method} {path}")
        _refused(wire.request(ctx.server.http, method, path, body, {KEY: VALUE + "x"}),
                 f"{method} {path} with a wrong value")
    for method, path, body in (("GET", "/v2/health/ready", b""),
                               ("POST", "/v2/repository/index", b"{}")):
        answer = wire.request(ctx.server.http, method, path, body, {KEY.upper(): VALUE})
        if answer.status != 200:
            raise Fail(f"{method} {path} with the key: {answer.brief()}")


@attack("restricted_other_spellings", CLASS + " (the same route spelled otherwise)",
        server="restricted")
def spellings(ctx: Context) -> None:
    ctx.need_flag("--http-restricted-api")
    for method, path in (("POST", "/v2/%72epository/index"), ("POST", "//v2/repository/index"),
                         ("POST", "/v2/repository/index/"), ("POST", "/v2/./repository/index"),
                         ("POST", "/v2/x/../repository/index"), ("POST", "/V2/repository/index"),
                         ("POST", "/v2/repository/index?x=1"), ("POST", "/v2/repository%2Findex"),
                         ("POST", "http://conch/v2/repository/index"),
                         ("POST", "/v2/repository/index;x"), ("GET", "/v2/health//live"),
                         ("GET", "/v2/health/live/"), ("HEAD", "/v2/health/live"),
                         ("OPTIONS", "/v2/health/live"), ("GET", "/v2/health/%6Cive"),
                         ("POST", "/v2/models/identity_fp32/%69nfer"),
                         ("GET", "/v2/models/identity_fp32/versions/01/ready")):
        answer = wire.request(ctx.server.http, method, path, b"{}" if method == "POST" else b"")
        if 200 <= answer.status < 300:
            raise Fail(f"{method} {path} without the key: {answer.brief()}")
    # The key in a chunked body's trailer is no header.
    raw = (b"POST /v2/repository/index HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
           b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n" + f"{KEY}: {VALUE}".encode()
           + b"\r\n\r\n")
    _refused(wire.exchange(ctx.server.http, raw), "the key in a trailer")


@attack("restricted_sagemaker", CLASS + " (SageMaker, multi-model routes included)",
        server="restricted")
def sagemaker_routes(ctx: Context) -> None:
    ctx.need_flag("--http-restricted-api")
    port = ctx.server.port("SageMaker")
    for method, path, body in SAGEMAKER:
        _refused(wire.request(port, method, path, body), f"SageMaker {method} {path}")


@attack("restricted_vertex_ai", CLASS + " (Vertex AI, every redirect)", server="restricted")
def vertex_routes(ctx: Context) -> None:
    ctx.need_flag("--http-restricted-api")
    port = ctx.server.port("Vertex AI")
    _refused(wire.request(port, "GET", "/health"), "Vertex AI GET /health")
    _refused(wire.request(port, "POST", "/predict", INFER_BODY), "Vertex AI POST /predict")
    for target in REDIRECTS:
        answer = wire.request(port, "POST", "/predict", SHM_BODY if "register" in target else b"{}",
                              {"X-Vertex-Ai-Triton-Redirect": target})
        if answer.status == 400 and not answer.body:
            continue  # a redirect Vertex AI does not know: nothing served
        _refused(answer, f"Vertex AI redirect to {target}")


def _grpc_calls() -> list[tuple[str, object]]:
    infer = wire.grpc_infer_request("identity_fp32", numpy.zeros((1, 16), numpy.float32))
    s = service_pb2
    return [
        ("ServerLive", s.ServerLiveRequest()), ("ServerReady", s.ServerReadyRequest()),
        ("ModelReady", s.ModelReadyRequest(name="identity_fp32")),
        ("ServerMetadata", s.ServerMetadataRequest()),
        ("ModelMetadata", s.ModelMetadataRequest(name="identity_fp32")),
        ("ModelInfer", infer), ("ModelConfig", s.ModelConfigRequest(name="identity_fp32")),
        ("ModelStatistics", s.ModelStatisticsRequest(name="identity_fp32")),
        ("RepositoryIndex", s.RepositoryIndexRequest()),
        ("RepositoryModelLoad", s.RepositoryModelLoadRequest(model_name="identity_extra")),
        ("RepositoryModelUnload", s.RepositoryModelUnloadRequest(model_name="identity_fp32")),
        ("SystemSharedMemoryStatus", s.SystemSharedMemoryStatusRequest()),
        ("SystemSharedMemoryRegister", s.SystemSharedMemoryRegisterRequest(
            name="r", key="/conch-attack-restricted", byte_size=64)),
        ("SystemSharedMemoryUnregister", s.SystemSharedMemoryUnregisterRequest()),
        ("CudaSharedMemoryStatus", s.CudaSharedMemoryStatusRequest()),
        ("CudaSharedMemoryRegister", s.CudaSharedMemoryRegisterRequest(
            name="r", raw_handle=bytes(64), byte_size=64)),
        ("CudaSharedMemoryUnregister", s.CudaSharedMemoryUnregisterRequest()),
        ("TraceSetting", s.TraceSettingRequest()), ("LogSettings", s.LogSettingsRequest()),
        ("/grpc.health.v1.Health/Check", b""),
    ]


def _grpc_refused(reply: wire.Reply, what: str) -> None:
    if reply.code != grpc.StatusCode.UNAVAILABLE or "restricted" not in reply.details:
        raise Fail(f"{what} without the key: {reply.brief()}, expected UNAVAILABLE "
                   "'This protocol is restricted ...'")


@attack("restricted_grpc", CLASS + " (every RPC, grpc.health.v1 included)", server="restricted")
def grpc_routes(ctx: Context) -> None:
    ctx.need_flag("--grpc-restricted-protocol")
    port = ctx.server.grpc
    for method, message in _grpc_calls():
        _grpc_refused(wire.call(port, method, message), f"gRPC {method}")
        _grpc_refused(wire.call(port, method, message, [(GRPC_KEY, VALUE + "x")]),
                      f"gRPC {method} with a wrong value")
        # The HTTP header name is not the gRPC key.
        _grpc_refused(wire.call(port, method, message, [(KEY, VALUE)]),
                      f"gRPC {method} with the HTTP header's name")
    stream = wire.channel(port).stream_stream(
        "/inference.GRPCInferenceService/ModelStreamInfer",
        request_serializer=service_pb2.ModelInferRequest.SerializeToString,
        response_deserializer=service_pb2.ModelStreamInferResponse.FromString)
    infer = wire.grpc_infer_request("identity_fp32", numpy.zeros((1, 16), numpy.float32))
    try:
        for answer in stream(iter([infer]), timeout=10):
            if not answer.error_message:
                raise Fail("gRPC ModelStreamInfer without the key answered an inference")
    except grpc.RpcError as e:
        if e.code() != grpc.StatusCode.UNAVAILABLE or "restricted" not in (e.details() or ""):
            raise Fail(f"gRPC ModelStreamInfer without the key: {e.code().name} {e.details()!r}")
    for method in ("ServerLive", "/grpc.health.v1.Health/Check"):
        message = dict(_grpc_calls())[method]
        reply = wire.call(port, method, message, [(GRPC_KEY, VALUE)])
        if reply.code != grpc.StatusCode.OK:
            raise Fail(f"gRPC {method} with the key: {reply.brief()}")


def _listening(port: int) -> set[str]:
    """The local addresses a TCP socket listens on `port` at."""
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            rows = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            address, _, hex_port = fields[1].partition(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:
                raw = bytes.fromhex(address)
                if width == 8:
                    found.add(".".join(str(b) for b in reversed(raw)))
                else:
                    found.add("any6" if not any(raw) else raw.hex())
    return found


@attack("cloud_frontends_address", "finding 8: SageMaker and Vertex AI always listened on "
        "0.0.0.0", server="restricted")
def cloud_address(ctx: Context) -> None:
    for flag in ("--sagemaker-address", "--vertex-ai-address"):
        ctx.need_flag(flag)
    for frontend in ("SageMaker", "Vertex AI"):
        where = _listening(ctx.server.port(frontend))
        if where != {"127.0.0.1"}:
            raise Fail(f"{frontend} started with its address 127.0.0.1 listens on {where}")
