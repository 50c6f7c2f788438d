"""A rolling restart without a failed request: three `conch serve` replicas
behind nginx (deploy/nginx/nginx.conf, as a deployment sets it up) under
steady HTTP and gRPC load, each stopped with SIGTERM and started again in
turn. Every client request succeeds, and every replica drains and exits 0
within its exit timeout.

Run by `make rollout`, not `make test`: about one run in fifteen still sees
one gRPC call fail (CANCELLED, or nginx's 502) at the moment a replica
begins to stop, and a test in `make test` must not fail by chance
(docs/deploy.md, "Rolling restarts").
"""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from typing import Callable, Iterator

import numpy
import pytest

pytestmark = pytest.mark.rollout
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from conftest import identity_config, write_model
from test_serve import DEADLINE_S, LISTENING, Serve

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPLICAS = 3
EXIT_TIMEOUT_S = 10
CLIENTS_PER_PROTOCOL = 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def answers(port: int, path: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


class Replica:
    """One `conch serve` on fixed ports, so that a restart takes them again."""

    def __init__(self, repository: pathlib.Path) -> None:
        self.repository = repository
        self.http = free_port()
        self.grpc = free_port()
        self.process: Serve | None = None

    def start(self) -> None:
        self.process = Serve("--model-repository", str(self.repository),
                             "--http-port", str(self.http), "--grpc-port", str(self.grpc),
                             "--allow-metrics", "false", "--http-thread-count", "2",
                             "--exit-timeout-secs", str(EXIT_TIMEOUT_S))
        self.process.wait_for(LISTENING)
        wait_until(lambda: answers(self.http, "/v2/health/ready"), "a replica to be ready")

    def served(self) -> int:
        """The inferences this replica (since its start) has run."""
        url = f"http://127.0.0.1:{self.http}/v2/models/m/stats"
        with urllib.request.urlopen(url, timeout=5) as reply:
            stats = json.loads(reply.read())["model_stats"][0]
        return int(stats["inference_count"])

    def stop(self) -> float:
        """SIGTERM, as a rollout sends it; the seconds until it exited 0."""
        assert self.process is not None
        began = time.monotonic()
        self.process.process.send_signal(signal.SIGTERM)
        code = self.process.process.wait(timeout=DEADLINE_S)
        took = time.monotonic() - began
        assert code == 0, self.process.rest()
        return took


class Nginx:
    """deploy/nginx/nginx.conf over the replicas, run as this user. nginx
    learns that a replica is stopping only from its answers: a refused
    connection, a 503, a reset (open-source nginx has no active health
    checks), and then tries the next one."""

    def __init__(self, workdir: pathlib.Path, replicas: list[Replica]) -> None:
        self.binary = shutil.which("nginx") or "/usr/sbin/nginx"
        assert pathlib.Path(self.binary).exists(), \
            "nginx is missing: scripts/setup.sh installs it"
        self.workdir = workdir
        self.http, self.grpc = free_port(), free_port()
        self.config = workdir / "nginx.conf"
        self.log = workdir / "error.log"
        self._write(replicas)
        self.process = subprocess.Popen(
            [self.binary, "-p", str(workdir), "-c", str(self.config), "-e", str(self.log)],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_until(lambda: answers(self.http, "/v2/health/live"), "nginx")

    def _write(self, replicas: list[Replica]) -> None:
        upstream = "server 127.0.0.1:{} max_fails=1 fail_timeout=2s;"
        config = (ROOT / "deploy/nginx/nginx.conf").read_text()
        for word, value in (("@PREFIX@", str(self.workdir)),
                            ("@HTTP_LISTEN@", f"127.0.0.1:{self.http}"),
                            ("@GRPC_LISTEN@", f"127.0.0.1:{self.grpc}"),
                            ("@HTTP_SERVERS@", " ".join(upstream.format(r.http) for r in replicas)),
                            ("@GRPC_SERVERS@", " ".join(upstream.format(r.grpc) for r in replicas))):
            config = config.replace(word, value)
        assert not re.search(r"@[A-Z_]+@", config)
        self.config.write_text(config)

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=DEADLINE_S)


class Load:
    """Clients sending inference requests one after another through nginx,
    over HTTP and gRPC, until stopped; they keep every failure."""

    def __init__(self, nginx: Nginx) -> None:
        self.nginx = nginx
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.succeeded = 0
        self.failures: list[str] = []
        self.threads = [threading.Thread(target=self._run, args=(protocol,), daemon=True)
                        for protocol in ("http", "grpc") for _ in range(CLIENTS_PER_PROTOCOL)]
        for t in self.threads:
            t.start()

    def _run(self, protocol: str) -> None:
        data = numpy.arange(4, dtype=numpy.float32)
        if protocol == "http":
            client = httpclient.InferenceServerClient(f"127.0.0.1:{self.nginx.http}")
            tensor = httpclient.InferInput("INPUT0", [4], "FP32")
        else:
            client = grpcclient.InferenceServerClient(f"127.0.0.1:{self.nginx.grpc}")
            tensor = grpcclient.InferInput("INPUT0", [4], "FP32")
        tensor.set_data_from_numpy(data)
        try:
            while not self.done.is_set():
                try:
                    result = client.infer("m", inputs=[tensor])
                    ok = numpy.array_equal(result.as_numpy("OUTPUT0"), data)
                    error = None if ok else "a wrong answer"
                except Exception as e:  # every failure is what the test looks for
                    error = f"{protocol}: {e}"
                with self.lock:
                    if error:
                        self.failures.append(error)
                    else:
                        self.succeeded += 1
        finally:
            client.close()

    def count(self) -> int:
        with self.lock:
            return self.succeeded

    def stop(self) -> None:
        self.done.set()
        for t in self.threads:
            t.join(timeout=DEADLINE_S)


@pytest.fixture
def replicas(tmp_path: pathlib.Path) -> Iterator[list[Replica]]:
    # A model that takes a little while, so that requests are in flight
    # when a replica is told to stop.
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32", delay_ms=5))
    started = [Replica(tmp_path / "models") for _ in range(REPLICAS)]
    for r in started:
        r.start()
    yield started
    for r in started:
        if r.process is not None:
            r.process.kill()


def test_a_rolling_restart_loses_no_request(replicas: list[Replica],
                                            tmp_path: pathlib.Path) -> None:
    nginx = Nginx(tmp_path, replicas)
    load = Load(nginx)
    try:
        wait_until(lambda: load.count() >= 50, "the load to run")
        for replica in replicas:
            before = load.count()
            took = replica.stop()
            assert took < EXIT_TIMEOUT_S, f"a replica drained for {took:.1f} s"
            replica.start()
            # As a rollout waits for a new replica to take traffic before it
            # stops the next: nginx sends this one requests again.
            wait_until(lambda: replica.served() >= 20, "the restarted replica to serve")
            assert load.count() >= before + 20
    finally:
        load.stop()
        nginx.close()
    assert load.failures == [], (len(load.failures), sorted(set(load.failures))[:5],
                                 nginx.log.read_text()[-3000:])
    assert load.count() >= 50 + 20 * REPLICAS
