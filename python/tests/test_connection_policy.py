"""The HTTP connection policy through the Python API: KServeHttp.Options and
Metrics.Options carry the timeouts and caps, slow clients are timed out and
counted in /metrics, and a stop under slow clients ends on time."""

from __future__ import annotations

import re
import socket
import time
import urllib.request
from typing import Iterator

import pytest

import conch
from conch.frontend import KServeHttp, Metrics

from conftest import identity_config, write_model


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[conch.Server]:
    repository = tmp_path_factory.mktemp("policy")
    write_model(repository, "identity_INT32", identity_config("TYPE_INT32"))
    server = conch.Server(model_repository=str(repository)).start(wait_until_ready=True)
    yield server
    server.stop()


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk


def _series(text: str, name: str, **labels: str) -> float:
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no series {name} {labels} in:\n{text}")


def test_options_carry_the_policy_and_refuse_bad_values() -> None:
    options = KServeHttp.Options(header_timeout=0.5, max_connections=10)
    assert options.header_timeout == 0.5
    assert options.keepalive_timeout == 75.0
    assert options.max_inflight_bytes == 1 << 30
    assert Metrics.Options().drain_timeout == 5.0
    with pytest.raises(ValueError):
        KServeHttp.Options(write_timeout=-1)
    with pytest.raises(ValueError):
        Metrics.Options(max_connections=-1)


def test_a_slow_client_gets_408_and_is_counted(server: conch.Server) -> None:
    options = KServeHttp.Options(address="127.0.0.1", port=0, header_timeout=0.2)
    with KServeHttp(server, options) as http, \
            Metrics(server, Metrics.Options(address="127.0.0.1", port=0)) as metrics:
        sock = _connect(http.port)
        sock.sendall(b"GET /v2/health/ready HTTP/1.1\r\nHost: x\r\n")
        answer = _read_all(sock)
        sock.close()
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b"did not arrive within 200 ms" in answer
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics.port}/metrics").read().decode()
        assert _series(text, "conch_connection_timeouts_total", frontend="HTTP",
                       port=str(http.port), kind="header") == 1
        assert _series(text, "conch_connections_accepted_total", frontend="HTTP",
                       port=str(http.port)) >= 1
        assert _series(text, "conch_connections_open", frontend="Metrics",
                       port=str(metrics.port)) >= 1
        assert "# TYPE conch_request_bytes_held gauge" in text
        assert text.count("# TYPE conch_connections_open gauge") == 1


def test_stop_under_slow_clients_ends_within_the_drain_timeout(server: conch.Server) -> None:
    # The client that once held a stop for the whole exit timeout: headers
    # and half a body, then nothing.
    http = KServeHttp(server, KServeHttp.Options(address="127.0.0.1", port=0, drain_timeout=0.5))
    http.start()
    clients = []
    for _ in range(20):
        sock = _connect(http.port)
        sock.sendall(b"POST /v2/models/identity_INT32/infer HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: 1000\r\n\r\n" + b"{" * 500)
        clients.append(sock)
    idle = _connect(http.port)
    time.sleep(0.1)
    began = time.monotonic()
    http.stop()
    took = time.monotonic() - began
    assert took < 3, took
    for sock in clients:
        assert _read_all(sock).startswith(b"HTTP/1.1 503 ")
        sock.close()
    assert _read_all(idle) == b""
    idle.close()


def test_connections_past_the_cap_are_closed(server: conch.Server) -> None:
    with KServeHttp(server, KServeHttp.Options(address="127.0.0.1", port=0,
                                               max_connections=2)) as http:
        kept = [_connect(http.port) for _ in range(2)]
        for sock in kept:
            sock.sendall(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        extra = _connect(http.port)
        assert _read_all(extra) == b""
        for sock in kept + [extra]:
            sock.close()
