"""conch.frontend.KServeGrpc: the KServe v2 gRPC frontend, driven by the real
tritonclient.grpc against servers on free ports (unary, async and streaming
inference, decoupled models), and its Options and lifecycle as upstream's
tritonfrontend defines them."""

from __future__ import annotations

import pathlib
import queue
import shutil
import socket
from typing import Any, Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import KServeGrpc

from conftest import CONFIG_TYPES, identity_config, write_model

# A generous bound on a wait, so that a broken server fails a test instead
# of hanging it; no test depends on its length.
WAIT = 30

DTYPES = {
    "BOOL": numpy.bool_,
    "UINT8": numpy.uint8,
    "INT16": numpy.int16,
    "INT32": numpy.int32,
    "INT64": numpy.int64,
    "FP16": numpy.float16,
    "FP32": numpy.float32,
    "FP64": numpy.float64,
    "BYTES": numpy.object_,
}

REPEAT_CONFIG = """
    backend: "repeat"
    max_batch_size: 0
    model_transaction_policy { decoupled: true }
    input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] } ]
    output [
      { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },
      { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] }
    ]
"""

PYTHON_MODELS = pathlib.Path(__file__).resolve().parent / "python_models"


def sample(datatype: str) -> numpy.ndarray:
    if datatype == "BYTES":
        return numpy.array([b"a", b"", b"\x00\xff", "é".encode()], dtype=numpy.object_)
    if datatype == "BOOL":
        return numpy.array([True, False, True, False])
    return numpy.arange(4, dtype=DTYPES[datatype])


def make_input(name: str, array: numpy.ndarray, datatype: str) -> grpcclient.InferInput:
    tensor = grpcclient.InferInput(name, list(array.shape), datatype)
    tensor.set_data_from_numpy(array)
    return tensor


def identity_input(value: float) -> list[grpcclient.InferInput]:
    return [make_input("INPUT0", numpy.full([16], value, dtype=numpy.float32), "FP32")]


def final_flag(result: grpcclient.InferResult) -> bool:
    params = result.get_response().parameters
    assert "triton_final_response" in params
    return params["triton_final_response"].bool_param


def refused(port: int) -> bool:
    """True when nothing accepts connections on localhost:port."""
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    repository = tmp_path_factory.mktemp("kserve_grpc")
    for data_type, type_name in CONFIG_TYPES.items():
        if data_type.name in DTYPES:
            write_model(repository, f"identity_{data_type.name}", identity_config(type_name))
    write_model(repository, "repeat_int32", REPEAT_CONFIG)
    shutil.copytree(PYTHON_MODELS / "decoupled_counter", repository / "decoupled_counter")
    return repository


@pytest.fixture(scope="module")
def server(repository: pathlib.Path) -> Iterator[conch.Server]:
    server = conch.Server(
        model_repository=str(repository),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["*"],
    ).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def frontend(server: conch.Server) -> Iterator[KServeGrpc]:
    with KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        yield grpc


@pytest.fixture
def client(frontend: KServeGrpc) -> Iterator[grpcclient.InferenceServerClient]:
    client = grpcclient.InferenceServerClient(f"127.0.0.1:{frontend.port}")
    yield client
    client.close()


# -- health, metadata and unary inference ------------------------------------------------


def test_health(client: grpcclient.InferenceServerClient) -> None:
    assert client.is_server_live()
    assert client.is_server_ready()
    assert client.is_model_ready("identity_FP32")
    assert client.is_model_ready("repeat_int32")


def test_metadata(client: grpcclient.InferenceServerClient) -> None:
    metadata = client.get_server_metadata(as_json=True)
    assert metadata["name"] == "triton"
    model = client.get_model_metadata("identity_FP32", as_json=True)
    assert model["name"] == "identity_FP32"
    assert model["inputs"] == [{"name": "INPUT0", "datatype": "FP32", "shape": ["-1"]}]
    config = client.get_model_config("repeat_int32", as_json=True)
    assert config["config"]["model_transaction_policy"]["decoupled"] is True


@pytest.mark.parametrize("datatype", sorted(DTYPES))
def test_infer(client: grpcclient.InferenceServerClient, datatype: str) -> None:
    array = sample(datatype)
    result = client.infer(f"identity_{datatype}", [make_input("INPUT0", array, datatype)],
                          request_id="r1")
    assert result.get_response().id == "r1"
    out = result.as_numpy("OUTPUT0")
    assert out.dtype == array.dtype
    assert out.tolist() == array.tolist()


def test_infer_unknown_model(client: grpcclient.InferenceServerClient) -> None:
    with pytest.raises(InferenceServerException) as e:
        client.infer("no_such_model", identity_input(1))
    assert e.value.status() == "StatusCode.NOT_FOUND"


def test_async_infer_with_a_callback(client: grpcclient.InferenceServerClient) -> None:
    done: queue.Queue = queue.Queue()
    for i in range(4):
        client.async_infer("identity_FP32", identity_input(i), request_id=str(i),
                           callback=lambda result, error: done.put((result, error)))
    seen = {}
    for _ in range(4):
        result, error = done.get(timeout=WAIT)
        assert error is None
        seen[result.get_response().id] = result.as_numpy("OUTPUT0")[0]
    assert seen == {str(i): float(i) for i in range(4)}


# -- streaming -----------------------------------------------------------------------------


@pytest.fixture
def stream(client: grpcclient.InferenceServerClient) -> Iterator[tuple[Any, queue.Queue]]:
    responses: queue.Queue = queue.Queue()
    client.start_stream(callback=lambda result, error: responses.put((result, error)))
    yield client, responses
    client.stop_stream()


def test_a_stream_of_a_hundred_requests_in_order(stream: tuple[Any, queue.Queue]) -> None:
    client, responses = stream
    for i in range(100):
        client.async_stream_infer("identity_FP32", identity_input(i), request_id=str(i))
    for i in range(100):
        result, error = responses.get(timeout=WAIT)
        assert error is None
        assert result.get_response().id == str(i)
        assert result.as_numpy("OUTPUT0")[0] == float(i)
        assert final_flag(result)


def test_decoupled_stream_with_final_flags(stream: tuple[Any, queue.Queue]) -> None:
    client, responses = stream
    values = numpy.array([3, 5, 7], dtype=numpy.int32)
    client.async_stream_infer("repeat_int32", [make_input("IN", values, "INT32")],
                              request_id="a", enable_empty_final_response=True)
    got = []
    for _ in range(4):
        result, error = responses.get(timeout=WAIT)
        assert error is None
        got.append(result)
    assert [r.as_numpy("OUT").tolist() for r in got[:3]] == [[3], [5], [7]]
    assert [final_flag(r) for r in got] == [False, False, False, True]
    last = got[3].get_response()
    assert last.id == "a" and len(last.outputs) == 0
    # Without the empty final response only the data responses come, none
    # final; an identity request after them proves nothing else was sent.
    client.async_stream_infer("repeat_int32", [make_input("IN", values[:1], "INT32")],
                              request_id="b")
    result, error = responses.get(timeout=WAIT)
    assert error is None and result.get_response().id == "b" and not final_flag(result)
    client.async_stream_infer("identity_FP32", identity_input(1), request_id="c")
    result, error = responses.get(timeout=WAIT)
    assert error is None and result.get_response().id == "c"


def test_decoupled_python_model_in_a_stream(stream: tuple[Any, queue.Queue]) -> None:
    client, responses = stream
    client.async_stream_infer("decoupled_counter",
                              [make_input("IN", numpy.array([5], dtype=numpy.int32), "INT32")],
                              request_id="py", enable_empty_final_response=True)
    got = []
    for _ in range(6):
        result, error = responses.get(timeout=WAIT)
        assert error is None, error
        got.append(result)
    assert [r.as_numpy("OUT").tolist() for r in got[:5]] == [[0], [1], [2], [3], [4]]
    assert [final_flag(r) for r in got] == [False] * 5 + [True]
    assert all(r.get_response().id == "py" for r in got)
    assert len(got[5].get_response().outputs) == 0


def test_errors_in_a_stream(stream: tuple[Any, queue.Queue]) -> None:
    client, responses = stream
    client.async_stream_infer("identity_FP32", identity_input(1), request_id="ok-1")
    client.async_stream_infer("no_such_model", identity_input(2), request_id="bad")
    client.async_stream_infer("identity_FP32",
                              [make_input("INPUT0", numpy.arange(3, dtype=numpy.int32),
                                          "INT32")],
                              request_id="bad-type")
    client.async_stream_infer("identity_FP32", identity_input(4), request_id="ok-2")
    outcomes = [responses.get(timeout=WAIT) for _ in range(4)]
    assert outcomes[0][1] is None and outcomes[0][0].get_response().id == "ok-1"
    assert outcomes[1][0] is None and isinstance(outcomes[1][1], InferenceServerException)
    assert "no_such_model" in str(outcomes[1][1])
    assert outcomes[2][0] is None and isinstance(outcomes[2][1], InferenceServerException)
    assert outcomes[3][1] is None and outcomes[3][0].as_numpy("OUTPUT0")[0] == 4.0


# -- options ---------------------------------------------------------------------------


def test_options_defaults_and_validation() -> None:
    o = KServeGrpc.Options()
    assert (o.address, o.port, o.reuse_port) == ("0.0.0.0", 8001, False)
    assert o.keepalive_time_ms == 7_200_000 and o.max_response_pool_size == 2_147_483_647
    assert o.infer_compression_level == 0
    level = KServeGrpc.Options(infer_compression_level=KServeGrpc.Grpc_compression_level.HIGH)
    assert level.infer_compression_level == 3 and type(level.infer_compression_level) is int
    assert KServeGrpc.Options(port="12").port == 12
    for bad in ({"port": -1}, {"port": 65536}, {"port": "ten"}, {"address": 10},
                {"keepalive_time_ms": -1}, {"infer_thread_count": -1}):
        with pytest.raises(Exception):
            KServeGrpc.Options(**bad)


def test_options_of_the_wrong_type(server: conch.Server) -> None:
    with pytest.raises(conch.InvalidArgumentError, match="KServeGrpc.Options"):
        KServeGrpc(server, {"port": 0})  # type: ignore[arg-type]


# -- lifecycle ---------------------------------------------------------------------------


def test_start_twice(server: conch.Server) -> None:
    grpc = KServeGrpc(server, KServeGrpc.Options(port=0))
    grpc.start()
    try:
        with pytest.raises(conch.AlreadyExistsError, match="server is already running."):
            grpc.start()
    finally:
        grpc.stop()
    with pytest.raises(conch.UnavailableError, match="not running"):
        grpc.stop()


def test_port_in_use(server: conch.Server, frontend: KServeGrpc) -> None:
    grpc = KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=frontend.port))
    with pytest.raises(conch.UnavailableError):
        grpc.start()


def test_context_manager(server: conch.Server) -> None:
    with KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        port = grpc.port
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{port}")
        assert client.is_server_live()
        client.close()
    assert refused(port)


def test_restart(server: conch.Server) -> None:
    grpc = KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0))
    assert grpc.port == 0
    grpc.start()
    first = grpc.port
    assert first > 0
    grpc.stop()
    assert refused(first)
    grpc.start()
    client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
    assert client.is_server_live()
    client.close()
    grpc.stop()


def test_tritonfrontend_name() -> None:
    import tritonfrontend

    assert tritonfrontend.KServeGrpc is KServeGrpc
