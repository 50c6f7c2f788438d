"""Locking a `conch serve` deployment down: --http-restricted-api and
--grpc-restricted-protocol (Triton's syntax and answers, over every frontend
and route), --allow-client-shm (off by default, as Triton's server ships),
and the addresses of the cloud frontends."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request

import grpc
import numpy
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
import tritonclient.utils.shared_memory as shm
from tritonclient.utils import InferenceServerException

from conch._serve_restrictions import restricted_features
from conftest import EXAMPLE_REPOSITORY
from test_serve import DEADLINE_S, GRPC, LISTENING, environment, serve  # noqa: F401 (fixture)

SHM_DISABLED = ("Client shared memory is disabled. Start the server with "
                "'--allow-client-shm=true' to enable.")
INFER_BODY = json.dumps({"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1, 16],
                                     "data": list(range(16))}]}).encode()


def http(method: str, url: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


# -- the flags' syntax, as Triton reads it -----------------------------------------------


def test_restricted_groups_are_read_as_triton_reads_them() -> None:
    features = restricted_features(["health,inference:infer-key=a:b=c", "statistics:k=v"],
                                   "http-restricted-api", "api")
    groups = features.get_feature_groups()
    assert [(g.key, g.value, [f.value for f in g.features]) for g in groups] == [
        ("infer-key", "a:b=c", ["health", "inference"]), ("k", "v", ["statistics"])]
    assert not restricted_features([], "http-restricted-api", "api")


@pytest.mark.parametrize("arg", ["health", "health:key", ":key=value", "health:=value",
                                 "health:key=", "health=key:value"])
def test_a_malformed_group_gets_tritons_text(arg: str) -> None:
    with pytest.raises(ValueError) as error:
        restricted_features([arg], "http-restricted-api", "api")
    assert str(error.value) == ("--http-restricted-api option format is "
                                f"'<config name>:<setting>=<value>'. Got {arg}")


def test_an_unknown_or_repeated_group_gets_tritons_text() -> None:
    with pytest.raises(ValueError, match=r"^unknown restricted api 'nope'$"):
        restricted_features(["health,nope:k=v"], "http-restricted-api", "api")
    with pytest.raises(ValueError, match=r"^unknown restricted protocol ''$"):
        restricted_features(["health,:k=v"], "grpc-restricted-protocol", "protocol")
    with pytest.raises(ValueError, match=r"^restricted protocol 'health' can not be specified "
                                         r"in multiple config groups$"):
        restricted_features(["health:k=v", "metadata,health:k2=v"], "grpc-restricted-protocol",
                            "protocol")
    with pytest.raises(ValueError, match=r"^restricted api 'trace' can not be specified"):
        restricted_features(["trace,trace:k=v"], "http-restricted-api", "api")


@pytest.mark.parametrize("flags, said", [
    (["--http-restricted-api", "inference"],
     "--http-restricted-api option format is '<config name>:<setting>=<value>'. Got inference"),
    (["--grpc-restricted-protocol", "health:a=1", "--grpc-restricted-protocol", "health:b=2"],
     "restricted protocol 'health' can not be specified in multiple config groups"),
])
def test_serve_refuses_a_bad_restriction(flags: list[str], said: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "conch", "serve", "--model-repository", str(EXAMPLE_REPOSITORY),
         *flags], capture_output=True, text=True, timeout=DEADLINE_S)
    assert done.returncode == 2
    assert said in done.stderr


# -- a locked-down deployment ------------------------------------------------------------


def grpc_health(port: int, metadata: tuple = ()) -> tuple[grpc.StatusCode, bytes]:
    """grpc.health.v1.Health/Check's status code and response bytes."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        check = channel.unary_unary("/grpc.health.v1.Health/Check",
                                    request_serializer=lambda b: b,
                                    response_deserializer=lambda b: b)
        try:
            return grpc.StatusCode.OK, check(b"", metadata=metadata, timeout=30)
        except grpc.RpcError as e:
            return e.code(), e.details().encode()


def listening_address(port: int) -> str:
    """The IPv4 address a socket listening on `port` is bound to (/proc/net/tcp)."""
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if int(hex_port, 16) == port and state == "0A":  # LISTEN
            return ".".join(str(int(address[i:i + 2], 16)) for i in (6, 4, 2, 0))
    raise AssertionError(f"nothing listens on {port}")


def test_a_locked_down_deployment(serve) -> None:
    sagemaker_line = re.compile(r"SageMaker listening on (\S+):(\d+) ")
    vertex_line = re.compile(r"Vertex AI listening on (\S+):(\d+) ")
    with environment(SAGEMAKER_TRITON_DEFAULT_MODEL_NAME="identity_fp32",
                     AIP_HEALTH_ROUTE="/health", AIP_PREDICT_ROUTE="/predict"):
        process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                        "--allow-metrics", "false",
                        "--http-restricted-api", "inference,statistics:infer-key=secret",
                        "--http-restricted-api", "health:health-key=ok",
                        "--grpc-restricted-protocol", "health,model-repository:admin=yes",
                        "--allow-sagemaker", "--sagemaker-port", "0",
                        "--sagemaker-address", "127.0.0.1",
                        "--allow-vertex-ai", "--vertex-ai-port", "0",
                        "--vertex-ai-address", "127.0.0.1",
                        "--vertex-ai-default-model", "identity_fp32")
    http_port = int(process.wait_for(LISTENING).group(1))
    grpc_port = int(process.wait_for(GRPC).group(1))
    sagemaker = process.wait_for(sagemaker_line)
    vertex = process.wait_for(vertex_line)
    assert sagemaker.group(1) == vertex.group(1) == "127.0.0.1"
    sagemaker_port, vertex_port = int(sagemaker.group(2)), int(vertex.group(2))
    assert listening_address(sagemaker_port) == "127.0.0.1"
    assert listening_address(vertex_port) == "127.0.0.1"

    # KServe HTTP: 403 with Triton's text, 200 with the header.
    base = f"http://127.0.0.1:{http_port}"
    infer = f"{base}/v2/models/identity_fp32/infer"
    assert http("POST", infer, INFER_BODY) == (
        403, b'{"error":"This API is restricted, expecting header \'infer-key\'"}')
    assert http("POST", infer, INFER_BODY, {"infer-key": "secret"})[0] == 200
    assert http("GET", f"{base}/v2/models/stats")[0] == 403
    assert http("GET", f"{base}/v2/health/ready")[0] == 403
    assert http("GET", f"{base}/v2/health/ready", headers={"Health-Key": "ok"})[0] == 200
    assert http("GET", f"{base}/v2/models/identity_fp32/config")[0] == 200  # unrestricted

    # The cloud frontends are held to the same groups, every route of them.
    smk = f"http://127.0.0.1:{sagemaker_port}"
    assert http("GET", f"{smk}/ping")[0] == 403
    assert http("POST", f"{smk}/invocations", INFER_BODY)[0] == 403
    assert http("POST", f"{smk}/invocations", INFER_BODY, {"infer-key": "secret"})[0] == 200
    vtx = f"http://127.0.0.1:{vertex_port}"
    assert http("GET", f"{vtx}/health")[0] == 403
    assert http("POST", f"{vtx}/predict", INFER_BODY)[0] == 403
    metrics = {"X-Vertex-Ai-Triton-Redirect": "metrics"}
    assert http("POST", f"{vtx}/predict", b"", metrics)[0] == 403
    status, text = http("POST", f"{vtx}/predict", b"", {**metrics, "infer-key": "secret"})
    assert status == 200 and b"nv_inference_count" in text

    # gRPC: UNAVAILABLE with Triton's text, grpc.health.v1 included.
    code, details = grpc_health(grpc_port)
    assert code == grpc.StatusCode.UNAVAILABLE
    assert details == b"This protocol is restricted, expecting header 'triton-grpc-protocol-admin'"
    assert grpc_health(grpc_port, (("triton-grpc-protocol-admin", "yes"),)) == (
        grpc.StatusCode.OK, b"\x08\x01")  # SERVING
    client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc_port}")
    try:
        with pytest.raises(InferenceServerException, match="triton-grpc-protocol-admin"):
            client.get_model_repository_index()
        tensor = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_data_from_numpy(numpy.zeros((1, 16), dtype=numpy.float32))
        assert client.infer("identity_fp32", [tensor]) is not None  # not restricted over gRPC

        # Client shared memory is off: register is refused, over both protocols.
        with pytest.raises(InferenceServerException, match=re.escape(SHM_DISABLED)) as error:
            client.register_system_shared_memory("r", "/conch_lockdown", 64)
        assert error.value.status() == "StatusCode.UNIMPLEMENTED"
    finally:
        client.close()
    status, body = http("POST", f"{base}/v2/systemsharedmemory/region/r/register",
                        json.dumps({"key": "/conch_lockdown", "offset": 0,
                                    "byte_size": 64}).encode())
    assert (status, json.loads(body)) == (501, {"error": SHM_DISABLED})
    assert http("GET", f"{base}/v2/systemsharedmemory/status") == (200, b"[]")

    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_allow_client_shm_lets_clients_use_shared_memory(serve) -> None:
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--allow-grpc", "false", "--allow-metrics", "false", "--allow-client-shm")
    port = int(process.wait_for(LISTENING).group(1))
    client = httpclient.InferenceServerClient(f"127.0.0.1:{port}")
    key = f"/conch_lockdown_{process.process.pid}"
    handle = shm.create_shared_memory_region("in", key, 64)
    try:
        data = numpy.arange(16, dtype=numpy.float32).reshape(1, 16)
        shm.set_shared_memory_region(handle, [data])
        client.register_system_shared_memory("in", key, 64)
        tensor = httpclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_shared_memory("in", 64)
        out = client.infer("identity_fp32", [tensor]).as_numpy("OUTPUT0")
        assert out.ravel().tolist() == data.ravel().tolist()
        client.unregister_system_shared_memory()
    finally:
        shm.destroy_shared_memory_region(handle)
        client.close()
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_http_header_forward_pattern_forwards_headers_within_the_parameter_limit(serve) -> None:
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--allow-grpc", "false", "--allow-metrics", "false",
                    "--http-header-forward-pattern", "^x-fwd-")
    port = int(process.wait_for(LISTENING).group(1))
    url = f"http://127.0.0.1:{port}/v2/models/identity_fp32/infer"
    status, _ = http("POST", url, INFER_BODY, {"x-fwd-tenant": "blue"})
    assert status == 200
    # Each forwarded header is a parameter: past the limit, the request is refused.
    many = {f"x-fwd-{i}": "v" for i in range(1100)}
    status, body = http("POST", url, INFER_BODY, many)
    assert status == 400, body
    assert b"more than the limit of 1024" in body
    # Headers the pattern does not match are no parameters.
    status, _ = http("POST", url, INFER_BODY, {f"x-other-{i}": "v" for i in range(1100)})
    assert status == 200
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0
