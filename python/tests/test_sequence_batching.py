"""The sequence batcher as Triton's users meet it: upstream's simple_sequence
example model driven the way its client examples drive it (HTTP sync, gRPC
sync, gRPC stream), the in-process API's correlation ids and flags, implicit
state in an ONNX model, and Triton's errors."""

from __future__ import annotations

import pathlib
import queue
import uuid
from typing import Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from onnx import TensorProto, helper
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import KServeGrpc, KServeHttp
from conftest import EXAMPLE_REPOSITORY, write_model
from onnx_models import save

# What upstream's simple_*_sequence_* clients send: three sequences, two with
# integer ids and one with a string id, and the answers they check.
VALUES = [11, 7, 5, 3, 2, 0, 1]


def sequences() -> list[tuple[object, list[int], list[int]]]:
    """(id, inputs, expected outputs) of each sequence, as the clients make them."""
    return [
        (1000, [0] + VALUES, [1] + VALUES),
        (1001, [100] + [-v for v in VALUES], [101] + [-v for v in VALUES]),
        (str(uuid.uuid4()), [20] + [-v for v in VALUES], [21] + [-v for v in VALUES]),
    ]


@pytest.fixture(scope="module")
def server() -> Iterator[conch.Server]:
    server = conch.Server(
        model_repository=str(EXAMPLE_REPOSITORY),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["simple_sequence"],
    ).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http_url(server: conch.Server) -> Iterator[str]:
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=2)) as http:
        yield f"127.0.0.1:{http.port}"


@pytest.fixture(scope="module")
def grpc_url(server: conch.Server) -> Iterator[str]:
    with KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        yield f"127.0.0.1:{grpc.port}"


def one(module, value: int):
    tensor = module.InferInput("INPUT", [1, 1], "INT32")
    tensor.set_data_from_numpy(numpy.full([1, 1], value, dtype=numpy.int32))
    return [tensor]


@pytest.mark.parametrize("module", [httpclient, grpcclient], ids=["http", "grpc"])
def test_the_sync_sequence_clients_get_their_answers(module, http_url, grpc_url) -> None:
    client = module.InferenceServerClient(http_url if module is httpclient else grpc_url)
    try:
        for sequence_id, inputs, expected in sequences():
            got = []
            for i, value in enumerate(inputs):
                result = client.infer(
                    "simple_sequence", one(module, value),
                    outputs=[module.InferRequestedOutput("OUTPUT")],
                    sequence_id=sequence_id, sequence_start=(i == 0),
                    sequence_end=(i == len(inputs) - 1))
                got.append(int(result.as_numpy("OUTPUT")[0][0]))
            assert got == expected, sequence_id
    finally:
        client.close()


def test_the_stream_sequence_client_gets_each_sequence_in_order(grpc_url) -> None:
    responses: queue.Queue = queue.Queue()
    client = grpcclient.InferenceServerClient(grpc_url)
    client.start_stream(callback=lambda result, error: responses.put((result, error)))
    try:
        plan = sequences()
        # All three sequences at once, interleaved at the server.
        for sequence_id, inputs, _ in plan:
            for i, value in enumerate(inputs):
                client.async_stream_infer(
                    "simple_sequence", one(grpcclient, value),
                    outputs=[grpcclient.InferRequestedOutput("OUTPUT")],
                    request_id=f"{sequence_id}_{i}", sequence_id=sequence_id,
                    sequence_start=(i == 0), sequence_end=(i == len(inputs) - 1))
        got: dict[str, list[int]] = {str(s): [] for s, _, _ in plan}
        for _ in range(sum(len(inputs) for _, inputs, _ in plan)):
            result, error = responses.get(timeout=30)
            assert error is None, error
            sequence_id = result.get_response().id.split("_")[0]
            got[sequence_id].append(int(result.as_numpy("OUTPUT")[0][0]))
        for sequence_id, _, expected in plan:
            assert got[str(sequence_id)] == expected
    finally:
        client.stop_stream()
        client.close()


def test_in_process_requests_carry_correlation_ids_and_flags(server: conch.Server) -> None:
    model = server.model("simple_sequence")
    out = []
    for i, value in enumerate([5, 6, 7]):
        flags = (1 if i == 0 else 0) | (2 if i == 2 else 0)
        response = list(model.infer(inputs={"INPUT": numpy.array([[value]], dtype=numpy.int32)},
                                    correlation_id="in-process", flags=flags))[0]
        out.append(int(numpy.from_dlpack(response.outputs["OUTPUT"])[0][0]))
    assert out == [6, 6, 7]


def test_tritons_errors_over_http(http_url) -> None:
    client = httpclient.InferenceServerClient(http_url)
    try:
        with pytest.raises(InferenceServerException,
                           match="must specify a non-zero or non-empty correlation ID"):
            client.infer("simple_sequence", one(httpclient, 1))
        with pytest.raises(InferenceServerException,
                           match="inference request for sequence 77 to model 'simple_sequence' "
                                 "must specify the START flag on the first request of the "
                                 "sequence"):
            client.infer("simple_sequence", one(httpclient, 1), sequence_id=77)
        # The model keeps serving.
        result = client.infer("simple_sequence", one(httpclient, 3), sequence_id=78,
                              sequence_start=True, sequence_end=True)
        assert result.as_numpy("OUTPUT").tolist() == [[4]]
    finally:
        client.close()


# An accumulator with implicit state, as Triton's implicit-state example
# model: OUTPUT_STATE = INPUT at START, INPUT + INPUT_STATE after; OUTPUT
# is the same running sum.
ACCUMULATOR_CONFIG = """
    platform: "onnxruntime_onnx"
    max_batch_size: 4
    sequence_batching {
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] }
      ]
      state [ { input_name: "INPUT_STATE" output_name: "OUTPUT_STATE" data_type: TYPE_INT32
                dims: [ 1 ] } ]
    }
    input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    instance_group [ { count: 1 kind: KIND_CPU } ]
"""


def accumulator(path: pathlib.Path) -> None:
    def int32(name: str):
        return helper.make_tensor_value_info(name, TensorProto.INT32, ["batch", 1])

    # sum = INPUT + INPUT_STATE * (1 - START)
    one_ = helper.make_tensor("one", TensorProto.INT32, [1], [1])
    save(path, [
        helper.make_node("Sub", ["one", "START"], ["keep"]),
        helper.make_node("Mul", ["INPUT_STATE", "keep"], ["kept"]),
        helper.make_node("Add", ["INPUT", "kept"], ["OUTPUT"]),
        helper.make_node("Identity", ["OUTPUT"], ["OUTPUT_STATE"]),
    ], [int32("INPUT"), int32("START"), int32("INPUT_STATE")],
        [int32("OUTPUT"), int32("OUTPUT_STATE")], [one_])


def test_implicit_state_carries_each_sequence_over(tmp_path, make_server) -> None:
    accumulator(write_model(tmp_path, "acc", ACCUMULATOR_CONFIG) / "1" / "model.onnx")
    model = make_server().model("acc")

    def send(sequence_id: int, value: int, flags: int = 0):
        return model.infer(inputs={"INPUT": numpy.array([[value]], dtype=numpy.int32)},
                           correlation_id=sequence_id, flags=flags)

    # Two sequences interleaved; each sees only its own sum.
    pending = [send(1, 1, 1), send(2, 10, 1), send(1, 2), send(2, 20), send(1, 3, 2),
               send(2, 30, 2)]
    results = []
    for iterator in pending:
        response = list(iterator)[0]
        assert list(response.outputs) == ["OUTPUT"]  # the state stays inside
        results.append(int(numpy.from_dlpack(response.outputs["OUTPUT"])[0][0]))
    assert results == [1, 10, 3, 30, 6, 60]
