"""The Vertex AI frontend as Vertex AI and Triton's Vertex AI frontend use
it: the health and predict routes, binary bodies, the redirect header and
its table, the default model rule, and the answers to what it refuses."""

from __future__ import annotations

import json
import pathlib
from typing import Iterator

import numpy
import pytest
import tritonclient.http as httpclient

import conch
from conch.frontend import VertexAI
from conftest import http_call as call, identity_config, write_model

BINARY = "application/vnd.vertex-ai-triton.binary+json;json-header-size="
ROUTES = {"health_route": "/v1/endpoints/[0-9]+/health",
          "predict_route": "/v1/endpoints/[0-9]+:predict"}


@pytest.fixture
def server(tmp_path: pathlib.Path, make_server) -> conch.Server:
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    return make_server(model_repository=str(tmp_path / "models"))


@pytest.fixture
def port(server: conch.Server) -> Iterator[int]:
    with VertexAI(server, VertexAI.Options(port=0, thread_count=1, **ROUTES)) as frontend:
        yield frontend.port


JSON_BODY = json.dumps({"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2],
                                    "data": [1.0, 2.0]}]}).encode()


def test_health_answers_readiness(port: int) -> None:
    assert call(port, "GET", "/v1/endpoints/7/health")[:1] == (200,)
    assert call(port, "POST", "/v1/endpoints/7/health", b"")[0] == 405


def test_predict_runs_the_one_model(port: int) -> None:
    status, headers, reply = call(port, "POST", "/v1/endpoints/7:predict", JSON_BODY,
                                  {"Content-Type": "application/json"})
    assert status == 200, reply
    assert json.loads(reply)["outputs"][0]["data"] == [1.0, 2.0]
    assert call(port, "GET", "/v1/endpoints/7:predict")[0] == 405
    assert call(port, "GET", "/v2/health/ready")[:3:2] == (400, b"")


def test_predict_takes_binary_tensors_by_content_type(port: int) -> None:
    data = numpy.arange(4, dtype=numpy.float32)
    tensor = httpclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(data, binary_data=True)
    body, json_size = httpclient.InferenceServerClient.generate_request_body(
        [tensor], outputs=[httpclient.InferRequestedOutput("OUTPUT0", binary_data=True)])
    status, headers, reply = call(port, "POST", "/v1/endpoints/7:predict", body,
                                  {"Content-Type": f"{BINARY}{json_size}"})
    assert status == 200, reply
    # Vertex AI's answer keeps KServe's form, as Triton's does.
    assert headers["Content-Type"] == "application/octet-stream"
    result = httpclient.InferenceServerClient.parse_response_body(
        reply, header_length=int(headers["Inference-Header-Content-Length"]))
    assert numpy.array_equal(result.as_numpy("OUTPUT0"), data)


def test_the_redirect_header_reaches_kserve_endpoints(port: int) -> None:
    def redirect(target: str, body: bytes = b"") -> tuple[int, bytes]:
        status, _, reply = call(port, "POST", "/v1/endpoints/7:predict", body,
                                {"X-Vertex-Ai-Triton-Redirect": target,
                                 "Content-Type": "application/json"})
        return status, reply

    status, reply = redirect("v2/models/m/infer", JSON_BODY)
    assert status == 200 and json.loads(reply)["model_name"] == "m"
    assert redirect("v2/models/m/ready") == (200, b"")
    status, reply = redirect("v2/models/m")
    assert status == 200 and json.loads(reply)["name"] == "m"
    status, reply = redirect("v2/repository/index", b"{}")
    assert status == 200 and json.loads(reply)[0]["name"] == "m"
    assert redirect("v2/health/live")[0] == 200
    assert redirect("v2/models/m/trace/setting") == (400, b"")
    assert redirect("elsewhere") == (400, b"")


def test_a_long_redirect_is_answered(port: int) -> None:
    # std::regex recursed per character: a 30 KB redirect ended the process.
    def redirect(target: str, body: bytes = b"") -> int:
        return call(port, "POST", "/v1/endpoints/7:predict", body,
                    {"X-Vertex-Ai-Triton-Redirect": target,
                     "Content-Type": "application/json"})[0]

    assert redirect("v2/models/" + "m" * 60_000 + "/x") == 400
    assert redirect("/" * 60_000) == 400
    assert redirect("v2/" * 20_000) == 400
    # A long model name is still a name: KServe answers for it.
    assert redirect("v2/models/" + "m" * 60_000 + "/ready") == 404
    assert redirect("v2/models/m/infer", JSON_BODY) == 200
    assert call(port, "POST", "/v1/endpoints/" + "7" * 60_000 + ":predict", JSON_BODY,
                {"Content-Type": "application/json"})[0] == 200


def test_the_metrics_redirect_serves_the_servers_metrics(port: int) -> None:
    status, _, _ = call(port, "POST", "/v1/endpoints/1:predict", JSON_BODY)
    assert status == 200
    status, headers, reply = call(port, "POST", "/v1/endpoints/1:predict", b"",
                                  {"X-Vertex-Ai-Triton-Redirect": "metrics"})
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert 'nv_inference_request_success{model="m",version="1"} 1' in reply.decode()


def test_the_shapes_the_vertex_ai_sdk_sends(port: int) -> None:
    # Endpoint.raw_predict(body, headers) passes both through; Vertex AI
    # forwards header names in lower case.
    status, _, reply = call(port, "POST", "/v1/endpoints/1:predict", JSON_BODY,
                            {"content-type": "application/json",
                             "x-vertex-ai-triton-redirect": "v2/models/m/infer"})
    assert status == 200 and json.loads(reply)["outputs"][0]["data"] == [1.0, 2.0]
    # Endpoint.predict(instances=...) sends {"instances": [...]}, which is
    # not a KServe request: a clear 400, as for any malformed body.
    status, _, reply = call(port, "POST", "/v1/endpoints/1:predict",
                            json.dumps({"instances": [[1.0, 2.0]]}).encode(),
                            {"Content-Type": "application/json"})
    assert status == 400 and "Unable to parse 'inputs'" in json.loads(reply)["error"]


def test_the_default_model_rule(tmp_path: pathlib.Path, make_server) -> None:
    write_model(tmp_path / "two", "a", identity_config("TYPE_FP32"))
    write_model(tmp_path / "two", "b", identity_config("TYPE_FP32"))
    server = make_server(model_repository=str(tmp_path / "two"))
    with pytest.raises(conch.InvalidArgumentError,
                       match="Expect the model repository contains only a single model"):
        VertexAI(server, VertexAI.Options(port=0, **ROUTES)).start()
    with pytest.raises(conch.InvalidArgumentError, match="Expect the default model 'c' is loaded"):
        VertexAI(server, VertexAI.Options(port=0, default_model="c", **ROUTES)).start()
    with pytest.raises(conch.InvalidArgumentError,
                       match="API_PREDICT_ROUTE is not defined for Vertex AI endpoint"):
        VertexAI(server, VertexAI.Options(port=0, default_model="a",
                                          health_route="/h", predict_route="")).start()
    with VertexAI(server, VertexAI.Options(port=0, default_model="b", **ROUTES)) as frontend:
        status, _, reply = call(frontend.port, "POST", "/v1/endpoints/1:predict", JSON_BODY)
        assert status == 200 and json.loads(reply)["model_name"] == "b"


def test_options_follow_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIP_HTTP_PORT", "9090")
    monkeypatch.setenv("AIP_HEALTH_ROUTE", "/health")
    monkeypatch.setenv("AIP_PREDICT_ROUTE", "/predict")
    options = VertexAI.Options()
    assert (options.port, options.health_route, options.predict_route) == (
        9090, "/health", "/predict")
