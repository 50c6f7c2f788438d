"""conch.frontend.Metrics: the Prometheus metrics frontend, scraped over real
sockets with urllib, and its Options and lifecycle as upstream's
tritonfrontend defines them."""

from __future__ import annotations

import pathlib
import re
import socket
import time
import urllib.error
import urllib.request
from typing import Iterator, Optional

import numpy
import pytest

import conch
from conch.frontend import Metrics

from conftest import identity_config, write_model

SUCCESS = "nv_inference_request_success"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[conch.Server]:
    repository = tmp_path_factory.mktemp("metrics")
    write_model(repository, "identity_INT32", identity_config("TYPE_INT32"))
    server = conch.Server(model_repository=str(repository)).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def frontend(server: conch.Server) -> Iterator[Metrics]:
    with Metrics(server, Metrics.Options(address="127.0.0.1", port=0)) as metrics:
        yield metrics


def fetch(port: int, path: str = "/metrics", method: str = "GET") -> tuple[int, str, str]:
    """(status, Content-Type, body) of one request to localhost:port."""
    data = b"" if method != "GET" else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return (response.status, response.headers["Content-Type"],
                    response.read().decode())
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def sample(text: str, family: str, labels: str) -> Optional[float]:
    """The value of `family`'s series whose label set is exactly `labels`."""
    match = re.search(rf"^{family}\{{{re.escape(labels)}\}} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else None


def identity_sample(port: int, family: str) -> Optional[float]:
    return sample(fetch(port)[2], family, 'model="identity_INT32",version="1"')


def refused(port: int) -> bool:
    """True when nothing accepts connections on localhost:port."""
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


# -- scraping ----------------------------------------------------------------------------


def test_scrape_serves_the_exposition(server: conch.Server, frontend: Metrics) -> None:
    status, content_type, body = fetch(frontend.port)
    assert status == 200
    assert content_type == "text/plain; charset=utf-8"
    assert "# TYPE nv_inference_request_success counter" in body
    assert f"# HELP {SUCCESS} Number of successful inference requests, all batch sizes" in body
    assert identity_sample(frontend.port, "nv_inference_count") is not None
    assert fetch(frontend.port, "/metrics/")[0] == 200


def test_success_counter_moves_after_an_infer(server: conch.Server, frontend: Metrics) -> None:
    before = identity_sample(frontend.port, SUCCESS)
    assert before is not None
    responses = list(server.model("identity_INT32").infer(
        inputs={"INPUT0": numpy.arange(4, dtype=numpy.int32)}))
    assert responses[-1].final
    # The counter moves as the request completes, just after its final
    # response was delivered; the scrape is repeated until a deadline.
    deadline = time.monotonic() + 10
    while identity_sample(frontend.port, SUCCESS) != before + 1:
        assert time.monotonic() < deadline, fetch(frontend.port)[2]
        time.sleep(0.01)
    assert identity_sample(frontend.port, SUCCESS) == before + 1


def test_other_methods_and_paths(frontend: Metrics) -> None:
    assert fetch(frontend.port, method="POST")[0] == 405
    assert fetch(frontend.port, method="DELETE")[0] == 405
    assert fetch(frontend.port, "/")[0] == 404
    assert fetch(frontend.port, "/v2/health/live")[0] == 404


# -- lifecycle ----------------------------------------------------------------------------


def test_restart_after_stop(server: conch.Server) -> None:
    metrics = Metrics(server, Metrics.Options(port=0))
    assert metrics.port == 0
    metrics.start()
    first = metrics.port
    assert first > 0
    assert fetch(first)[0] == 200
    metrics.stop()
    assert refused(first)
    metrics.start()
    assert fetch(metrics.port)[0] == 200
    metrics.stop()


def test_start_twice(server: conch.Server) -> None:
    metrics = Metrics(server, Metrics.Options(port=0))
    metrics.start()
    try:
        with pytest.raises(conch.AlreadyExistsError, match="server is already running."):
            metrics.start()
    finally:
        metrics.stop()
    with pytest.raises(conch.UnavailableError, match="not running"):
        metrics.stop()


def test_port_in_use(server: conch.Server, frontend: Metrics) -> None:
    metrics = Metrics(server, Metrics.Options(port=frontend.port))
    with pytest.raises(conch.UnavailableError):
        metrics.start()
    with pytest.raises(conch.UnavailableError):
        with Metrics(server, Metrics.Options(port=frontend.port)):
            pass
    assert fetch(frontend.port)[0] == 200


def test_context_manager(server: conch.Server) -> None:
    with Metrics(server, Metrics.Options(port=0)) as metrics:
        port = metrics.port
        assert fetch(port)[0] == 200
    assert refused(port)


def test_context_manager_lets_the_body_error_through(server: conch.Server) -> None:
    with pytest.raises(KeyError, match="body"):
        with Metrics(server, Metrics.Options(port=0)) as metrics:
            port = metrics.port
            raise KeyError("body")
    assert refused(port)


def test_server_stop_stops_the_frontend(tmp_path: pathlib.Path) -> None:
    write_model(tmp_path, "identity_INT32", identity_config("TYPE_INT32"))
    server = conch.Server(model_repository=str(tmp_path)).start(wait_until_ready=True)
    metrics = Metrics(server, Metrics.Options(port=0))
    metrics.start()
    port = metrics.port
    server.stop()  # stops the frontend first
    assert refused(port)
    metrics.stop()  # the server stopped it already: nothing to do
    with pytest.raises(conch.UnavailableError):
        metrics.start()


def test_unstarted_server() -> None:
    server = conch.Server(model_repository="unused")
    with pytest.raises(conch.InvalidArgumentError, match="Server not started"):
        Metrics(server)


# -- options ------------------------------------------------------------------------------


def test_options_defaults() -> None:
    options = Metrics.Options()
    assert (options.address, options.port, options.thread_count) == ("0.0.0.0", 8002, 1)


@pytest.mark.parametrize("fields", [
    {"port": -1},
    {"port": 65536},
    {"thread_count": 0},
    {"thread_count": -1},
    {"address": 10},
    {"port": "ten"},
])
def test_options_validation(fields: dict) -> None:
    with pytest.raises(ValueError):
        Metrics.Options(**fields)


def test_options_coercion_and_order() -> None:
    assert Metrics.Options(port="12").port == 12
    assert Metrics.Options(port=8080.0).port == 8080
    positional = Metrics.Options("127.0.0.1", 9002, 2)
    assert (positional.address, positional.port, positional.thread_count) == (
        "127.0.0.1", 9002, 2)
    # As upstream, assignment after construction is not validated; start() is.
    options = Metrics.Options(port=0)
    options.thread_count = 0
    assert options.thread_count == 0


def test_unvalidated_assignment_is_refused_at_start(server: conch.Server) -> None:
    options = Metrics.Options(port=0)
    options.thread_count = 0
    with pytest.raises(conch.InvalidArgumentError, match="thread_count"):
        Metrics(server, options).start()


def test_options_of_the_wrong_type(server: conch.Server) -> None:
    message = "Incorrect type for options. options argument must be of type Metrics.Options"
    with pytest.raises(conch.InvalidArgumentError, match=message):
        Metrics(server, {"port": 0})
    with pytest.raises(conch.InvalidArgumentError, match="Incorrect type"):
        Metrics(server, conch.frontend.KServeHttp.Options(port=0))


def test_tritonfrontend_exports_metrics() -> None:
    import tritonfrontend

    assert tritonfrontend.Metrics is Metrics
    assert tritonfrontend.Metrics.Options is Metrics.Options
