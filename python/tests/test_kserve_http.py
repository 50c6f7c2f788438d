"""conch.frontend.KServeHttp: the KServe v2 HTTP frontend, driven by the real
tritonclient.http against servers on free ports, and its Options and
lifecycle as upstream's tritonfrontend defines them."""

from __future__ import annotations

import gc
import json
import pathlib
import socket
from typing import Iterator

import numpy
import pytest
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import FeatureGroup, KServeHttp, RestrictedFeatures

from conftest import CONFIG_TYPES, http_call, identity_config, write_model

# Every data type, with a numpy dtype tritonclient sends it from.
NUMPY_TYPES = {
    "BOOL": numpy.bool_,
    "UINT8": numpy.uint8,
    "UINT16": numpy.uint16,
    "UINT32": numpy.uint32,
    "UINT64": numpy.uint64,
    "INT8": numpy.int8,
    "INT16": numpy.int16,
    "INT32": numpy.int32,
    "INT64": numpy.int64,
    "FP16": numpy.float16,
    "FP32": numpy.float32,
    "FP64": numpy.float64,
    "BYTES": numpy.object_,
}
# The KServe JSON encoding has no half-precision numbers.
BINARY_ONLY = {"FP16"}

SIMPLE_CONFIG = """
    backend: "add_sub"
    max_batch_size: 0
    input [
      { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
      { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
    ]
    output [
      { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
      { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
    ]
"""

# An identity model whose output names its classes in labels.txt.
LABELLED_CONFIG = """
    backend: "identity"
    max_batch_size: 8
    input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] label_filename: "labels.txt" } ]
"""


def sample(datatype: str, binary: bool) -> numpy.ndarray:
    """A [6] tensor of `datatype` with distinct values (BYTES that are not
    UTF-8 only for the binary encoding: JSON strings carry text)."""
    if datatype == "BYTES":
        odd = b"\x00\xff" if binary else b"\x00"
        return numpy.array([b"a", b"", odd, "é".encode(), b"roger", b"x" * 300],
                           dtype=numpy.object_)
    if datatype == "BOOL":
        return numpy.array([True, False, True, True, False, False])
    return numpy.arange(6, dtype=NUMPY_TYPES[datatype])


def make_input(name: str, array: numpy.ndarray, datatype: str,
               binary: bool = True) -> httpclient.InferInput:
    tensor = httpclient.InferInput(name, list(array.shape), datatype)
    tensor.set_data_from_numpy(array, binary_data=binary)
    return tensor


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """identity_<TYPE> per data type, "simple" (add_sub) and "spare", a
    model that is loaded and unloaded through the client."""
    repository = tmp_path_factory.mktemp("kserve_http")
    for data_type, type_name in CONFIG_TYPES.items():
        write_model(repository, f"identity_{data_type.name}", identity_config(type_name))
    write_model(repository, "simple", SIMPLE_CONFIG)
    write_model(repository, "spare", identity_config("TYPE_INT32"))
    labelled = write_model(repository, "labelled", LABELLED_CONFIG)
    (labelled / "labels.txt").write_text("cat\ndog\nbird\n")
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
def frontend(server: conch.Server) -> Iterator[KServeHttp]:
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=2)) as http:
        yield http


@pytest.fixture
def client(frontend: KServeHttp) -> Iterator[httpclient.InferenceServerClient]:
    client = httpclient.InferenceServerClient(f"localhost:{frontend.port}", concurrency=4)
    yield client
    client.close()


def refused(port: int) -> bool:
    """True when nothing accepts connections on localhost:port."""
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


# -- health and metadata -----------------------------------------------------------------


def test_health(client: httpclient.InferenceServerClient) -> None:
    assert client.is_server_live()
    assert client.is_server_ready()
    assert client.is_model_ready("identity_FP32")
    assert not client.is_model_ready("no_such_model")


def test_server_metadata(client: httpclient.InferenceServerClient) -> None:
    metadata = client.get_server_metadata()
    assert metadata["name"] == "triton"
    assert metadata["version"]
    assert "binary_tensor_data" in metadata["extensions"]


def test_model_metadata_and_config(client: httpclient.InferenceServerClient) -> None:
    metadata = client.get_model_metadata("identity_FP32")
    assert metadata["name"] == "identity_FP32"
    assert metadata["inputs"] == [{"name": "INPUT0", "datatype": "FP32", "shape": [-1]}]
    assert metadata["outputs"] == [{"name": "OUTPUT0", "datatype": "FP32", "shape": [-1]}]
    config = client.get_model_config("simple")
    assert config["name"] == "simple"
    assert config["backend"] == "add_sub"
    assert [i["name"] for i in config["input"]] == ["INPUT0", "INPUT1"]


# -- inference ---------------------------------------------------------------------------


@pytest.mark.parametrize("datatype", sorted(NUMPY_TYPES))
def test_infer_every_data_type(client: httpclient.InferenceServerClient, datatype: str) -> None:
    encodings = [True] if datatype in BINARY_ONLY else [True, False]
    for binary in encodings:
        data = sample(datatype, binary)
        result = client.infer(
            f"identity_{datatype}",
            inputs=[make_input("INPUT0", data, datatype, binary)],
            outputs=[httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary)],
        )
        out = result.as_numpy("OUTPUT0")
        assert out.shape == data.shape, (datatype, binary)
        got = out.tolist()
        if datatype == "BYTES" and not binary:
            got = [item.encode() for item in got]  # tritonclient decodes JSON strings
        assert got == data.tolist(), (datatype, binary)


def test_infer_add_sub(client: httpclient.InferenceServerClient) -> None:
    a = numpy.arange(16, dtype=numpy.int32)
    b = numpy.ones(16, dtype=numpy.int32)
    result = client.infer("simple", inputs=[make_input("INPUT0", a, "INT32"),
                                            make_input("INPUT1", b, "INT32")])
    assert result.as_numpy("OUTPUT0").tolist() == (a + b).tolist()
    assert result.as_numpy("OUTPUT1").tolist() == (a - b).tolist()


def test_async_infer(client: httpclient.InferenceServerClient) -> None:
    pending = []
    for i in range(8):
        data = numpy.full(4, i, dtype=numpy.int32)
        pending.append((i, client.async_infer(
            "identity_INT32", inputs=[make_input("INPUT0", data, "INT32")])))
    for i, request in pending:
        assert request.get_result(timeout=60).as_numpy("OUTPUT0").tolist() == [i] * 4


@pytest.mark.parametrize("binary_in", [True, False])
@pytest.mark.parametrize("binary_out", [True, False])
def test_binary_data_outputs(client: httpclient.InferenceServerClient, binary_in: bool,
                             binary_out: bool) -> None:
    data = numpy.linspace(0, 1, 8, dtype=numpy.float32)
    result = client.infer(
        "identity_FP32",
        inputs=[make_input("INPUT0", data, "FP32", binary_in)],
        outputs=[httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary_out)],
    )
    output = result.get_output("OUTPUT0")
    assert output["datatype"] == "FP32" and output["shape"] == [8]
    if binary_out:
        assert output["parameters"]["binary_data_size"] == data.nbytes
        assert "data" not in output
    else:
        assert len(output["data"]) == 8
    assert numpy.array_equal(result.as_numpy("OUTPUT0"), data)


@pytest.mark.parametrize("binary", [True, False])
def test_classification_with_labels(client: httpclient.InferenceServerClient,
                                    binary: bool) -> None:
    scores = numpy.array([[0.1, 0.7, 0.2, 0.0], [5, 1, 2, 9]], dtype=numpy.float32)
    requested = httpclient.InferRequestedOutput("OUTPUT0", binary_data=binary, class_count=2)
    result = client.infer("labelled", [make_input("INPUT0", scores, "FP32")], outputs=[requested])
    classes = result.as_numpy("OUTPUT0")
    assert classes.shape == (2, 2)
    assert [c.decode() if isinstance(c, bytes) else c for c in classes.flatten()] == [
        "0.700000:1:dog", "0.200000:2:bird", "9.000000:3", "5.000000:0:cat"]
    assert "classification" in client.get_server_metadata()["extensions"]


def test_unknown_model_is_an_error(client: httpclient.InferenceServerClient) -> None:
    data = numpy.zeros(4, dtype=numpy.int32)
    with pytest.raises(InferenceServerException) as caught:
        client.infer("no_such_model", inputs=[make_input("INPUT0", data, "INT32")])
    assert "unknown model: 'no_such_model'" in caught.value.message()
    assert caught.value.status() == "404"
    # The frontend keeps serving.
    assert client.is_server_ready()


def test_wrong_input_is_an_error(client: httpclient.InferenceServerClient) -> None:
    data = numpy.zeros(4, dtype=numpy.int32)
    with pytest.raises(InferenceServerException, match="INPUT9"):
        client.infer("identity_INT32", inputs=[make_input("INPUT9", data, "INT32")])


def test_python_model_over_http(example_server: conch.Server) -> None:
    # The model runs Python on its instance thread while this thread waits
    # in the client: nothing may hold the GIL across the request.
    with KServeHttp(example_server, KServeHttp.Options(port=0, thread_count=1)) as http:
        client = httpclient.InferenceServerClient(f"localhost:{http.port}")
        a = numpy.array([1, 2, 3, 4], dtype=numpy.float32)
        b = numpy.array([4, 3, 2, 1], dtype=numpy.float32)
        result = client.infer("add_sub_python", inputs=[make_input("INPUT0", a, "FP32"),
                                                        make_input("INPUT1", b, "FP32")])
        assert result.as_numpy("OUTPUT0").tolist() == [5, 5, 5, 5]
        assert result.as_numpy("OUTPUT1").tolist() == [-3, -1, 1, 3]
        client.close()


# -- repository and statistics --------------------------------------------------------------


def test_repository_index_load_unload(client: httpclient.InferenceServerClient) -> None:
    index = {m["name"]: m for m in client.get_model_repository_index()}
    assert {"simple", "spare", "identity_FP32"} <= set(index)
    assert index["spare"]["state"] == "READY"

    client.unload_model("spare")
    assert not client.is_model_ready("spare")
    index = {m["name"]: m for m in client.get_model_repository_index()}
    assert index["spare"].get("state") == "UNAVAILABLE"

    client.load_model("spare")
    assert client.is_model_ready("spare")
    data = numpy.arange(3, dtype=numpy.int32)
    result = client.infer("spare", inputs=[make_input("INPUT0", data, "INT32")])
    assert result.as_numpy("OUTPUT0").tolist() == [0, 1, 2]


def test_load_with_config_override(client: httpclient.InferenceServerClient) -> None:
    config = json.dumps({
        "backend": "identity",
        "max_batch_size": 0,
        "input": [{"name": "INPUT0", "data_type": "TYPE_INT32", "dims": [2]}],
        "output": [{"name": "OUTPUT0", "data_type": "TYPE_INT32", "dims": [2]}],
    })
    client.load_model("spare", config=config)
    try:
        assert client.get_model_metadata("spare")["inputs"][0]["shape"] == [2]
    finally:
        client.load_model("spare")
    assert client.get_model_metadata("spare")["inputs"][0]["shape"] == [-1]


def test_load_unknown_model_is_an_error(client: httpclient.InferenceServerClient) -> None:
    with pytest.raises(InferenceServerException):
        client.load_model("no_such_model")


def test_statistics(client: httpclient.InferenceServerClient) -> None:
    data = numpy.zeros(2, dtype=numpy.int64)
    before = client.get_inference_statistics("identity_INT64")["model_stats"][0]
    for _ in range(3):
        client.infer("identity_INT64", inputs=[make_input("INPUT0", data, "INT64")])
    after = client.get_inference_statistics("identity_INT64")["model_stats"][0]
    assert after["name"] == "identity_INT64"
    counted = after["inference_stats"]["success"]["count"]
    assert counted == before["inference_stats"]["success"]["count"] + 3
    assert after["inference_count"] == before["inference_count"] + 3
    everything = client.get_inference_statistics()["model_stats"]
    assert {"identity_INT64", "simple"} <= {s["name"] for s in everything}


# -- lifecycle ----------------------------------------------------------------------------


def test_restart_after_stop(server: conch.Server) -> None:
    http = KServeHttp(server, KServeHttp.Options(port=0, thread_count=1))
    assert http.port == 0
    http.start()
    first = http.port
    assert first > 0
    client = httpclient.InferenceServerClient(f"localhost:{first}")
    assert client.is_server_live()
    client.close()
    http.stop()
    assert refused(first)
    http.start()
    client = httpclient.InferenceServerClient(f"localhost:{http.port}")
    assert client.is_server_ready()
    client.close()
    http.stop()


def test_start_twice(server: conch.Server) -> None:
    http = KServeHttp(server, KServeHttp.Options(port=0, thread_count=1))
    http.start()
    try:
        with pytest.raises(conch.AlreadyExistsError, match="server is already running."):
            http.start()
    finally:
        http.stop()
    with pytest.raises(conch.UnavailableError, match="not running"):
        http.stop()


def test_long_header_names_meet_the_forward_pattern_in_linear_time(
        server: conch.Server) -> None:
    # std::regex recursed per character: a 60 KB header name ended the process.
    body = json.dumps({"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1],
                                   "data": [1.0]}]}).encode()
    options = KServeHttp.Options(port=0, thread_count=1,
                                 header_forward_pattern="^(X-.*|PRIORITY)$")
    with KServeHttp(server, options) as http:
        def infer(headers: dict[str, str]) -> tuple[int, bytes]:
            status, _, reply = http_call(http.port, "POST", "/v2/models/identity_FP32/infer",
                                         body, {"Content-Type": "application/json", **headers})
            return status, reply

        assert infer({"X-" + "a" * 60_000: "forwarded"})[0] == 200
        assert infer({"Y-" + "a" * 60_000: "not forwarded"})[0] == 200
        assert infer({"X-Big": "v" * 60_000})[0] == 200
        # The pattern still applies, without regard to case (urllib sends
        # "Priority").
        status, reply = infer({"priority": "1"})
        assert status == 400 and json.loads(reply)["error"] == "Header 'Priority' is reserved"
        assert infer({})[0] == 200


def test_port_in_use(server: conch.Server, frontend: KServeHttp) -> None:
    http = KServeHttp(server, KServeHttp.Options(port=frontend.port, thread_count=1))
    with pytest.raises(conch.UnavailableError):
        http.start()
    with pytest.raises(conch.UnavailableError):
        with KServeHttp(server, KServeHttp.Options(port=frontend.port)):
            pass


def test_context_manager(server: conch.Server) -> None:
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http:
        port = http.port
        client = httpclient.InferenceServerClient(f"localhost:{port}")
        assert client.is_server_live()
        client.close()
    assert refused(port)


def test_context_manager_lets_the_body_error_through(server: conch.Server) -> None:
    with pytest.raises(KeyError, match="body"):
        with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http:
            port = http.port
            raise KeyError("body")
    assert refused(port)


def test_requests_after_server_stop_fail_cleanly(repository: pathlib.Path) -> None:
    server = conch.Server(
        model_repository=str(repository),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["identity_INT32"],
    ).start(wait_until_ready=True)
    http = KServeHttp(server, KServeHttp.Options(port=0, thread_count=1))
    http.start()
    port = http.port
    client = httpclient.InferenceServerClient(f"localhost:{port}")
    data = numpy.arange(4, dtype=numpy.int32)
    client.infer("identity_INT32", inputs=[make_input("INPUT0", data, "INT32")])

    server.stop()  # stops the frontend first
    for _ in range(3):
        with pytest.raises((InferenceServerException, OSError)):
            client.infer("identity_INT32", inputs=[make_input("INPUT0", data, "INT32")])
    client.close()
    assert refused(port)
    http.stop()  # the server stopped it already: nothing to do
    with pytest.raises(conch.UnavailableError):
        http.start()


def test_frontend_keeps_its_server_alive(repository: pathlib.Path) -> None:
    server = conch.Server(
        model_repository=str(repository),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["identity_INT32"],
    ).start(wait_until_ready=True)
    http = KServeHttp(server, KServeHttp.Options(port=0, thread_count=1))
    http.start()
    del server
    gc.collect()
    client = httpclient.InferenceServerClient(f"localhost:{http.port}")
    data = numpy.arange(4, dtype=numpy.int32)
    result = client.infer("identity_INT32", inputs=[make_input("INPUT0", data, "INT32")])
    assert result.as_numpy("OUTPUT0").tolist() == [0, 1, 2, 3]
    client.close()
    port = http.port
    del http
    gc.collect()
    assert refused(port)


def test_unstarted_server() -> None:
    server = conch.Server(model_repository="unused")
    with pytest.raises(conch.InvalidArgumentError, match="Server not started"):
        KServeHttp(server)


def test_restricted_features_need_their_header(server: conch.Server) -> None:
    features = RestrictedFeatures()
    features.create_feature_group("admin-key", "secret", ["model-repository"])
    with KServeHttp(server, KServeHttp.Options(port=0, restricted_features=features)) as http:
        client = httpclient.InferenceServerClient(f"localhost:{http.port}")
        with pytest.raises(InferenceServerException, match="expecting header 'admin-key'"):
            client.get_model_repository_index()
        assert client.get_model_repository_index(headers={"admin-key": "secret"}) is not None
        assert client.is_server_live()
        client.close()


# -- options ------------------------------------------------------------------------------


def test_options_defaults() -> None:
    options = KServeHttp.Options()
    assert options.address == "0.0.0.0"
    assert options.port == 8000
    assert options.reuse_port is False
    assert options.thread_count == 8
    assert options.header_forward_pattern == ""
    assert not options.restricted_features
    assert options.max_inflight == 4096
    assert options.max_input_size == 64 * 1024 * 1024


@pytest.mark.parametrize("fields", [
    {"port": -1},
    {"port": 65536},
    {"thread_count": 0},
    {"thread_count": -4},
    {"address": 10},
    {"port": "ten"},
    {"reuse_port": "perhaps"},
    {"header_forward_pattern": 3},
    {"max_inflight": -1},
    {"max_input_size": 0},
    {"restricted_features": "health"},
])
def test_options_validation(fields: dict) -> None:
    with pytest.raises(ValueError):
        KServeHttp.Options(**fields)


def test_options_coercion_and_order() -> None:
    assert KServeHttp.Options(port="12").port == 12
    assert KServeHttp.Options(port=8080.0).port == 8080
    assert KServeHttp.Options(port=0).port == 0
    assert KServeHttp.Options(port=65535).port == 65535
    positional = KServeHttp.Options("127.0.0.1", 9000, True, 3, "x-.*")
    assert (positional.address, positional.port, positional.reuse_port,
            positional.thread_count, positional.header_forward_pattern) == (
            "127.0.0.1", 9000, True, 3, "x-.*")
    # As upstream, assignment after construction is not validated...
    options = KServeHttp.Options(port=0)
    options.port = -1
    assert options.port == -1


def test_unvalidated_assignment_is_refused_at_start(server: conch.Server) -> None:
    options = KServeHttp.Options(port=0)
    options.thread_count = 0
    http = KServeHttp(server, options)
    with pytest.raises(conch.InvalidArgumentError, match="thread_count"):
        http.start()


def test_options_of_the_wrong_type(server: conch.Server) -> None:
    import tritonserver

    message = "Incorrect type for options. options argument must be of type KServeHttp.Options"
    with pytest.raises(tritonserver.InvalidArgumentError, match=message):
        KServeHttp(server, {"port": 0})
    with pytest.raises(conch.InvalidArgumentError, match="Incorrect type for options"):
        KServeHttp(server=server, options=[("port", 0)])


def test_keyword_construction(server: conch.Server) -> None:
    http = KServeHttp(server=server, options=KServeHttp.Options(port=0, thread_count=1))
    assert http.options.port == 0
    http.start()
    assert http.port > 0
    http.stop()


def test_restricted_features_groups() -> None:
    features = RestrictedFeatures()
    features.create_feature_group("k", "v", ["health", "metadata"])
    assert features.has_feature("health")
    assert not features.has_feature("inference")
    with pytest.raises(conch.InvalidArgumentError, match="health"):
        features.add_feature_group(FeatureGroup("k2", "v2", ["health"]))
    with pytest.raises(conch.InvalidArgumentError, match="unknown feature"):
        features.create_feature_group("k3", "v3", ["everything"])
    features.remove_features(["health", "metadata"])
    assert features.get_feature_groups() == []
