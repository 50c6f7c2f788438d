"""A python model's own is_ready(), consulted as Triton's python backend
consults it (its L0_backend_python model_readiness test): by every per-model
readiness query, HTTP, gRPC and in process; False, an exception, a value that
is not a bool or no answer in time make the model not ready, and inference
goes on either way."""

from __future__ import annotations

import concurrent.futures
import pathlib
import shutil
import time
from typing import Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

import conch
from conch._backend import readiness
from conch.frontend import KServeGrpc, KServeHttp

QA_MODEL = pathlib.Path(__file__).parent / "qa_models" / "readiness"

# The slow model's is_ready() outlives one query's timeout, not two.
TIMEOUT_S = 1.0
SLOW_S = 1.5

CASES = {
    "returns_true": ("true", 0),
    "returns_false": ("false", 0),
    "raises_error": ("exception", 0),
    "returns_non_boolean": ("non_boolean", 0),
    "raises_system_exit": ("system_exit", 0),
    "coroutine_returns_true": ("coroutine", 0),
    "takes_long": ("true", SLOW_S),
}


def _write(root: pathlib.Path, name: str, behaviour: str, delay: float) -> None:
    shutil.copytree(QA_MODEL, root / name)
    config = (root / name / "config.pbtxt").read_text()
    config = config.replace('name: "readiness"', f'name: "{name}"')
    config = config.replace('string_value: "true"', f'string_value: "{behaviour}"')
    config = config.replace('string_value: "0"', f'string_value: "{delay}"')
    (root / name / "config.pbtxt").write_text(config)


@pytest.fixture(scope="module")
def ports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    root = tmp_path_factory.mktemp("readiness")
    for name, (behaviour, delay) in CASES.items():
        _write(root, name, behaviour, delay)
    shutil.copytree(QA_MODEL, root / "without_check")
    model = root / "without_check" / "1" / "model.py"
    model.write_text(model.read_text().replace("def is_ready(", "def _unused("))
    (root / "without_check" / "config.pbtxt").write_text(
        (root / "without_check" / "config.pbtxt").read_text().replace(
            'name: "readiness"', 'name: "without_check"'))
    server = conch.Server(model_repository=str(root)).start(wait_until_ready=True)
    with KServeHttp(server, KServeHttp.Options(port=0)) as http, \
            KServeGrpc(server, KServeGrpc.Options(port=0)) as grpc:
        yield server, http.port, grpc.port
    server.stop()


@pytest.fixture(autouse=True)
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readiness, "TIMEOUT_S", TIMEOUT_S)


def _infer(port: int, model: str) -> None:
    client = httpclient.InferenceServerClient(f"localhost:{port}")
    data = numpy.arange(4, dtype=numpy.float32)
    tensor = httpclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(data)
    result = client.infer(model, [tensor])
    numpy.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data)
    client.close()


def _ready_everywhere(ports: tuple, model: str) -> list:
    server, http_port, grpc_port = ports
    http = httpclient.InferenceServerClient(f"localhost:{http_port}")
    grpc = grpcclient.InferenceServerClient(f"localhost:{grpc_port}")
    try:
        return [
            http.is_model_ready(model),
            http.is_model_ready(model, "1"),
            grpc.is_model_ready(model),
            server.model(model).ready(),
        ]
    finally:
        http.close()
        grpc.close()


@pytest.mark.parametrize("model,expected", [
    ("returns_true", True),
    ("returns_false", False),
    ("raises_error", False),
    ("returns_non_boolean", False),
    ("raises_system_exit", False),
    ("coroutine_returns_true", True),
    ("without_check", True),
])
def test_is_ready_decides_the_models_readiness(ports: tuple, model: str, expected: bool) -> None:
    for _ in range(3):
        assert _ready_everywhere(ports, model) == [expected] * 4
        _infer(ports[1], model)  # inference is never affected
    # The server itself stays ready: a model's readiness is its own.
    assert ports[0].ready()


def test_a_check_that_raised_leaves_other_models_ready(ports: tuple) -> None:
    assert _ready_everywhere(ports, "raises_error") == [False] * 4
    assert _ready_everywhere(ports, "returns_true") == [True] * 4


def test_a_check_that_raised_anything_leaves_the_next_check_free(ports: tuple) -> None:
    # Each query runs a check of its own again, and answers at once rather
    # than wait out a timeout behind a check that never ended.
    for _ in range(3):
        began = time.monotonic()
        assert ports[0].model("raises_system_exit").ready() is False
        assert time.monotonic() - began < TIMEOUT_S * 0.9


def test_a_slow_check_times_out_and_the_next_query_waits_for_it(ports: tuple) -> None:
    _, http_port, grpc_port = ports
    http = httpclient.InferenceServerClient(f"localhost:{http_port}")
    grpc = grpcclient.InferenceServerClient(f"localhost:{grpc_port}")
    try:
        began = time.monotonic()
        assert http.is_model_ready("takes_long") is False
        assert time.monotonic() - began >= TIMEOUT_S * 0.9
        # Still running: this query joins it rather than start another (which
        # would outlive this query's timeout too) and hears its True.
        assert grpc.is_model_ready("takes_long") is True
    finally:
        http.close()
        grpc.close()
    _infer(http_port, "takes_long")


def test_concurrent_ready_and_infer_requests(ports: tuple) -> None:
    def one(i: int) -> bool:
        model = "returns_true" if i % 2 else "coroutine_returns_true"
        _infer(ports[1], model)
        return all(_ready_everywhere(ports, model))

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        assert all(pool.map(one, range(32)))


def test_a_flood_of_queries_on_a_slow_check_is_answered(ports: tuple) -> None:
    _, http_port, _ = ports

    def ask(_: int) -> bool:
        client = httpclient.InferenceServerClient(f"localhost:{http_port}")
        try:
            return client.is_model_ready("takes_long")
        finally:
            client.close()

    # They share the checks in flight (at most one at a time), so the flood
    # costs two threads, not one per query, and each gets its answer.
    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        answers = list(pool.map(ask, range(64)))
    assert len(answers) == 64 and all(isinstance(a, bool) for a in answers)


def test_an_instance_whose_check_cannot_be_looked_up_is_finalized(tmp_path: pathlib.Path) -> None:
    """is_ready as a property that raises: the load fails with its error, and
    the instance, whose initialize() ran, is finalized all the same."""
    marker = tmp_path / "finalized"
    model = tmp_path / "models" / "unready"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(
        'name: "unready"\nbackend: "python"\nmax_batch_size: 0\n'
        'input [{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 1 ] }]\n'
        'output [{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 1 ] }]\n')
    (model / "1" / "model.py").write_text(
        "class TritonPythonModel:\n"
        "    @property\n"
        "    def is_ready(self):\n"
        "        raise RuntimeError('is_ready broke on purpose')\n"
        "    def execute(self, requests):\n"
        "        return [None for _ in requests]\n"
        "    def finalize(self):\n"
        f"        open({str(marker)!r}, 'w').write('finalized')\n")
    server = conch.Server(model_repository=str(tmp_path / "models"),
                          model_control_mode=conch.ModelControlMode.EXPLICIT
                          ).start(wait_until_ready=True)
    try:
        with pytest.raises(conch.TritonError, match="is_ready broke on purpose"):
            server.load("unready")
        assert marker.read_text() == "finalized"
    finally:
        server.stop()
