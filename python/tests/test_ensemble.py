"""Ensembles as Triton's users meet them: the example repository's
simple_ensemble (two steps through a Python model) over tritonclient HTTP
and gRPC and in-process, its composing model loaded with it in EXPLICIT
mode, statistics per step and for the ensemble, and step errors."""

from __future__ import annotations

import pathlib
from typing import Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import KServeGrpc, KServeHttp
from conftest import EXAMPLE_REPOSITORY, write_model

A = numpy.array([1, 2, 3, 4], dtype=numpy.float32)
B = numpy.array([10, 20, 30, 40], dtype=numpy.float32)


@pytest.fixture(scope="module")
def server() -> Iterator[conch.Server]:
    server = conch.Server(
        model_repository=str(EXAMPLE_REPOSITORY),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        startup_models=["simple_ensemble"],
    ).start(wait_until_ready=True)
    yield server
    server.stop()


def test_loading_the_ensemble_loads_its_composing_model(server: conch.Server) -> None:
    assert server.model("simple_ensemble").ready()
    assert server.model("add_sub_python").ready()


def test_in_process(server: conch.Server) -> None:
    response = list(server.model("simple_ensemble").infer(inputs={"INPUT0": A, "INPUT1": B}))[0]
    assert numpy.from_dlpack(response.outputs["OUTPUT0"]).tolist() == (2 * A).tolist()
    assert numpy.from_dlpack(response.outputs["OUTPUT1"]).tolist() == (2 * B).tolist()


def test_tritonclient_http(server: conch.Server) -> None:
    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=2)) as http:
        client = httpclient.InferenceServerClient(f"127.0.0.1:{http.port}")
        inputs = [httpclient.InferInput("INPUT0", [4], "FP32"),
                  httpclient.InferInput("INPUT1", [4], "FP32")]
        inputs[0].set_data_from_numpy(A)
        inputs[1].set_data_from_numpy(B, binary_data=False)
        before = client.get_inference_statistics("add_sub_python")["model_stats"][0]
        result = client.infer("simple_ensemble", inputs, request_id="e1")
        assert result.get_response()["id"] == "e1"
        assert result.as_numpy("OUTPUT0").tolist() == (2 * A).tolist()
        assert result.as_numpy("OUTPUT1").tolist() == (2 * B).tolist()
        # Two executions of the composing model, one of the ensemble.
        after = client.get_inference_statistics("add_sub_python")["model_stats"][0]
        assert int(after["execution_count"]) == int(before["execution_count"]) + 2
        stats = client.get_inference_statistics("simple_ensemble")["model_stats"][0]
        assert int(stats["inference_stats"]["success"]["count"]) >= 1
        assert client.is_model_ready("simple_ensemble")
        config = client.get_model_config("simple_ensemble")
        assert config["platform"] == "ensemble"
        assert len(config["ensemble_scheduling"]["step"]) == 2


def test_tritonclient_grpc(server: conch.Server) -> None:
    with KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as grpc:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")
        inputs = [grpcclient.InferInput("INPUT0", [4], "FP32"),
                  grpcclient.InferInput("INPUT1", [4], "FP32")]
        inputs[0].set_data_from_numpy(A)
        inputs[1].set_data_from_numpy(B)
        outputs = [grpcclient.InferRequestedOutput("OUTPUT1")]
        result = client.infer("simple_ensemble", inputs, outputs=outputs)
        assert result.as_numpy("OUTPUT0") is None
        assert result.as_numpy("OUTPUT1").tolist() == (2 * B).tolist()
        with pytest.raises(InferenceServerException) as wrong:
            bad = [grpcclient.InferInput("INPUT0", [3], "FP32"),
                   grpcclient.InferInput("INPUT1", [4], "FP32")]
            bad[0].set_data_from_numpy(A[:3])
            bad[1].set_data_from_numpy(B)
            client.infer("simple_ensemble", bad)
        assert "INPUT0" in wrong.value.message()


def test_a_failing_step_answers_with_its_error_and_the_server_keeps_serving(
        tmp_path: pathlib.Path) -> None:
    (write_model(tmp_path, "fails", PYTHON_CONFIG) / "1" / "model.py").write_text(FAILING_MODEL)
    write_model(tmp_path, "pipe", ENSEMBLE_CONFIG)
    server = conch.Server(model_repository=str(tmp_path)).start(wait_until_ready=True)
    try:
        model = server.model("pipe")
        with pytest.raises(conch.InvalidArgumentError, match="^in ensemble 'pipe', no negatives"):
            list(model.infer(inputs={"IN": -A}))
        response = list(model.infer(inputs={"IN": A}))[0]
        assert numpy.from_dlpack(response.outputs["OUT"]).tolist() == A.tolist()
    finally:
        server.stop()


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_tritonclient_unload_dependents_takes_the_composing_model_along(
        tmp_path: pathlib.Path, protocol: str) -> None:
    write_model(tmp_path, "ident", IDENTITY_CONFIG)
    write_model(tmp_path, "pipe", ENSEMBLE_OF_IDENT)
    server = conch.Server(
        model_repository=str(tmp_path),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
    ).start(wait_until_ready=True)
    try:
        frontend = (KServeHttp(server, KServeHttp.Options(port=0, thread_count=2))
                    if protocol == "http"
                    else KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)))
        with frontend:
            module = httpclient if protocol == "http" else grpcclient
            client = module.InferenceServerClient(f"127.0.0.1:{frontend.port}")
            client.load_model("pipe")
            assert client.is_model_ready("ident")
            client.unload_model("pipe")
            assert client.is_model_ready("ident")  # stays without the parameter
            client.load_model("pipe")
            client.unload_model("pipe", unload_dependents=True)
            assert not client.is_model_ready("pipe")
            assert not client.is_model_ready("ident")
            metadata = client.get_server_metadata()
            extensions = (metadata["extensions"] if protocol == "http"
                          else list(metadata.extensions))
            assert "model_repository(unload_dependents)" in extensions
    finally:
        server.stop()


IDENTITY_CONFIG = """
backend: "identity"
max_batch_size: 0
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""

ENSEMBLE_OF_IDENT = """
platform: "ensemble"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [ { model_name: "ident"
  input_map { key: "INPUT0" value: "IN" } output_map { key: "OUTPUT0" value: "OUT" } } ] }
"""

PYTHON_CONFIG = """
backend: "python"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""

FAILING_MODEL = '''
import numpy
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            if (x < 0).any():
                responses.append(pb_utils.InferenceResponse(
                    error=pb_utils.TritonError("no negatives",
                                               pb_utils.TritonError.INVALID_ARG)))
            else:
                responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)]))
        return responses
'''

ENSEMBLE_CONFIG = """
platform: "ensemble"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [ { model_name: "fails"
  input_map { key: "X" value: "IN" } output_map { key: "Y" value: "OUT" } } ] }
"""
