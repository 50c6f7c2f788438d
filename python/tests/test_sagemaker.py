"""The SageMaker frontend as SageMaker's hosting contract and Triton's
SageMaker frontend use it: /ping, /invocations with JSON and binary
bodies, and the answers to what it does not serve."""

from __future__ import annotations

import json
import pathlib
from typing import Iterator

import numpy
import pytest
import tritonclient.http as httpclient

import conch
from conch.frontend import SageMaker
from conftest import http_call as call, identity_config, write_model

BINARY = "application/vnd.sagemaker-triton.binary+json;json-header-size="


@pytest.fixture
def server(tmp_path: pathlib.Path, make_server) -> conch.Server:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    return make_server(model_repository=str(tmp_path / "models"))


@pytest.fixture
def port(server: conch.Server) -> Iterator[int]:
    with SageMaker(server, SageMaker.Options(port=0, thread_count=1,
                                             default_model="m")) as frontend:
        yield frontend.port


def test_ping_answers_readiness(port: int) -> None:
    status, _, body = call(port, "GET", "/ping")
    assert (status, body) == (200, b"")
    status, _, body = call(port, "POST", "/ping", b"")
    assert status == 405 and json.loads(body) == {"error": "Method Not Allowed"}


def test_invocations_run_the_default_model_with_a_json_body(port: int) -> None:
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [3],
                        "data": [1.0, 2.0, 3.0]}]}
    status, headers, reply = call(port, "POST", "/invocations", json.dumps(body).encode(),
                                  {"Content-Type": "application/json"})
    assert status == 200, reply
    assert headers["Content-Type"] == "application/json"
    answer = json.loads(reply)
    assert answer["model_name"] == "m"
    assert answer["outputs"][0]["data"] == [1.0, 2.0, 3.0]


def test_invocations_take_and_give_binary_tensors_by_content_type(port: int) -> None:
    data = numpy.arange(4, dtype=numpy.float32)
    tensor = httpclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(data, binary_data=True)
    output = httpclient.InferRequestedOutput("OUTPUT0", binary_data=True)
    body, json_size = httpclient.InferenceServerClient.generate_request_body(
        [tensor], outputs=[output])
    # A KServe header length is not SageMaker's: the content type says it.
    status, headers, reply = call(port, "POST", "/invocations", body,
                                  {"Content-Type": f"{BINARY}{json_size}",
                                   "Inference-Header-Content-Length": "1"})
    assert status == 200, reply
    content_type = headers["Content-Type"]
    assert content_type.startswith(BINARY) and "Inference-Header-Content-Length" not in headers
    result = httpclient.InferenceServerClient.parse_response_body(
        reply, header_length=int(content_type[len(BINARY):]))
    assert numpy.array_equal(result.as_numpy("OUTPUT0"), data)


def test_what_it_refuses(port: int, server: conch.Server) -> None:
    status, _, body = call(port, "POST", "/invocations", b"{}",
                           {"Content-Type": f"{BINARY}999"})
    assert status == 400
    assert "inference header size should be in range (0, 2), got: 999" in body.decode()
    status, _, body = call(port, "POST", "/invocations", b"{}",
                           {"Content-Type": f"text/plain; {BINARY}2"})
    assert status == 400 and "expect MIME type for binary data starts with" in body.decode()
    status, _, body = call(port, "GET", "/v2/health/ready")
    assert (status, body) == (400, b"")
    status, _, _ = call(port, "GET", "/invocations")
    assert status == 405
    with SageMaker(server, SageMaker.Options(port=0, default_model="nope")) as other:
        status, _, body = call(other.port, "POST", "/invocations", b"{}",
                               {"Content-Type": "application/json"})
        assert status != 200 and "nope" in body.decode()


def test_invocations_serve_generate_and_generate_stream(server: conch.Server) -> None:
    body = json.dumps({"INPUT0": [1.0, 2.0]}).encode()
    options = SageMaker.Options(port=0, thread_count=1, default_model="m",
                                inference_type="generate")
    with SageMaker(server, options) as frontend:
        status, headers, reply = call(frontend.port, "POST", "/invocations", body)
        assert status == 200, reply
        assert headers["Content-Type"] == "application/json"
        assert json.loads(reply)["OUTPUT0"] == [1.0, 2.0]
    options.inference_type = "generate_stream"
    with SageMaker(server, options) as frontend:
        status, headers, reply = call(frontend.port, "POST", "/invocations", body,
                                      {"Accept": "text/event-stream"})
        assert status == 200, reply
        assert headers["Content-Type"].startswith("text/event-stream")
        events = [line for line in reply.decode().splitlines() if line.startswith("data: ")]
        assert [json.loads(e[6:])["OUTPUT0"] for e in events] == [[1.0, 2.0]]
    options.inference_type = "embed"
    with pytest.raises(conch.InvalidArgumentError,
                       match=r"Server has invalid inference type 'embed'\. Must be one of: "
                             r"infer, generate, generate_stream\."):
        SageMaker(server, options).start()


def test_the_default_model_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGEMAKER_TRITON_DEFAULT_MODEL_NAME", "densenet")
    monkeypatch.setenv("SAGEMAKER_TRITON_PING_MODE", "live")
    monkeypatch.setenv("SAGEMAKER_TRITON_INFERENCE_TYPE", "generate")
    options = SageMaker.Options()
    assert (options.default_model, options.ping_mode, options.port) == ("densenet", "live", 8080)
    assert options.inference_type == "generate"
