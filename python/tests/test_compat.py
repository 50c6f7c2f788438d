"""The compatibility packages (python/compat): `tritonserver`, `tritonfrontend` and
`triton_python_backend_utils` are conch's objects under the upstream names,
and the upstream examples (in-process and tritonfrontend) run unchanged."""

from __future__ import annotations

import pathlib
import socket
import subprocess
import sys

import numpy
import pytest

import conch

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"

# The names upstream's tritonserver exports (less Metric and MetricFamily,
# which Conch does not have yet).
UPSTREAM_NAMES = [
    "Server", "Options", "Model", "InferenceRequest", "InferenceResponse", "Tensor",
    "MemoryBuffer", "RateLimiterResource",
    "DataType", "MemoryType", "DLDeviceType", "ModelBatchFlag", "ModelTxnPropertyFlag",
    "InstanceGroupKind", "LogFormat", "MetricFormat", "MetricKind", "ModelControlMode",
    "RateLimitMode",
    "TritonError", "NotFoundError", "UnknownError", "InternalError", "InvalidArgumentError",
    "UnavailableError", "AlreadyExistsError", "UnsupportedError",
]


def test_tritonserver_names_are_conch_objects() -> None:
    import tritonserver

    for name in UPSTREAM_NAMES:
        assert getattr(tritonserver, name) is getattr(conch, name), name
    for name in conch.__all__:
        assert getattr(tritonserver, name) is getattr(conch, name), name
    assert tritonserver.__version__ == conch.__version__


def test_tritonserver_errors_are_caught_by_either_name() -> None:
    import tritonserver

    server = tritonserver.Server(tritonserver.Options(model_repository="unused"))
    with pytest.raises(tritonserver.InvalidArgumentError, match="Server not started") as caught:
        server.model("identity")
    assert isinstance(caught.value, conch.InvalidArgumentError)


def test_triton_python_backend_utils_is_conch_python_backend_utils() -> None:
    import triton_python_backend_utils as pb_utils
    from conch import python_backend_utils

    assert pb_utils.__all__ == python_backend_utils.__all__
    for name in python_backend_utils.__all__:
        assert getattr(pb_utils, name) is getattr(python_backend_utils, name), name


def test_the_example_python_model(example_server) -> None:
    model = example_server.model("add_sub_python")
    a = numpy.array([1, 2, 3, 4], dtype=numpy.float32)
    b = numpy.array([4, 3, 2, 1], dtype=numpy.float32)
    response = list(model.infer(inputs={"INPUT0": a, "INPUT1": b}))[0]
    assert numpy.from_dlpack(response.outputs["OUTPUT0"]).tolist() == [5, 5, 5, 5]
    assert numpy.from_dlpack(response.outputs["OUTPUT1"]).tolist() == [-3, -1, 1, 3]


def test_the_inprocess_example_runs_unchanged() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "inprocess_example.py")],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "[[b'Roger Roger']]" in lines
    printed = " ".join(lines[lines.index("[[b'Roger Roger']]") + 1:])
    assert printed.startswith("[[ 0.  1.  2.") and printed.endswith("15.]]")


def test_tritonfrontend_names_are_conch_objects() -> None:
    import tritonfrontend
    from conch import frontend

    assert tritonfrontend.KServeHttp is frontend.KServeHttp
    assert tritonfrontend.KServeHttp.Options is frontend.KServeHttp.Options
    assert tritonfrontend.OpenAI is frontend.OpenAI


def test_tritonfrontend_errors_are_tritonserver_errors() -> None:
    import tritonfrontend
    import tritonserver

    server = tritonserver.Server(tritonserver.Options(model_repository="unused"))
    with pytest.raises(tritonserver.InvalidArgumentError, match="Server not started"):
        tritonfrontend.KServeHttp(server)


def test_the_tritonfrontend_example_runs_unchanged() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "example.py"), str(port)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[[b'Roger Roger']]"


def test_upstreams_module_layout_resolves_after_a_plain_import() -> None:
    """Upstream code names classes by their modules (Triton's OpenAI frontend
    annotates with tritonserver._api._response.InferenceResponse)."""
    import tritonserver

    api = tritonserver._api
    assert api._response.InferenceResponse is conch.InferenceResponse
    assert api._server.Server is conch.Server and api._server.Options is conch.Options
    assert api._model.Model is conch.Model
    assert api._request.InferenceRequest is conch.InferenceRequest
    assert api._tensor.Tensor is conch.Tensor and api._tensor.DataType is conch.DataType
    assert api._memorybuffer.MemoryBuffer is conch.MemoryBuffer
    assert api._dlpack.DLDeviceType is conch.DLDeviceType
    assert callable(api._logging.LogMessage)
    from tritonserver._api._server import ModelControlMode  # noqa: F401
