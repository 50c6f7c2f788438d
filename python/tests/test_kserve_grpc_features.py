"""conch.frontend.KServeGrpc beyond inference, driven by the real
tritonclient.grpc: the repository RPCs, system and CUDA shared memory (one
registry per server, shared with the HTTP frontend), trace and log
settings, classification, restricted protocol groups and max_inflight."""

from __future__ import annotations

import json
import os
import pathlib
from typing import Iterator

import time

import numpy
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
import tritonclient.utils.shared_memory as shm
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import KServeGrpc, KServeHttp, RestrictedFeatures

from conftest import identity_config, write_model

SIMPLE_CONFIG = """
    backend: "add_sub"
    max_batch_size: 8
    input [
      { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
      { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
    ]
    output [
      { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] },
      { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] }
    ]
"""

LABELLED_CONFIG = """
    backend: "identity"
    max_batch_size: 8
    input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] label_filename: "labels.txt" } ]
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[conch.Server]:
    repository = tmp_path_factory.mktemp("kserve_grpc_features")
    write_model(repository, "simple", SIMPLE_CONFIG)
    write_model(repository, "spare", identity_config("TYPE_INT32"))
    labelled = write_model(repository, "labelled", LABELLED_CONFIG)
    (labelled / "labels.txt").write_text("cat\ndog\nbird\n")
    write_model(repository, "never_loaded", identity_config("TYPE_INT32"))
    server = conch.Server(
        model_repository=str(repository),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["simple", "spare", "labelled"],
    ).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def frontend(server: conch.Server) -> Iterator[KServeGrpc]:
    options = KServeGrpc.Options(address="127.0.0.1", port=0, allow_client_shm=True)
    with KServeGrpc(server, options) as grpc:
        yield grpc


@pytest.fixture
def client(frontend: KServeGrpc) -> Iterator[grpcclient.InferenceServerClient]:
    client = grpcclient.InferenceServerClient(f"127.0.0.1:{frontend.port}")
    yield client
    client.close()


def simple_inputs(a: numpy.ndarray, b: numpy.ndarray) -> list[grpcclient.InferInput]:
    inputs = []
    for name, array in (("INPUT0", a), ("INPUT1", b)):
        tensor = grpcclient.InferInput(name, list(array.shape), "INT32")
        tensor.set_data_from_numpy(array)
        inputs.append(tensor)
    return inputs


# -- repository ---------------------------------------------------------------------------


def test_repository_index_filters_ready_models(client: grpcclient.InferenceServerClient) -> None:
    index = {m["name"]: m for m in client.get_model_repository_index(as_json=True)["models"]}
    assert index["spare"]["state"] == "READY"
    assert index["spare"]["version"] == "1"
    assert "never_loaded" in index
    assert "version" not in index["never_loaded"]


def test_unload_and_load(client: grpcclient.InferenceServerClient) -> None:
    client.unload_model("spare", unload_dependents=True)
    assert not client.is_model_ready("spare")
    index = {m["name"]: m for m in client.get_model_repository_index(as_json=True)["models"]}
    assert index["spare"]["state"] == "UNAVAILABLE"
    client.load_model("spare")
    assert client.is_model_ready("spare")


def test_load_with_config_and_file_overrides(client: grpcclient.InferenceServerClient) -> None:
    config = json.dumps({
        "backend": "identity",
        "max_batch_size": 0,
        "input": [{"name": "INPUT0", "data_type": "TYPE_INT32", "dims": [2]}],
        "output": [{"name": "OUTPUT0", "data_type": "TYPE_INT32", "dims": [2]}],
    })
    client.load_model("spare", config=config, files={"file:1/notes.bin": b"\x00\xff"})
    try:
        metadata = client.get_model_metadata("spare", as_json=True)
        assert metadata["inputs"][0]["shape"] == ["2"]
    finally:
        client.load_model("spare")
    assert client.get_model_metadata("spare", as_json=True)["inputs"][0]["shape"] == ["-1"]
    with pytest.raises(InferenceServerException) as error:
        client.load_model("no_such_model")
    # Triton's INTERNAL (upstream's lifecycle_test checks the text).
    assert error.value.status() == "StatusCode.INTERNAL"
    assert "failed to load 'no_such_model', failed to poll from model repository" \
        in error.value.message()


# -- shared memory ----------------------------------------------------------------------


@pytest.fixture
def regions() -> Iterator[list]:
    """Shared-memory regions the test creates; destroyed at the end."""
    created: list = []
    yield created
    for handle in created:
        shm.destroy_shared_memory_region(handle)


def create_region(regions: list, name: str, size: int) -> tuple[object, str]:
    key = f"/conch_grpc_{os.getpid()}_{name}"
    handle = shm.create_shared_memory_region(name, key, size)
    regions.append(handle)
    return handle, key


def test_system_shared_memory_infer(client: grpcclient.InferenceServerClient,
                                    regions: list) -> None:
    client.unregister_system_shared_memory()
    in_handle, in_key = create_region(regions, "in0", 64)
    out_handle, out_key = create_region(regions, "out0", 64)
    a = numpy.arange(16, dtype=numpy.int32).reshape(1, 16)
    shm.set_shared_memory_region(in_handle, [a])
    client.register_system_shared_memory("in0", in_key, 64)
    client.register_system_shared_memory("out0", out_key, 64)
    status = client.get_system_shared_memory_status(as_json=True)
    assert set(status["regions"]) == {"in0", "out0"}
    assert status["regions"]["in0"]["key"] == in_key

    inputs = simple_inputs(a, numpy.ones((1, 16), dtype=numpy.int32))
    inputs[0].set_shared_memory("in0", 64)  # INPUT1 stays raw
    out0 = grpcclient.InferRequestedOutput("OUTPUT0")
    out0.set_shared_memory("out0", 64)
    out1 = grpcclient.InferRequestedOutput("OUTPUT1")
    result = client.infer("simple", inputs, outputs=[out0, out1])
    sum_ = shm.get_contents_as_numpy(out_handle, numpy.int32, [1, 16])
    assert sum_.tolist() == (a + 1).tolist()
    assert result.as_numpy("OUTPUT1").tolist() == (a - 1).tolist()
    assert result.get_output("OUTPUT0").datatype == "INT32"

    client.unregister_system_shared_memory("in0")
    with pytest.raises(InferenceServerException, match="Unable to find system shared memory"):
        client.get_system_shared_memory_status("in0")
    client.unregister_system_shared_memory()
    # A region stays registered while a request uses it (as in Triton), and
    # the server may let go of the answered request a moment after the answer.
    deadline = time.monotonic() + 10
    while client.get_system_shared_memory_status(as_json=True).get("regions", {}) != {}:
        assert time.monotonic() < deadline, "the unregistered regions never went"
        time.sleep(0.005)


def test_stream_infer_with_shared_memory(client: grpcclient.InferenceServerClient,
                                         regions: list) -> None:
    client.unregister_system_shared_memory()
    in_handle, in_key = create_region(regions, "in1", 64)
    a = numpy.arange(16, dtype=numpy.int32).reshape(1, 16)
    shm.set_shared_memory_region(in_handle, [a])
    client.register_system_shared_memory("in1", in_key, 64)
    results: list = []
    client.start_stream(callback=lambda result, error: results.append((result, error)))
    try:
        inputs = simple_inputs(a, numpy.full((1, 16), 2, dtype=numpy.int32))
        inputs[0].set_shared_memory("in1", 64)
        client.async_stream_infer("simple", inputs, request_id="s1")
    finally:
        client.stop_stream()  # waits for the responses in flight
    client.unregister_system_shared_memory()
    assert len(results) == 1
    result, error = results[0]
    assert error is None
    assert result.as_numpy("OUTPUT0").tolist() == (a + 2).tolist()


def test_a_region_registered_over_http_serves_grpc(server: conch.Server,
                                                   client: grpcclient.InferenceServerClient,
                                                   regions: list) -> None:
    client.unregister_system_shared_memory()
    in_handle, in_key = create_region(regions, "in2", 64)
    a = numpy.arange(16, dtype=numpy.int32).reshape(1, 16)
    shm.set_shared_memory_region(in_handle, [a])
    options = KServeHttp.Options(address="127.0.0.1", port=0, allow_client_shm=True)
    with KServeHttp(server, options) as http:
        http_client = httpclient.InferenceServerClient(f"127.0.0.1:{http.port}")
        http_client.register_system_shared_memory("in2", in_key, 64)
        http_client.close()
    inputs = simple_inputs(a, numpy.ones((1, 16), dtype=numpy.int32))
    inputs[0].set_shared_memory("in2", 64)
    result = client.infer("simple", inputs)
    assert result.as_numpy("OUTPUT0").tolist() == (a + 1).tolist()
    client.unregister_system_shared_memory()


# Without a driver the CUDA runtime finds no GPU; with one, the server may
# see GPUs and open (or fail to open) the handle instead.
NVIDIA_DRIVER = os.path.exists("/proc/driver/nvidia/version")


def test_cuda_shared_memory_lists_none_and_unregisters_all(
        client: grpcclient.InferenceServerClient) -> None:
    assert client.get_cuda_shared_memory_status(as_json=True).get("regions", {}) == {}
    client.unregister_cuda_shared_memory()
    client.unregister_cuda_shared_memory("anything")


@pytest.mark.skipif(NVIDIA_DRIVER, reason="the server may have GPUs on this host")
def test_cuda_shared_memory_without_a_gpu(client: grpcclient.InferenceServerClient) -> None:
    with pytest.raises(InferenceServerException,
                       match="failed to register CUDA shared memory region: 'c', "
                             "GPUs not supported"):
        client.register_cuda_shared_memory("c", b"\x00" * 64, 0, 64)
    assert client.get_cuda_shared_memory_status(as_json=True).get("regions", {}) == {}


# -- trace and logging ----------------------------------------------------------------------


def test_trace_settings(client: grpcclient.InferenceServerClient) -> None:
    # The server traces nothing until asked (test_tracing.py goes further).
    settings = client.get_trace_settings(as_json=True)["settings"]
    assert settings["trace_level"]["value"] == ["OFF"]
    assert settings["trace_mode"]["value"] == ["triton"]
    with pytest.raises(InferenceServerException, match="trace file name is not given") as error:
        client.update_trace_settings(settings={"trace_level": ["TIMESTAMPS"]})
    assert error.value.status() == "StatusCode.INVALID_ARGUMENT"


def test_log_settings(client: grpcclient.InferenceServerClient) -> None:
    settings = client.get_log_settings(as_json=True)["settings"]
    assert set(settings) == {"log_file", "log_info", "log_warning", "log_error",
                             "log_verbose_level", "log_format"}
    updated = client.update_log_settings({"log_verbose_level": 2, "log_info": False,
                                          "log_error": None}, as_json=True)["settings"]
    try:
        assert updated["log_verbose_level"]["uint32_param"] == 2
        assert updated["log_info"]["bool_param"] is False
        assert updated["log_error"] == settings["log_error"]  # None: left as it was
        with pytest.raises(InferenceServerException, match="can not be updated"):
            client.update_log_settings({"log_file": "x.log"})
        with pytest.raises(InferenceServerException) as error:
            client.update_log_settings({"log_format": "json"})
        assert error.value.status() == "StatusCode.INVALID_ARGUMENT"
    finally:
        client.update_log_settings({
            "log_verbose_level": settings["log_verbose_level"]["uint32_param"],
            "log_info": settings["log_info"]["bool_param"],
        })


# -- classification -----------------------------------------------------------------------


def test_classification(client: grpcclient.InferenceServerClient) -> None:
    data = numpy.array([[0.1, 0.7, 0.2, 0.0], [5, 1, 2, 9]], dtype=numpy.float32)
    tensor = grpcclient.InferInput("INPUT0", [2, 4], "FP32")
    tensor.set_data_from_numpy(data)
    output = grpcclient.InferRequestedOutput("OUTPUT0", class_count=2)
    result = client.infer("labelled", [tensor], outputs=[output])
    classes = result.as_numpy("OUTPUT0")
    assert classes.shape == (2, 2)
    assert classes.tolist() == [[b"0.700000:1:dog", b"0.200000:2:bird"],
                                [b"9.000000:3", b"5.000000:0:cat"]]


# -- restricted groups and max_inflight ---------------------------------------------------


def test_restricted_protocols_need_their_metadata(server: conch.Server) -> None:
    features = RestrictedFeatures()
    features.create_feature_group("admin-key", "secret", ["model-repository", "logging"])
    options = KServeGrpc.Options(address="127.0.0.1", port=0, restricted_features=features)
    with KServeGrpc(server, options) as grpc:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        with pytest.raises(InferenceServerException,
                           match="expecting header 'triton-grpc-protocol-admin-key'") as error:
            client.get_model_repository_index()
        assert error.value.status() == "StatusCode.UNAVAILABLE"
        headers = {"triton-grpc-protocol-admin-key": "secret"}
        assert client.get_model_repository_index(headers=headers) is not None
        assert client.get_log_settings(headers=headers) is not None
        with pytest.raises(InferenceServerException, match="restricted"):
            client.get_log_settings(headers={"triton-grpc-protocol-admin-key": "wrong"})
        assert client.is_server_live()
        client.close()


def test_options_restricted_features_and_max_inflight() -> None:
    options = KServeGrpc.Options()
    assert not options.restricted_features
    assert options.max_inflight == 4096
    with pytest.raises(ValueError):
        KServeGrpc.Options(max_inflight=-1)


def test_bad_restricted_groups_fail_the_start(server: conch.Server) -> None:
    features = RestrictedFeatures()
    features.create_feature_group("", "v", ["health"])
    grpc = KServeGrpc(server, KServeGrpc.Options(port=0, restricted_features=features))
    with pytest.raises(conch.InvalidArgumentError):
        grpc.start()
