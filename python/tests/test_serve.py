"""`conch serve` (python -m conch serve) in a subprocess: it serves the
example repository over KServe HTTP, tells where it listens, and on SIGTERM
or SIGINT stops gracefully and exits 0."""

from __future__ import annotations

import contextlib
import os
import pathlib
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Iterator

import numpy
import pytest
import tritonclient.http as httpclient

from conftest import EXAMPLE_REPOSITORY

DEADLINE_S = 120
LISTENING = re.compile(r"KServe HTTP listening on \S+:(\d+)$")
METRICS = re.compile(r"metrics listening on \S+:(\d+) ")
GRPC = re.compile(r"KServe gRPC listening on \S+:(\d+)$")


class Serve:
    """A `python -m conch serve` process whose output lines are collected
    by a reader thread."""

    def __init__(self, *args: str) -> None:
        if "--metrics-port" not in args:  # never the fixed default port in tests
            args = (*args, "--metrics-port", "0")
        if "--grpc-port" not in args:
            args = (*args, "--grpc-port", "0")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "conch", "serve", *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.lines: "queue.Queue[str | None]" = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_for(self, pattern: re.Pattern) -> re.Match:
        """The first output line matching `pattern`; fails at the deadline
        or when the process ends first."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no line matching {pattern.pattern!r} in {self.seen}"
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            assert line is not None, f"exited {self.process.wait()} before {pattern.pattern!r}: " \
                                     f"{self.seen}"
            self.seen.append(line)
            if match := pattern.search(line):
                return match

    def rest(self) -> list[str]:
        """Every output line, once the process has ended."""
        while (line := self.lines.get(timeout=DEADLINE_S)) is not None:
            self.seen.append(line)
        return self.seen

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def serve() -> Iterator[type[Serve]]:
    started: list[Serve] = []

    def start(*args: str) -> Serve:
        process = Serve(*args)
        started.append(process)
        return process

    yield start  # type: ignore[misc]
    for process in started:
        process.kill()


def infer_identity(port: int) -> list[float]:
    client = httpclient.InferenceServerClient(f"localhost:{port}")
    try:
        assert client.is_server_ready()
        data = numpy.arange(16, dtype=numpy.float32).reshape(1, 16)
        tensor = httpclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_data_from_numpy(data)
        return client.infer("identity_fp32", inputs=[tensor]).as_numpy("OUTPUT0").ravel().tolist()
    finally:
        client.close()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_until_a_signal(serve, signum: signal.Signals) -> None:
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--http-thread-count", "2")
    port = int(process.wait_for(LISTENING).group(1))
    assert port > 0
    process.wait_for(re.compile(r"curl .*localhost:%d/v2/health/ready" % port))
    assert infer_identity(port) == [float(i) for i in range(16)]

    process.process.send_signal(signum)
    assert process.process.wait(timeout=DEADLINE_S) == 0
    lines = process.rest()
    assert f"conch: {signum.name} received; stopping" in lines
    assert "conch: stopped" in lines


def _native_threads_taking(pid: int, signum: int) -> list[int]:
    """The ids of `pid`'s threads other than its main one that do not block
    `signum`: threads the kernel may hand a process-directed signal to."""
    tids = []
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        tid = int(task.name)
        status = (task / "status").read_text()
        blocked = int(re.search(r"^SigBlk:\s*([0-9a-f]+)$", status, re.M).group(1), 16)
        if tid != pid and not blocked & (1 << (signum - 1)):
            tids.append(tid)
    return tids


def test_serve_stops_on_a_signal_that_a_native_thread_takes(serve) -> None:
    """A process-directed signal may land on any thread that does not block it
    (the actor system's, gRPC's, an HTTP loop's); the main thread, idle in
    its wait, must still wake up and stop."""
    import ctypes

    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0")
    port = int(process.wait_for(LISTENING).group(1))
    process.wait_for(re.compile(r"serving; stop with"))
    assert infer_identity(port) == [float(i) for i in range(16)]
    sys_tgkill = {"x86_64": 234, "aarch64": 131}.get(os.uname().machine)
    if sys_tgkill is None:
        pytest.skip(f"no tgkill number known for {os.uname().machine}")
    pid = process.process.pid
    tids = _native_threads_taking(pid, signal.SIGTERM)
    assert tids, "every native thread blocks SIGTERM"
    # A thread may end between the listing and the kill: try the next one.
    libc = ctypes.CDLL(None)
    assert any(libc.syscall(sys_tgkill, pid, tid, int(signal.SIGTERM)) == 0
               for tid in reversed(tids))
    assert process.process.wait(timeout=DEADLINE_S) == 0
    assert "conch: SIGTERM received; stopping" in process.rest()


def test_serve_serves_metrics_too(serve) -> None:
    import urllib.request

    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0")
    process.wait_for(LISTENING)
    port = int(process.wait_for(METRICS).group(1))
    with urllib.request.urlopen(f"http://localhost:{port}/metrics", timeout=30) as reply:
        text = reply.read().decode()
    assert 'nv_inference_count{model="identity_fp32",version="1"}' in text
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_serve_serves_grpc_too(serve) -> None:
    import tritonclient.grpc as grpcclient

    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0")
    port = int(process.wait_for(GRPC).group(1))
    client = grpcclient.InferenceServerClient(f"localhost:{port}")
    try:
        tensor = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_data_from_numpy(numpy.arange(16, dtype=numpy.float32).reshape(1, 16))
        out = client.infer("identity_fp32", inputs=[tensor]).as_numpy("OUTPUT0")
        assert out.ravel().tolist() == [float(i) for i in range(16)]
    finally:
        client.close()
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_serve_without_grpc(serve) -> None:
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--allow-grpc", "false")
    process.wait_for(LISTENING)
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0
    assert not any("gRPC" in line for line in process.rest())


def test_serve_explicit_mode_loads_the_named_models(serve) -> None:
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--model-control-mode", "explicit", "--load-model", "identity_fp32",
                    "--log-info", "true", "--exit-timeout-secs", "10")
    port = int(process.wait_for(LISTENING).group(1))
    client = httpclient.InferenceServerClient(f"localhost:{port}")
    try:
        assert client.is_model_ready("identity_fp32")
        assert not client.is_model_ready("simple")
        client.load_model("simple")
        assert client.is_model_ready("simple")
    finally:
        client.close()
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_serve_reports_a_port_in_use(serve) -> None:
    first = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                  "--http-thread-count", "1")
    port = first.wait_for(LISTENING).group(1)
    second = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", port,
                   "--http-thread-count", "1")
    assert second.process.wait(timeout=DEADLINE_S) == 1
    assert any("failed to start" in line for line in second.rest())
    first.process.terminate()
    assert first.process.wait(timeout=DEADLINE_S) == 0


def test_serve_metrics_flags(serve) -> None:
    import urllib.request

    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--metrics-port", "0", "--allow-cpu-metrics", "false",
                    "--allow-gpu-metrics=false", "--metrics-interval-ms", "500",
                    "--metrics-config", "summary_latencies=true",
                    "--metrics-config", "summary_quantiles=0.5:0.05,0.9:0.01")
    port = int(process.wait_for(LISTENING).group(1))
    metrics_port = int(process.wait_for(METRICS).group(1))
    infer_identity(port)
    with urllib.request.urlopen(f"http://localhost:{metrics_port}/metrics", timeout=30) as reply:
        text = reply.read().decode()
    assert 'nv_inference_request_summary_us_count{model="identity_fp32",version="1"} 1' in text
    assert 'quantile="0.9"' in text and 'quantile="0.99"' not in text
    assert "nv_cpu_utilization" not in text
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


@pytest.mark.parametrize("setting", ["summary_latencies", "=true", "no_such_setting=1"])
def test_serve_refuses_bad_metrics_config(setting: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "conch", "serve", "--model-repository", str(EXAMPLE_REPOSITORY),
         "--http-port", "0", "--allow-grpc", "false", "--metrics-port", "0",
         "--metrics-config", setting],
        capture_output=True, text=True, timeout=DEADLINE_S,
    )
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "SETTING=VALUE" in said or "'no_such_setting'" in said, said


def test_serve_refuses_bad_flags() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "conch", "serve", "--model-repository", "x",
         "--http-port", "70000"],
        capture_output=True, text=True, timeout=DEADLINE_S,
    )
    assert done.returncode == 2
    assert "--http-port" in done.stderr


def test_the_console_script_exists() -> None:
    script = pathlib.Path(sys.executable).parent / "conch"
    done = subprocess.run([str(script), "serve", "--help"], capture_output=True, text=True,
                          timeout=DEADLINE_S)
    assert done.returncode == 0
    assert "--model-repository" in done.stdout and "--http-port" in done.stdout


@pytest.mark.parametrize("flag, expected", [([], True), (["--direct-lane", "false"], False),
                                            (["--direct-lane"], True)])
def test_serve_direct_lane_flag(flag: list[str], expected: bool) -> None:
    import argparse

    from conch import _serve

    parser = argparse.ArgumentParser()
    _serve.add_serve_arguments(parser)
    args = parser.parse_args(["--model-repository", str(EXAMPLE_REPOSITORY), *flag])
    options = _serve._options(args)
    assert options.direct_lane is expected
    assert options._to_native().direct_lane is expected


def test_serve_memory_pool_flags_reach_the_server_options() -> None:
    import argparse

    from conch import _serve

    parser = argparse.ArgumentParser()
    _serve.add_serve_arguments(parser)
    args = parser.parse_args(["--model-repository", str(EXAMPLE_REPOSITORY)])
    native = _serve._options(args)._to_native()
    assert native.pinned_memory_pool_byte_size == 1 << 28
    assert native.cuda_memory_pool_byte_size == {}
    args = parser.parse_args(["--model-repository", str(EXAMPLE_REPOSITORY),
                              "--pinned-memory-pool-byte-size", "0",
                              "--cuda-memory-pool-byte-size", "0:1024",
                              "--cuda-memory-pool-byte-size", "3:0"])
    native = _serve._options(args)._to_native()
    assert native.pinned_memory_pool_byte_size == 0
    assert native.cuda_memory_pool_byte_size == {0: 1024, 3: 0}
    for bad in (["--pinned-memory-pool-byte-size", "-1"],
                ["--cuda-memory-pool-byte-size", "1024"],
                ["--cuda-memory-pool-byte-size", "a:1"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["--model-repository", str(EXAMPLE_REPOSITORY), *bad])


def test_serve_without_the_direct_lane_still_serves(serve) -> None:
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--direct-lane", "false", "--allow-grpc", "false")
    port = int(process.wait_for(LISTENING).group(1))
    assert infer_identity(port) == [float(i) for i in range(16)]
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_sigterm_with_a_model_that_never_returns_exits_1_on_time(serve, tmp_path) -> None:
    # A request is stuck in model code that never returns: SIGTERM still ends
    # the process within the exit timeout and its grace, with status 1 (the
    # drain failed), and the client hears an error rather than nothing.
    model = tmp_path / "stuck"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(
        'name: "stuck"\nbackend: "python"\nmax_batch_size: 0\n'
        'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    )
    entered = tmp_path / "entered"
    (model / "1" / "model.py").write_text(
        "import pathlib, time\n"
        "class TritonPythonModel:\n"
        "    def execute(self, requests):\n"
        f"        pathlib.Path({str(entered)!r}).touch()\n"
        "        while True:\n"
        "            time.sleep(0.01)\n"
    )
    process = serve("--model-repository", str(tmp_path), "--http-port", "0",
                    "--exit-timeout-secs", "1")
    port = int(process.wait_for(LISTENING).group(1))
    outcome: dict[str, str] = {}

    def infer() -> None:
        client = httpclient.InferenceServerClient(f"localhost:{port}", network_timeout=60)
        tensor = httpclient.InferInput("INPUT0", [4], "FP32")
        tensor.set_data_from_numpy(numpy.ones(4, dtype=numpy.float32))
        try:
            client.infer("stuck", inputs=[tensor])
            outcome["infer"] = "answered"
        except Exception as e:  # noqa: BLE001 - any error will do
            outcome["infer"] = f"error: {e}"

    client = threading.Thread(target=infer)
    client.start()
    deadline = time.monotonic() + DEADLINE_S
    while not entered.exists():
        assert time.monotonic() < deadline, "the request never reached the model"
        time.sleep(0.01)
    begin = time.monotonic()
    process.process.send_signal(signal.SIGTERM)
    assert process.process.wait(timeout=DEADLINE_S) == 1
    assert time.monotonic() - begin < 10
    client.join(DEADLINE_S)
    assert outcome["infer"].startswith("error"), outcome
    lines = process.rest()
    assert "conch: stopped with an error: Exit timeout expired. Exiting immediately." in lines


def test_serve_connection_policy_flags() -> None:
    import argparse

    from conch import _serve

    parser = argparse.ArgumentParser()
    _serve.add_serve_arguments(parser)
    args = parser.parse_args(["--model-repository", str(EXAMPLE_REPOSITORY),
                              "--http-header-timeout", "2.5", "--http-max-connections", "7",
                              "--http-drain-timeout", "0", "--grpc-max-message-size", "1024"])
    policy = _serve._policy(args)
    assert policy["header_timeout"] == 2.5
    assert policy["max_connections"] == 7
    assert policy["drain_timeout"] == 0
    assert policy["keepalive_timeout"] == 75.0
    assert args.grpc_max_message_size == 1024
    assert args.http_max_header_size == 64 * 1024
    for bad in (["--http-body-timeout", "-1"], ["--http-max-connections", "-3"],
                ["--grpc-max-message-size", "0"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["--model-repository", str(EXAMPLE_REPOSITORY), *bad])


def test_serve_times_out_a_slow_client(serve) -> None:
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--allow-grpc", "false", "--allow-metrics", "false",
                    "--http-header-timeout", "0.2")
    port = int(process.wait_for(LISTENING).group(1))
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S) as sock:
        sock.sendall(b"GET /v2/health/ready HTTP/1.1\r\n")
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 408 ")
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_serve_traces_with_tritons_trace_config(serve, tmp_path: pathlib.Path) -> None:
    import json
    import urllib.request

    trace_file = tmp_path / "trace.json"
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--allow-grpc", "false", "--trace-config", f"triton,file={trace_file}",
                    "--trace-config", "level=TIMESTAMPS", "--trace-config", "rate=1")
    port = int(process.wait_for(LISTENING).group(1))
    infer_identity(port)
    with urllib.request.urlopen(f"http://localhost:{port}/v2/trace/setting",
                                timeout=30) as reply:
        settings = json.loads(reply.read())
    assert settings["trace_level"] == ["TIMESTAMPS"] and settings["trace_rate"] == "1"
    assert settings["trace_file"] == str(trace_file)
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0
    objects = json.loads(trace_file.read_text())
    assert [o["model_name"] for o in objects if "model_name" in o] == ["identity_fp32"]


def test_serve_takes_the_deprecated_trace_flags_with_tritons_warnings(
        capsys: pytest.CaptureFixture) -> None:
    import argparse

    from conch import _serve

    parser = argparse.ArgumentParser()
    _serve.add_serve_arguments(parser)
    args = parser.parse_args(["--model-repository", str(EXAMPLE_REPOSITORY),
                              "--trace-file", "/tmp/t.json", "--trace-rate", "5",
                              "--trace-config", "rate=7"])
    assert _serve._trace_config(args) == ["triton,file=/tmp/t.json", "rate=7"]
    said = capsys.readouterr().err
    assert "Warning: '--trace-file' has been deprecated" in said
    assert "Overriding deprecated '--trace-rate' in favor of provided rate value" in said
    native = _serve._options(args)._to_native()
    assert native is not None


def test_serve_refuses_a_bad_trace_config() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "conch", "serve", "--model-repository", str(EXAMPLE_REPOSITORY),
         "--http-port", "0", "--allow-grpc", "false", "--metrics-port", "0",
         "--trace-config", "rate=fast"],
        capture_output=True, text=True, timeout=DEADLINE_S,
    )
    assert done.returncode != 0
    assert "Invalid option value. Got fast" in done.stdout + done.stderr


def test_serve_serves_sagemaker(serve) -> None:
    sagemaker = re.compile(r"SageMaker listening on \S+:(\d+) ")
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--allow-http", "false",
                    "--allow-grpc", "false", "--allow-metrics", "false",
                    "--allow-sagemaker", "--sagemaker-port", "0")
    port = int(process.wait_for(sagemaker).group(1))
    import urllib.request

    with urllib.request.urlopen(f"http://localhost:{port}/ping", timeout=30) as reply:
        assert reply.status == 200
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_serve_holds_the_other_frontends_to_sagemakers_safe_port_range() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "conch", "serve", "--model-repository", str(EXAMPLE_REPOSITORY),
         "--allow-sagemaker", "--sagemaker-safe-port-range", "8081-9000",
         "--http-port", "8000", "--allow-grpc", "false", "--allow-metrics", "false"],
        capture_output=True, text=True, timeout=DEADLINE_S,
        env={**os.environ, "SAGEMAKER_BIND_TO_PORT": "8080"},
    )
    assert done.returncode == 2
    assert ("The server cannot listen to HTTP requests at port 8000, allowed port range is "
            "[8081, 9000]") in done.stderr


@contextlib.contextmanager
def environment(**env: str) -> Iterator[None]:
    """`env` set in os.environ (where `conch serve` reads it) for a while."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k)
            else:
                os.environ[k] = v


def test_serve_runs_a_sagemaker_multi_model_endpoint(serve) -> None:
    import json
    import urllib.request

    sagemaker = re.compile(r"SageMaker listening on \S+:(\d+) \(a multi-model endpoint")
    with environment(SAGEMAKER_MULTI_MODEL="true", SAGEMAKER_BIND_TO_PORT="0",
                     SAGEMAKER_TRITON_THREAD_COUNT="2"):
        # No repository: the endpoint starts empty, in explicit mode.
        process = serve("--allow-http", "false", "--allow-grpc", "false",
                        "--allow-metrics", "false", "--allow-sagemaker")
    port = int(process.wait_for(sagemaker).group(1))
    base = f"http://localhost:{port}"

    def post(path: str, body: dict, method: str = "POST") -> tuple[int, bytes]:
        request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                         method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, reply.read()

    with urllib.request.urlopen(f"{base}/ping", timeout=30) as reply:
        assert reply.status == 200
    url = str(EXAMPLE_REPOSITORY / "identity_fp32")
    assert post("/models", {"model_name": "abc", "url": url}) == (200, b"")
    status, reply = post("/models/abc/invoke", {"inputs": [
        {"name": "INPUT0", "datatype": "FP32", "shape": [1, 16], "data": list(range(16))}]})
    assert status == 200 and json.loads(reply)["model_name"] == "abc"
    assert post("/models/abc", {}, method="DELETE") == (200, b"")
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_serve_takes_vertex_ais_environment(serve, tmp_path: pathlib.Path) -> None:
    import json
    import urllib.request

    vertex = re.compile(r"Vertex AI listening on \S+:(\d+) ")
    with environment(AIP_MODE="PREDICTION", AIP_STORAGE_URI=str(EXAMPLE_REPOSITORY),
                     AIP_HTTP_PORT="0", AIP_HEALTH_ROUTE="/health", AIP_PREDICT_ROUTE="/predict"):
        process = serve("--allow-metrics", "false", "--load-model", "identity_fp32",
                        "--model-control-mode", "explicit")
    port = int(process.wait_for(vertex).group(1))
    assert not any("KServe HTTP listening" in line for line in process.seen)
    with urllib.request.urlopen(f"http://localhost:{port}/health", timeout=30) as reply:
        assert reply.status == 200
    body = json.dumps({"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1, 16],
                                   "data": list(range(16))}]}).encode()
    request = urllib.request.Request(f"http://localhost:{port}/predict", data=body,
                                     method="POST")
    with urllib.request.urlopen(request, timeout=30) as reply:
        assert json.loads(reply.read())["model_name"] == "identity_fp32"
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0
