"""The two servers of the HTTP benchmark: Conch's `conch serve` and nginx
answering every POST to the infer URL with bytes captured from Conch."""

from __future__ import annotations

import http.client
import os
import pathlib
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

INFER_PATH = "/v2/models/identity_fp32/infer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Reply:
    """One HTTP answer: the status, the headers that describe the body, the body."""

    status: int
    content_type: str
    header_length: str | None
    body: bytes


def post(port: int, body: bytes, headers: dict[str, str], path: str = INFER_PATH) -> Reply:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, body=body, headers=headers)
        r = conn.getresponse()
        return Reply(r.status, r.getheader("Content-Type", ""),
                     r.getheader("Inference-Header-Content-Length"), r.read())
    finally:
        conn.close()


def wait_until(port: int, path: str, process: subprocess.Popen, log: pathlib.Path,
               seconds: float = 60.0) -> None:
    """Waits until GET `path` answers 200; fails if the process ends first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"http_bench: the server exited ({process.returncode}):\n{log.read_text()}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    sys.exit(f"http_bench: no answer on port {port} within {seconds:.0f} s:\n{log.read_text()}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_conch(conch: str, repository: str, workdir: pathlib.Path,
                thread_count: int | None, allocator: str | None = None,
                direct_lane: str | None = None,
                models: tuple[str, ...] = ("identity_fp32",)) -> tuple[subprocess.Popen, int]:
    """`conch serve` with only `models` loaded and only the HTTP frontend."""
    port = free_port()
    log = workdir / "conch.log"
    command = [conch, "serve", "--model-repository", repository,
               "--model-control-mode", "explicit",
               "--http-address", "127.0.0.1", "--http-port", str(port),
               "--allow-grpc", "false", "--allow-metrics", "false"]
    for model in models:
        command += ["--load-model", model]
    if thread_count is not None:
        command += ["--http-thread-count", str(thread_count)]
    if allocator is not None:
        command += ["--allocator", allocator]
    if direct_lane is not None:
        command += ["--direct-lane", direct_lane]
    process = subprocess.Popen(command, stdout=log.open("w"), stderr=subprocess.STDOUT)
    wait_until(port, "/v2/health/ready", process, log)
    return process, port


def nginx_string(body: bytes) -> str:
    """`body` as a single-quoted nginx string; only plain printable bytes fit."""
    text = body.decode("ascii")
    if any(c in text for c in "'\\$") or not text.isprintable():
        sys.exit("http_bench: a captured reply has bytes nginx's `return` cannot hold")
    return f"'{text}'"


def nginx_config(workdir: pathlib.Path, port: int, reply: Reply) -> str:
    """A config whose infer location answers every request with `reply`."""
    extra = (f"            add_header Inference-Header-Content-Length {reply.header_length};\n"
             if reply.header_length else "")
    return f"""daemon off;
worker_processes {len(os.sched_getaffinity(0))};
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    server_tokens off;
    keepalive_requests 100000000;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location = {INFER_PATH} {{
            default_type {reply.content_type};
{extra}            return 200 {nginx_string(reply.body)};
        }}
        location = /ready {{ return 200; }}
    }}
}}
"""


def start_nginx(nginx: str, workdir: pathlib.Path, reply: Reply) -> tuple[subprocess.Popen, int]:
    """nginx as this user answering with `reply`, all it writes under `workdir`."""
    port = free_port()
    config = workdir / "nginx.conf"
    config.write_text(nginx_config(workdir, port, reply))
    log = workdir / "nginx.log"
    process = subprocess.Popen([nginx, "-p", str(workdir), "-c", str(config), "-e",
                                str(workdir / "nginx-error.log")],
                               stdout=log.open("w"), stderr=subprocess.STDOUT)
    wait_until(port, "/ready", process, log)
    return process, port
