"""What a python-backend request leaves behind is released, whichever path it
came by: `conch serve` answering KServe HTTP, gRPC unary and gRPC streaming,
the in-process `infer` and `async_infer`, and requests that fail. Each path
runs long enough after a warm-up that a leak of one small object per request
(a KiB) would show many times over in the server's resident memory."""

from __future__ import annotations

import asyncio
import gc
import http.client
import json
import os
import pathlib
import queue
import re
import subprocess
import sys
import threading
import time
from typing import Callable, Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient

import conch
from conch.frontend import KServeHttp
from conftest import write_model

WARMUP = 3_000
COUNT = 15_000
# A KiB per request would be 15 MiB; allocator noise stays far below this.
GROWTH_LIMIT = 4 * 1024 * 1024

IDENTITY_PY = """\
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            data = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
            if data[0][0] < 0:
                responses.append(pb_utils.InferenceResponse(
                    error=pb_utils.TritonError("negative input")))
            else:
                responses.append(pb_utils.InferenceResponse(
                    output_tensors=[pb_utils.Tensor("OUTPUT0", data)]))
        return responses
"""

RAISES_PY = """\
class TritonPythonModel:
    def execute(self, requests):
        raise ValueError("this model always fails")
"""

CONFIG = """
    backend: "python"
    max_batch_size: 0
    input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 1, 16 ] } ]
    output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 1, 16 ] } ]
    instance_group [ { count: 1 kind: KIND_CPU } ]
"""


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    root = tmp_path_factory.mktemp("python_memory")
    for name, code in (("identity_py", IDENTITY_PY), ("raises_py", RAISES_PY)):
        model = write_model(root, name, CONFIG)
        (model / "1" / "model.py").write_text(code)
    return root


def rss_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        match = re.search(r"VmRSS:\s+(\d+) kB", f.read())
    assert match
    return int(match.group(1)) * 1024


def growth(pid: int, run: Callable[[int], None]) -> int:
    """The RSS `pid` gains over COUNT requests of `run`, after WARMUP."""
    run(WARMUP)
    time.sleep(0.2)  # what is released after a sweep is released by now
    before = rss_of(pid)
    run(COUNT)
    time.sleep(0.2)
    return rss_of(pid) - before


def body(value: float) -> bytes:
    return json.dumps({"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32",
                                   "data": [value] * 16}]}).encode()


def http_requests(port: int, model: str, value: float, status: int) -> Callable[[int], None]:
    payload = body(value)

    def run(count: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            for _ in range(count):
                connection.request("POST", f"/v2/models/{model}/infer", payload,
                                   {"Content-Type": "application/json"})
                answer = connection.getresponse()
                answer.read()
                assert answer.status == status
        finally:
            connection.close()
    return run


def grpc_input(value: float) -> list[grpcclient.InferInput]:
    tensor = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
    tensor.set_data_from_numpy(numpy.full((1, 16), value, dtype=numpy.float32))
    return [tensor]


class Serve:
    """`conch serve` over the repository, in a process of its own, so that
    nothing but its own threads can release what its requests leave."""

    def __init__(self, repository: pathlib.Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "conch", "serve", "--model-repository", str(repository),
             "--http-port", "0", "--grpc-port", "0", "--allow-metrics", "false"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.ports: dict[str, int] = {}
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if match := re.search(r"KServe (HTTP|gRPC) listening on \S+:(\d+)$", line.rstrip()):
                self.ports[match.group(1)] = int(match.group(2))
            if "serving;" in line:
                break
        assert set(self.ports) == {"HTTP", "gRPC"}, "conch serve did not start"
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    def stop(self) -> None:
        self.process.terminate()
        assert self.process.wait(60) == 0


@pytest.fixture(scope="module")
def served(repository: pathlib.Path) -> Iterator[Serve]:
    process = Serve(repository)
    yield process
    process.stop()


def test_kserve_http_leaves_nothing_behind(served: Serve) -> None:
    run = http_requests(served.ports["HTTP"], "identity_py", 1.0, 200)
    assert growth(served.process.pid, run) < GROWTH_LIMIT


def test_failed_http_requests_leave_nothing_behind(served: Serve) -> None:
    errors = http_requests(served.ports["HTTP"], "identity_py", -1.0, 500)
    raised = http_requests(served.ports["HTTP"], "raises_py", 1.0, 500)

    def run(count: int) -> None:
        errors(count // 2)
        raised(count // 2)
    assert growth(served.process.pid, run) < GROWTH_LIMIT


def test_grpc_unary_leaves_nothing_behind(served: Serve) -> None:
    client = grpcclient.InferenceServerClient(f"127.0.0.1:{served.ports['gRPC']}")
    inputs = grpc_input(1.0)

    def run(count: int) -> None:
        for _ in range(count):
            client.infer("identity_py", inputs)
    try:
        assert growth(served.process.pid, run) < GROWTH_LIMIT
    finally:
        client.close()


def test_grpc_streaming_leaves_nothing_behind(served: Serve) -> None:
    client = grpcclient.InferenceServerClient(f"127.0.0.1:{served.ports['gRPC']}")
    answers: queue.SimpleQueue = queue.SimpleQueue()
    client.start_stream(callback=lambda result, error: answers.put(error))
    inputs = grpc_input(1.0)

    def run(count: int) -> None:
        # A window of requests in flight, each answered before the next.
        window = 16
        for i in range(count):
            client.async_stream_infer("identity_py", inputs)
            if i >= window:
                assert answers.get(timeout=30) is None
        for _ in range(min(window, count)):
            assert answers.get(timeout=30) is None
    try:
        assert growth(served.process.pid, run) < GROWTH_LIMIT
    finally:
        client.stop_stream()
        client.close()


@pytest.fixture(scope="module")
def server(repository: pathlib.Path) -> Iterator[conch.Server]:
    server = conch.Server(model_repository=str(repository)).start(wait_until_ready=True)
    yield server
    server.stop()


def own_growth(run: Callable[[int], None]) -> int:
    """growth() for this process, with its garbage collected first."""
    def collected(count: int) -> None:
        run(count)
        gc.collect()
    return growth(os.getpid(), collected)


def array(value: float) -> numpy.ndarray:
    return numpy.full((1, 16), value, dtype=numpy.float32)


def test_infer_leaves_nothing_behind(server: conch.Server) -> None:
    model = server.model("identity_py")
    data = array(1.0)

    def run(count: int) -> None:
        for _ in range(count):
            for response in model.infer(inputs={"INPUT0": data}):
                numpy.from_dlpack(response.outputs["OUTPUT0"])
    assert own_growth(run) < GROWTH_LIMIT


def test_async_infer_leaves_nothing_behind(server: conch.Server) -> None:
    model = server.model("identity_py")
    data = array(1.0)

    async def requests(count: int) -> None:
        for _ in range(count):
            async for response in model.async_infer(inputs={"INPUT0": data}):
                numpy.from_dlpack(response.outputs["OUTPUT0"])

    assert own_growth(lambda count: asyncio.run(requests(count))) < GROWTH_LIMIT


def test_failed_in_process_requests_leave_nothing_behind(server: conch.Server) -> None:
    negative = array(-1.0)
    positive = array(1.0)

    def run(count: int) -> None:
        for i in range(count):
            model, data = ((server.model("identity_py"), negative) if i % 2
                           else (server.model("raises_py"), positive))
            with pytest.raises(conch.TritonError):
                for _ in model.infer(inputs={"INPUT0": data}):
                    pass
    assert own_growth(run) < GROWTH_LIMIT


def test_releases_happen_while_no_python_thread_enters_the_extension(
        server: conch.Server) -> None:
    """Over HTTP nothing of the client's enters the extension, and the main
    thread, waiting in a join, runs no pending call: the releaser must
    release what the responses held."""
    waiting: list[int] = []

    def client(port: int) -> None:
        run = http_requests(port, "identity_py", 1.0, 200)
        for _ in range(10):
            run(300)
            waiting.append(conch._conch.deferred_calls_waiting())
        time.sleep(0.3)  # several sweeps
        waiting.append(conch._conch.deferred_calls_waiting())

    with KServeHttp(server, KServeHttp.Options(port=0, thread_count=1)) as http_frontend:
        thread = threading.Thread(target=client, args=(http_frontend.port,))
        thread.start()
        thread.join()
    assert len(waiting) == 11
    # Bounded under load: the releaser runs them once 256 wait (a leak
    # would leave 300, 600, ... 3000 waiting) ...
    assert max(waiting[:-1]) < 512, waiting
    # ... and nothing at all once idle.
    assert waiting[-1] == 0, waiting
