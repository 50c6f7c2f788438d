"""The soak: mixed, misbehaving load against `conch serve` for a long while,
with model loads and unloads in between, watching the server's memory and
file descriptors (docs/benchmarks.md, "Soak").

    .venv/bin/python bench/soak/soak.py [--seconds 600] [--warmup 60]

Load, from one thread per kind, all at once:
  http-json     KServe JSON infer on identity_fp32 (keep-alive)
  http-binary   the binary tensor extension, on a fresh connection each time
  http-gzip     a gzip-compressed JSON body, and an answer asked in gzip
  pipelined     eight requests in one write on a raw socket, eight answers
  slow          a client that sends half its headers and waits: 408
  disconnect    a client that sends headers and half a body, then leaves
  grpc-unary    ModelInfer on simple
  grpc-stream   ModelStreamInfer on the decoupled repeat_int32
  python-http   KServe JSON infer on identity_python, a python-backend model
  python-grpc   ModelInfer on identity_python
  repository    add_sub_python (the python backend) loaded, used and unloaded
The repository is the example one plus identity_python, written into a
temporary folder.
It prints the server's RSS and open descriptors after the warm-up, at the
middle and at the end. It passes (exit 0) when the RSS at the end is within
10% of the RSS after the warm-up, the descriptors came back, and no request
got a status it should not have; else it says what and exits 1.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable

import numpy
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPOSITORY = ROOT / "python/examples/example_model_repository"
JSON_BODY = json.dumps({"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32",
                                    "data": [float(i) for i in range(16)]}]}).encode()
INFER = "/v2/models/identity_fp32/infer"
PYTHON_CONFIG = """name: "identity_python"
backend: "python"
max_batch_size: 0
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 1, 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 1, 16 ] } ]
"""
PYTHON_MODEL = """import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor(
                    "OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())])
                for r in requests]
"""


def soak_repository() -> pathlib.Path:
    """The example repository's models, linked, and identity_python."""
    root = pathlib.Path(tempfile.mkdtemp(prefix="conch-soak-"))
    for model in REPOSITORY.iterdir():
        if model.is_dir():
            (root / model.name).symlink_to(model)
    (root / "identity_python" / "1").mkdir(parents=True)
    (root / "identity_python" / "config.pbtxt").write_text(PYTHON_CONFIG)
    (root / "identity_python" / "1" / "model.py").write_text(PYTHON_MODEL)
    return root


class Tally:
    """Counts of outcomes per load kind, and the unexpected ones."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        self.unexpected: list[str] = []

    def note(self, kind: str, outcome: str, expected: bool = True) -> None:
        with self.lock:
            self.counts[kind][outcome] += 1
            if not expected and len(self.unexpected) < 50:
                self.unexpected.append(f"{kind}: {outcome}")


def http_exchange(port: int, request: bytes, timeout: float = 10) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data
            data += chunk


def status_of(answer: bytes) -> int:
    match = re.match(rb"HTTP/1\.1 (\d{3}) ", answer)
    return int(match.group(1)) if match else 0


def post(body: bytes, extra: str = "") -> bytes:
    return (f"POST {INFER} HTTP/1.1\r\nHost: soak\r\nConnection: close\r\n{extra}"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def load_kinds(http: int, grpc: int, tally: Tally) -> dict[str, Callable[[], None]]:
    json_client = httpclient.InferenceServerClient(f"127.0.0.1:{http}")
    repository_client = httpclient.InferenceServerClient(f"127.0.0.1:{http}")
    grpc_client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc}")
    ones = numpy.ones((1, 16), dtype=numpy.int32)

    def http_json() -> None:
        tensor = httpclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_data_from_numpy(numpy.arange(16, dtype=numpy.float32).reshape(1, 16))
        try:
            json_client.infer("identity_fp32", [tensor])
            tally.note("http-json", "200")
        except Exception as e:  # noqa: BLE001
            tally.note("http-json", f"error {e}", False)

    def http_binary() -> None:
        header = json.dumps({"inputs": [{"name": "INPUT0", "shape": [1, 16], "datatype": "FP32",
                                         "parameters": {"binary_data_size": 64}}]}).encode()
        body = header + struct.pack("<16f", *range(16))
        status = status_of(http_exchange(http, post(
            body, f"Inference-Header-Content-Length: {len(header)}\r\n")))
        tally.note("http-binary", str(status), status == 200)

    def http_gzip() -> None:
        answer = http_exchange(http, post(gzip.compress(JSON_BODY),
                                          "Content-Encoding: gzip\r\nAccept-Encoding: gzip\r\n"))
        tally.note("http-gzip", str(status_of(answer)), status_of(answer) == 200)

    def pipelined() -> None:
        one = (f"POST {INFER} HTTP/1.1\r\nHost: soak\r\nContent-Length: {len(JSON_BODY)}\r\n\r\n"
               ).encode() + JSON_BODY
        answer = http_exchange(http, one * 7 + post(JSON_BODY))
        codes = re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)
        ok = codes == [b"200"] * 8
        tally.note("pipelined", "8x200" if ok else f"{codes}", ok)

    def slow() -> None:
        answer = http_exchange(http, b"GET /v2/health/ready HTTP/1.1\r\nHost: so", timeout=20)
        tally.note("slow", str(status_of(answer)), status_of(answer) == 408)

    def disconnect() -> None:
        with socket.create_connection(("127.0.0.1", http), timeout=10) as sock:
            sock.sendall(f"POST {INFER} HTTP/1.1\r\nContent-Length: {len(JSON_BODY)}\r\n\r\n"
                         .encode() + JSON_BODY[:20])
        tally.note("disconnect", "left")
        time.sleep(0.001)

    def grpc_unary() -> None:
        inputs = [grpcclient.InferInput("INPUT0", [1, 16], "INT32"),
                  grpcclient.InferInput("INPUT1", [1, 16], "INT32")]
        for tensor in inputs:
            tensor.set_data_from_numpy(ones)
        try:
            grpc_client.infer("simple", inputs)
            tally.note("grpc-unary", "OK")
        except Exception as e:  # noqa: BLE001
            tally.note("grpc-unary", f"error {e}", False)

    def grpc_stream() -> None:
        done = threading.Event()
        results: list = []

        def callback(result, error) -> None:
            results.append(error)
            if len(results) == 4:
                done.set()

        client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc}")
        try:
            client.start_stream(callback=callback)
            tensor = grpcclient.InferInput("IN", [4], "INT32")
            tensor.set_data_from_numpy(numpy.arange(4, dtype=numpy.int32))
            client.async_stream_infer("repeat_int32", [tensor])
            ok = done.wait(10) and all(e is None for e in results)
            tally.note("grpc-stream", "4 responses" if ok else f"{results}", ok)
        finally:
            client.stop_stream()
            client.close()

    python_http_client = httpclient.InferenceServerClient(f"127.0.0.1:{http}")

    def python_http() -> None:
        tensor = httpclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_data_from_numpy(numpy.ones((1, 16), dtype=numpy.float32))
        try:
            python_http_client.infer("identity_python", [tensor])
            tally.note("python-http", "200")
        except Exception as e:  # noqa: BLE001
            tally.note("python-http", f"error {e}", False)

    python_grpc_client = grpcclient.InferenceServerClient(f"127.0.0.1:{grpc}")

    def python_grpc() -> None:
        tensor = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_data_from_numpy(numpy.ones((1, 16), dtype=numpy.float32))
        try:
            python_grpc_client.infer("identity_python", [tensor])
            tally.note("python-grpc", "OK")
        except Exception as e:  # noqa: BLE001
            tally.note("python-grpc", f"error {e}", False)

    def repository() -> None:
        try:
            repository_client.load_model("add_sub_python")
            a = httpclient.InferInput("INPUT0", [4], "FP32")
            b = httpclient.InferInput("INPUT1", [4], "FP32")
            a.set_data_from_numpy(numpy.ones(4, dtype=numpy.float32))
            b.set_data_from_numpy(numpy.ones(4, dtype=numpy.float32))
            repository_client.infer("add_sub_python", [a, b])
            repository_client.unload_model("add_sub_python")
            tally.note("repository", "load, infer, unload")
        except Exception as e:  # noqa: BLE001
            tally.note("repository", f"error {e}", False)
        time.sleep(0.5)

    return {"http-json": http_json, "http-binary": http_binary, "http-gzip": http_gzip,
            "pipelined": pipelined, "slow": slow, "disconnect": disconnect,
            "grpc-unary": grpc_unary, "grpc-stream": grpc_stream, "python-http": python_http,
            "python-grpc": python_grpc, "repository": repository}


def rss_kib(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--warmup", type=float, default=60)
    parser.add_argument("--kinds", default="", help="comma-separated load kinds to run "
                                                     "(default: all)")
    args = parser.parse_args()
    repository = soak_repository()
    command = [sys.executable, "-m", "conch", "serve", "--model-repository", str(repository),
               "--model-control-mode", "explicit", "--load-model", "identity_fp32",
               "--load-model", "simple", "--load-model", "repeat_int32",
               "--load-model", "identity_python",
               "--http-port", "0", "--grpc-port", "0", "--allow-metrics", "false",
               "--http-header-timeout", "1", "--http-body-timeout", "1"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ports: dict[str, int] = {}
    for line in server.stdout:  # type: ignore[union-attr]
        if match := re.search(r"KServe (HTTP|gRPC) listening on .*:(\d+)", line):
            ports[match.group(1)] = int(match.group(2))
        if "serving;" in line:
            break
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    pid = server.pid
    tally = Tally()
    stop = threading.Event()
    kinds = load_kinds(ports["HTTP"], ports["gRPC"], tally)
    if args.kinds:
        kinds = {k: v for k, v in kinds.items() if k in args.kinds.split(",")}

    def drive(kind: str, run: Callable[[], None]) -> None:
        while not stop.is_set():
            try:
                run()
            except Exception as e:  # noqa: BLE001 - a timeout or reset is a finding
                tally.note(kind, f"{type(e).__name__}: {e}", False)
                time.sleep(0.1)

    threads = [threading.Thread(target=drive, args=item, daemon=True) for item in kinds.items()]
    for t in threads:
        t.start()
    print(f"soak: {args.seconds:.0f} s of load on conch serve (pid {pid}), "
          f"{os.cpu_count()} CPUs, after {args.warmup:.0f} s of warm-up", flush=True)
    time.sleep(args.warmup)
    marks = [("after warm-up", rss_kib(pid), fds(pid))]
    print(f"soak: {marks[-1][0]}: RSS {marks[-1][1] / 1024:.1f} MiB, {marks[-1][2]} fds", flush=True)
    time.sleep(args.seconds / 2)
    marks.append(("middle", rss_kib(pid), fds(pid)))
    print(f"soak: {marks[-1][0]}: RSS {marks[-1][1] / 1024:.1f} MiB, {marks[-1][2]} fds", flush=True)
    time.sleep(args.seconds / 2)
    marks.append(("end", rss_kib(pid), fds(pid)))
    stop.set()
    for t in threads:
        t.join(30)
    time.sleep(2)
    idle_fds = fds(pid)
    print(f"soak: {marks[-1][0]}: RSS {marks[-1][1] / 1024:.1f} MiB, {marks[-1][2]} fds "
          f"({idle_fds} once idle)")
    server.send_signal(signal.SIGTERM)
    code = server.wait(60)
    shutil.rmtree(repository, ignore_errors=True)
    total = 0
    for kind, counts in sorted(tally.counts.items()):
        total += sum(counts.values())
        print(f"soak: {kind:12} " + ", ".join(f"{n} {o}" for o, n in counts.most_common(3)))
    growth = (marks[-1][1] - marks[0][1]) / marks[0][1]
    print(f"soak: {total} requests; RSS {growth * 100:+.1f}% from warm-up to end; "
          f"conch serve exited {code}")
    failures = list(tally.unexpected)
    failures += [f"{kind} made no progress" for kind in kinds if not tally.counts[kind]]
    if growth > 0.10:
        failures.append(f"RSS grew {growth * 100:.1f}% (more than 10%)")
    if idle_fds > marks[0][2] + 8:
        failures.append(f"{idle_fds} descriptors once idle, {marks[0][2]} after warm-up")
    if code != 0:
        failures.append(f"conch serve exited {code}")
    for f in failures:
        print(f"soak: FAILED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
