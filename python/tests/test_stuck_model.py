"""A Python model whose execute() never returns, with requests in flight
in-process, over HTTP and over gRPC (unary and streaming): stop() still ends
within exit_timeout plus its grace, raising InternalError, every client hears
an answer, and the interpreter exits normally afterwards. Each case runs in a
subprocess, where a hang cannot stop the test runner."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from conftest import write_model

STUCK_MODEL = """
import asyncio, os, time
import numpy
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    {kind}def execute(self, requests):
        with open(os.environ["CONCH_TEST_ENTERED"], "a") as f:
            f.write("entered\\n")
        # Never returns: a deadlock, a hung device call, an await or a BLS
        # request that never ends.
        while True:
            {wait}
"""

# How the model waits: (async execute?, the loop's body).
WAITS = {
    "sleeping": ("", "time.sleep(0.01)"),
    "spinning": ("", "pass"),
    "awaiting": ("async ", "await asyncio.Event().wait()"),
    # A BLS request to another instance of the same model, which never
    # answers either.
    "calling": ("", "pb_utils.InferenceRequest(model_name='stuck', requested_output_names=[], "
                    "inputs=[pb_utils.Tensor('INPUT0', numpy.ones(4, numpy.float32))]).exec()"),
}

STUCK_CONFIG = """
    backend: "python"
    max_batch_size: 0
    input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    instance_group [ { count: 4 kind: KIND_CPU } ]
"""

SCRIPT = """
import os, pathlib, sys, threading, time
import numpy
import conch
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from conch.frontend import KServeGrpc, KServeHttp

entered = pathlib.Path(os.environ["CONCH_TEST_ENTERED"])
server = conch.Server(model_repository=sys.argv[1], exit_timeout=1).start(wait_until_ready=True)
http = KServeHttp(server, KServeHttp.Options(port=0))
http.start()
grpc = KServeGrpc(server, KServeGrpc.Options(port=0))
grpc.start()
data = numpy.ones(4, dtype=numpy.float32)
outcomes = {}

def inprocess():
    try:
        for _ in server.model("stuck").infer(inputs={"INPUT0": data}):
            pass
        outcomes["inprocess"] = "answered"
    except conch.UnavailableError as e:
        outcomes["inprocess"] = "unavailable"

def over_http():
    client = httpclient.InferenceServerClient(f"127.0.0.1:{http.port}", network_timeout=60)
    inp = httpclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(data)
    try:
        client.infer("stuck", [inp])
        outcomes["http"] = "answered"
    except Exception as e:
        outcomes["http"] = "error"
    finally:
        # Closed here, on its own thread: left to the garbage collector, the
        # gevent-based client may be finalized on a model's thread, whose
        # thread state then holds a gevent hub that gevent cannot tear down
        # when that thread ends.
        client.close()

grpc_client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc.port}")

def over_grpc():
    inp = grpcclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(data)
    try:
        grpc_client.infer("stuck", [inp], client_timeout=60)
        outcomes["grpc"] = "answered"
    except Exception as e:
        outcomes["grpc"] = "error"

stream_done = threading.Event()
def on_stream(result, error):
    outcomes["stream"] = "error" if error is not None else "answered"
    stream_done.set()

threads = [threading.Thread(target=f) for f in (inprocess, over_http, over_grpc)]
for t in threads:
    t.start()
grpc_client.start_stream(callback=on_stream)
inp = grpcclient.InferInput("INPUT0", [4], "FP32")
inp.set_data_from_numpy(data)
grpc_client.async_stream_infer("stuck", [inp])

deadline = time.monotonic() + 60
while (not entered.exists() or len(entered.read_text().split()) < 4) and time.monotonic() < deadline:
    time.sleep(0.01)
assert len(entered.read_text().split()) == 4, "the requests never reached the model"

begin = time.monotonic()
try:
    server.stop()
    print("stop: returned")
except conch.InternalError as e:
    print("stop:", e)
print("took", round(time.monotonic() - begin, 1))
# The abandoned executions get ExecutionAbandoned raised in their Python code,
# so their threads end before the interpreter finalizes.
from conch import _conch
print("interrupted", _conch.interrupted_executions())
deadline = time.monotonic() + 30
while _conch.interrupted_executions() > 0 and time.monotonic() < deadline:
    _conch.run_deferred()
    time.sleep(0.01)
print("interrupted left", _conch.interrupted_executions())
for t in threads:
    t.join(10)
stream_done.wait(10)
grpc_client.stop_stream()
print("outcomes", sorted(outcomes.items()))
http.stop()
grpc.stop()
print("done")
"""


@pytest.mark.parametrize("wait", list(WAITS))
def test_a_model_that_never_returns_does_not_hold_stop_or_exit(
    tmp_path: pathlib.Path, wait: str
) -> None:
    model = write_model(tmp_path / "models", "stuck", STUCK_CONFIG)
    kind, body = WAITS[wait]
    (model / "1" / "model.py").write_text(STUCK_MODEL.format(kind=kind, wait=body))
    entered = tmp_path / "entered"
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT), str(tmp_path / "models")],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONFAULTHANDLER": "1", "CONCH_TEST_ENTERED": str(entered)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "stop: Exit timeout expired. Exiting immediately." in lines, done.stdout + done.stderr
    took = float(next(line for line in lines if line.startswith("took")).split()[1])
    assert took < 5, took
    outcomes = next(line for line in lines if line.startswith("outcomes"))
    for key in ("grpc", "http", "inprocess", "stream"):
        assert f"('{key}', " in outcomes, outcomes
    assert "answered" not in outcomes, outcomes
    assert "('inprocess', 'unavailable')" in outcomes, outcomes
    # Some may have returned by the time it is read; none is left after.
    assert any(line.startswith("interrupted ") for line in lines), lines
    assert "interrupted left 0" in lines, lines
    assert lines[-1] == "done"
