"""ONNX models through the in-process API: the example string identity model,
batching, auto-completion, and the failures a user can meet (onnxruntime
missing, a bad model file, a model that rejects a request)."""

from __future__ import annotations

import sys

import numpy
import pytest

import conch
from conftest import write_model
from onnx_models import add_sub, add_sub_batch

ADD_SUB_CONFIG = """
    platform: "onnxruntime_onnx"
    max_batch_size: 8
    input [
      { name: "A" data_type: TYPE_FP32 dims: [ 4 ] },
      { name: "B" data_type: TYPE_FP32 dims: [ 4 ] }
    ]
    output [
      { name: "SUM" data_type: TYPE_FP32 dims: [ 4 ] },
      { name: "DIFF" data_type: TYPE_FP32 dims: [ 4 ] }
    ]
    instance_group [ { count: 1 kind: KIND_CPU } ]
"""

# Batches form at 4 requests; the delay only bounds a failure.
BATCHING = """
    dynamic_batching { preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 30000000 }
"""

# Dims the model does not check against: the model itself rejects a wrong length.
LOOSE_CONFIG = ADD_SUB_CONFIG.replace("dims: [ 4 ]", "dims: [ -1 ]")


def add_sub_model(tmp_path, name: str, config: str = ADD_SUB_CONFIG) -> None:
    add_sub(write_model(tmp_path, name, config) / "1" / "model.onnx")


def outputs(response: conch.InferenceResponse) -> dict[str, list]:
    return {name: numpy.from_dlpack(t).tolist() for name, t in response.outputs.items()}


def entries(server: conch.Server, name: str) -> list[conch.Model]:
    return [model for (n, _), model in server.models().items() if n == name]


def test_the_example_string_identity_model(example_server) -> None:
    model = example_server.model("identity")
    text = numpy.array([["Roger Roger"]], dtype=object)
    response = list(model.infer(inputs={"INPUT0": text}))[0]
    assert response.outputs["OUTPUT0"].data_type == conch.DataType.BYTES
    assert response.outputs["OUTPUT0"].to_bytes_array().tolist() == [[b"Roger Roger"]]


def test_the_example_identity_model_takes_bytes_arrays(example_server) -> None:
    text = numpy.array([[b"a", b"longer"], [b"", "caf\u00e9".encode()]], dtype=numpy.bytes_)
    response = list(example_server.model("identity").infer(inputs={"INPUT0": text}))[0]
    assert response.outputs["OUTPUT0"].to_bytes_array().tolist() == [
        [b"a", b"longer"], [b"", "caf\u00e9".encode()]
    ]


def test_several_requests_run_as_one_batch(tmp_path, make_server) -> None:
    config = ADD_SUB_CONFIG.replace(
        "output [", 'output [\n      { name: "BATCH" data_type: TYPE_INT64 dims: [ 1 ] },'
    )
    add_sub_batch(write_model(tmp_path, "add_sub", config + BATCHING) / "1" / "model.onnx")
    model = make_server().model("add_sub")
    a = [numpy.full((n, 4), i, dtype=numpy.float32) for i, n in enumerate([1, 2, 1])]
    b = numpy.arange(4, dtype=numpy.float32)
    pending = [model.infer(inputs={"A": x, "B": numpy.tile(b, (len(x), 1))}) for x in a]
    responses = [list(iterator)[0] for iterator in pending]
    for x, response in zip(a, responses):
        assert outputs(response) == {
            "SUM": (x + b).tolist(),
            "DIFF": (x - b).tolist(),
            "BATCH": [[4]] * len(x),  # the model ran once, over all four rows
        }


def test_an_error_of_onnxruntime_fails_the_request_only(tmp_path, make_server) -> None:
    add_sub_model(tmp_path, "add_sub", LOOSE_CONFIG)
    model = make_server().model("add_sub")
    three = numpy.ones((1, 3), dtype=numpy.float32)
    with pytest.raises(conch.InvalidArgumentError, match="(?i)dimensions"):
        list(model.infer(inputs={"A": three, "B": three}))
    four = numpy.ones((1, 4), dtype=numpy.float32)
    assert outputs(list(model.infer(inputs={"A": four, "B": four}))[0])["SUM"] == [[2.0] * 4]


def test_a_model_without_config_is_completed_from_the_onnx_file(tmp_path, make_server) -> None:
    add_sub(tmp_path / "auto" / "1" / "model.onnx")
    model = make_server(strict_model_config=False).model("auto")
    config = model.config()
    assert config["backend"] == "onnxruntime"
    assert config["max_batch_size"] == 4
    assert [(i["name"], i["data_type"], i["dims"]) for i in config["input"]] == [
        ("A", "TYPE_FP32", [4]), ("B", "TYPE_FP32", [4])
    ]
    assert [(o["name"], o["data_type"], o["dims"]) for o in config["output"]] == [
        ("SUM", "TYPE_FP32", [4]), ("DIFF", "TYPE_FP32", [4])
    ]
    x = numpy.ones((2, 4), dtype=numpy.float32)
    assert outputs(list(model.infer(inputs={"A": x, "B": x}))[0])["DIFF"] == [[0.0] * 4] * 2


def test_without_onnxruntime_the_model_is_unavailable(tmp_path, make_server, monkeypatch) -> None:
    add_sub_model(tmp_path, "add_sub")
    server = make_server(model_control_mode=conch.ModelControlMode.EXPLICIT)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(conch.TritonError, match="pip install onnxruntime"):
        server.load("add_sub")
    [entry] = entries(server, "add_sub")
    assert entry.state == "UNAVAILABLE"
    assert "onnxruntime" in entry.reason and "not installed" in entry.reason
    assert "pip install onnxruntime" in entry.reason


def test_a_bad_model_file_is_unavailable_and_others_are_served(tmp_path, make_server) -> None:
    add_sub_model(tmp_path, "good")
    bad = write_model(tmp_path, "bad", ADD_SUB_CONFIG)
    (bad / "1" / "model.onnx").write_bytes(b"this is not an ONNX model")
    server = make_server(model_control_mode=conch.ModelControlMode.EXPLICIT)
    good = server.load("good")
    with pytest.raises(conch.TritonError, match="onnxruntime could not load"):
        server.load("bad")
    [entry] = entries(server, "bad")
    assert entry.state == "UNAVAILABLE"
    assert "onnxruntime could not load" in entry.reason and "protobuf" in entry.reason.lower()
    x = numpy.ones((1, 4), dtype=numpy.float32)
    assert outputs(list(good.infer(inputs={"A": x, "B": x}))[0])["SUM"] == [[2.0] * 4]


RESHAPED_CONFIG = """
    platform: "onnxruntime_onnx"
    max_batch_size: 0
    input [
      { name: "A" data_type: TYPE_FP32 dims: [ 3, 4 ] reshape: { shape: [ 1, 3, 4 ] } },
      { name: "B" data_type: TYPE_FP32 dims: [ 3, 4 ] reshape: { shape: [ 1, 3, 4 ] } }
    ]
    output [
      { name: "SUM" data_type: TYPE_FP32 dims: [ 3, 4 ] reshape: { shape: [ 1, 3, 4 ] } },
      { name: "DIFF" data_type: TYPE_FP32 dims: [ 12 ] reshape: { shape: [ 1, 3, 4 ] } }
    ]
"""


def test_reshape_feeds_the_model_its_shape_and_answers_in_the_configured_dims(
        tmp_path, make_server) -> None:
    # densenet_onnx's form: the graph wants a leading 1 that clients do not send.
    add_sub(write_model(tmp_path, "reshaped", RESHAPED_CONFIG) / "1" / "model.onnx",
            shape=(1, 3, 4))
    model = make_server().model("reshaped")
    a = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    b = numpy.full((3, 4), 2, dtype=numpy.float32)
    response = list(model.infer(inputs={"A": a, "B": b}))[0]
    result = {name: numpy.from_dlpack(t) for name, t in response.outputs.items()}
    assert result["SUM"].shape == (3, 4)
    assert result["SUM"].tolist() == (a + b).tolist()
    assert result["DIFF"].shape == (12,)
    assert result["DIFF"].tolist() == (a - b).reshape(12).tolist()
