"""What Triton's protocol suites (qa/L0_http, qa/L0_shared_memory,
qa/L0_lifecycle) expect of the KServe HTTP frontend, with their texts and
statuses: BYTES element counts, raw binary bodies, --http-max-input-size,
errors on /generate_stream, model control and shared memory."""

from __future__ import annotations

import base64
import http.client
import json
import pathlib
import struct
from typing import Iterator

import numpy
import pytest

import conch
from conch.frontend import KServeHttp
from conftest import identity_config, write_model

QA_MODELS = pathlib.Path(__file__).parent / "qa_models"


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    repository = tmp_path_factory.mktemp("protocol")
    write_model(repository, "id_bytes", identity_config("TYPE_STRING"))
    write_model(repository, "id_fp32", identity_config("TYPE_FP32"))
    write_model(repository, "two_inputs", """
        backend: "add_sub"
        max_batch_size: 0
        input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] },
                { name: "INPUT1" data_type: TYPE_FP32 dims: [ 4 ] } ]
        output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] },
                 { name: "OUTPUT1" data_type: TYPE_FP32 dims: [ 4 ] } ]
    """)
    import shutil

    shutil.copytree(QA_MODELS / "generate_fails", repository / "generate_fails")
    server = conch.Server(model_repository=str(repository),
                          model_control_mode=conch.ModelControlMode.EXPLICIT,
                          startup_models=["id_bytes", "id_fp32", "two_inputs",
                                          "generate_fails"]).start(wait_until_ready=True)
    with KServeHttp(server, KServeHttp.Options(port=0, max_input_size=1 << 20,
                                               allow_client_shm=True)) as frontend:
        yield frontend.port
    server.stop()


def call(port: int, method: str, path: str, body: bytes = b"",
         headers: dict[str, str] | None = None,
         chunk: int = 0) -> tuple[int, str, bytes]:
    """(status, content type, body); with `chunk`, the body goes out in
    chunks of that many bytes."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        if chunk:
            connection.putrequest(method, path)
            for key, value in (headers or {}).items():
                connection.putheader(key, value)
            connection.putheader("Transfer-Encoding", "chunked")
            connection.endheaders()
            for i in range(0, len(body), chunk):
                part = body[i:i + chunk]
                connection.send(b"%x\r\n%s\r\n" % (len(part), part))
            connection.send(b"0\r\n\r\n")
        else:
            connection.request(method, path, body=body, headers=headers or {})
        reply = connection.getresponse()
        return reply.status, reply.getheader("Content-Type", ""), reply.read()
    finally:
        connection.close()


def error_of(reply: tuple[int, str, bytes]) -> str:
    return json.loads(reply[2])["error"]


def test_bytes_elements_are_counted_against_the_shape(port: int) -> None:
    data = b"".join(struct.pack("<I", len(s)) + s for s in (b"ab", b"cd"))
    header = json.dumps({"inputs": [{"name": "INPUT0", "shape": [3], "datatype": "BYTES",
                                     "parameters": {"binary_data_size": len(data)}}]}).encode()
    reply = call(port, "POST", "/v2/models/id_bytes/infer", header + data,
                 {"Inference-Header-Content-Length": str(len(header))})
    assert reply[0] == 400
    assert error_of(reply) == ("expected 3 string elements for inference input 'INPUT0' for "
                               "model 'id_bytes', got 2")
    for shape, expected in (([3], "expected 3 string elements for inference input 'INPUT0' "
                                  "for model 'id_bytes', got 2"),
                            ([1], "unexpected number of string elements 2 for inference input "
                                  "'INPUT0' for model 'id_bytes', expecting 1")):
        body = json.dumps({"inputs": [{"name": "INPUT0", "shape": shape, "datatype": "BYTES",
                                       "data": ["ab", "cd"]}]}).encode()
        reply = call(port, "POST", "/v2/models/id_bytes/infer", body)
        assert (reply[0], error_of(reply)) == (400, expected)


def test_byte_size_and_json_shape_texts(port: int) -> None:
    raw = numpy.arange(4, dtype=numpy.float32).tobytes()
    header = json.dumps({"inputs": [{"name": "INPUT0", "shape": [5], "datatype": "FP32",
                                     "parameters": {"binary_data_size": 16}}]}).encode()
    reply = call(port, "POST", "/v2/models/id_fp32/infer", header + raw,
                 {"Inference-Header-Content-Length": str(len(header))})
    assert (reply[0], error_of(reply)) == (
        400, "input byte size mismatch for input 'INPUT0' for model 'id_fp32'. Expected 20, got 16")
    body = json.dumps({"inputs": [{"name": "INPUT0", "shape": [5], "datatype": "FP32",
                                   "data": [1, 2]}]}).encode()
    reply = call(port, "POST", "/v2/models/id_fp32/infer", body)
    assert (reply[0], error_of(reply)) == (
        500, "Unable to parse 'data': Shape does not match true shape of 'data' field")


def test_a_raw_binary_body_may_be_chunked(port: int) -> None:
    raw = numpy.arange(4, dtype=numpy.float32).tobytes()
    for chunk in (0, 3):
        status, kind, body = call(port, "POST", "/v2/models/id_fp32/infer", raw,
                                  {"Inference-Header-Content-Length": "0"}, chunk=chunk)
        assert status == 200, body
        assert body.endswith(raw)
    reply = call(port, "POST", "/v2/models/two_inputs/infer", raw * 2,
                 {"Inference-Header-Content-Length": "0"}, chunk=5)
    assert (reply[0], error_of(reply)) == (
        400, "Raw request must only have 1 input (found 1) to be deduced but got 2 inputs in "
             "'two_inputs' model configuration")


def test_bodies_past_the_max_input_size(port: int) -> None:
    too_big = json.dumps({"inputs": [{"name": "INPUT0", "shape": [1], "datatype": "BYTES",
                                      "data": ["x" * (1 << 20)]}]}).encode()
    for chunk in (0, 1 << 16):
        status, _, body = call(port, "POST", "/v2/models/id_bytes/infer", too_big, chunk=chunk)
        message = json.loads(body)["error"]
        assert status == 400
        assert "Request JSON size" in message
        assert "exceeds the maximum allowed value" in message
        assert "Use --http-max-input-size to increase the limit" in message
    raw = bytes(1 << 20) + bytes(4)
    status, _, body = call(port, "POST", "/v2/models/id_fp32/infer", raw,
                           {"Inference-Header-Content-Length": "0"})
    assert status == 400 and "exceeds the maximum allowed value" in json.loads(body)["error"]


def test_generate_stream_sends_a_models_error_as_an_event(port: int) -> None:
    def stream(repetition: int, code: str = "INTERNAL") -> tuple[int, str, list]:
        body = json.dumps({"PROMPT": "hello", "REPETITION": repetition,
                           "parameters": {"ERROR_CODE": code}}).encode()
        status, kind, text = call(port, "POST", "/v2/models/generate_fails/generate_stream",
                                  body)
        events = [json.loads(chunk.removeprefix(b"data: ")) for chunk in text.split(b"\n\n")
                  if chunk]
        return status, kind, events

    status, kind, events = stream(1)
    assert (status, kind) == (200, "text/event-stream; charset=utf-8")
    assert events[0]["TEXT"] == "hello" and events[1:] == [{"error": "An Error Occurred"}]
    status, kind, events = stream(0)
    assert (status, kind, events) == (500, "text/event-stream; charset=utf-8",
                                      [{"error": "An Error Occurred"}])
    status, kind, events = stream(0, "UNAVAILABLE")
    assert (status, events) == (503, [{"error": "An Error Occurred"}])
    # Refused before it reaches the model: a plain JSON error.
    status, kind, body = call(port, "POST", "/v2/models/generate_fails/generate_stream",
                              json.dumps({"PROMPT": "hello"}).encode())
    assert (status, kind) == (400, "application/json")
    assert "expected 2 inputs but got 1" in json.loads(body)["error"]


def test_model_control_texts(port: int) -> None:
    reply = call(port, "POST", "/v2/repository/models/no_such_model/load")
    assert (reply[0], error_of(reply)) == (
        500, "failed to load 'no_such_model', failed to poll from model repository")
    reply = call(port, "POST", "/v2/repository/models/../load")
    assert reply[0] == 400
    assert error_of(reply) == ("load failed for model '..': at least one version must be "
                               "available under the version policy of model '..'")
    config = json.dumps({"backend": "identity", "max_batch_size": 0,
                         "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [-1]}],
                         "output": [{"name": "OUTPUT0", "data_type": "TYPE_FP32",
                                     "dims": [-1]}]})
    blob = base64.b64encode(b"weights").decode()
    reply = call(port, "POST", "/v2/repository/models/override/load",
                 json.dumps({"parameters": {"config": config,
                                            "file:/1/weights.bin": blob}}).encode())
    assert reply[0] == 200, reply
    reply = call(port, "POST", "/v2/repository/models/escape/load",
                 json.dumps({"parameters": {"config": config,
                                            "file:../1/weights.bin": blob}}).encode())
    assert reply[0] == 400
    assert error_of(reply).endswith("must stay within model directory.")


def test_an_output_named_twice_is_returned_once(port: int) -> None:
    body = json.dumps({"inputs": [{"name": "INPUT0", "shape": [1], "datatype": "FP32",
                                   "data": [1]}],
                       "outputs": [{"name": "OUTPUT0"}, {"name": "OUTPUT0"}]}).encode()
    status, _, text = call(port, "POST", "/v2/models/id_fp32/infer", body)
    assert status == 200, text
    assert [o["name"] for o in json.loads(text)["outputs"]] == ["OUTPUT0"]


def test_shared_memory_keys_and_regions_in_use(port: int) -> None:
    from multiprocessing import shared_memory

    def register(name: str, key: str, size: int = 64) -> tuple[int, str, bytes]:
        return call(port, "POST", f"/v2/systemsharedmemory/region/{name}/register",
                    json.dumps({"key": key, "offset": 0, "byte_size": size}).encode())

    for key in ("triton_python_backend_shm_region__my_test_shm_key",
                "/triton_python_backend_shm_region__my_test_shm_key"):
        reply = register("mine", key)
        assert (reply[0], error_of(reply)) == (
            400, f"cannot register shared memory region 'mine' with key '{key}' as the key "
                 "contains the reserved prefix 'triton_python_backend_shm_region_'")
    reply = register("slashes", "///")
    assert reply[0] == 400 and "names no shared memory object" in error_of(reply)
    segment = shared_memory.SharedMemory(create=True, size=64)
    try:
        reply = register("small", "/" + segment.name, 65)
        assert reply[0] == 400
        assert error_of(reply).startswith(
            "failed to register shared memory region 'small': invalid args")
    finally:
        segment.close()
        segment.unlink()
