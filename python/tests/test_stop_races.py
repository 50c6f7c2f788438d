"""Stops that race — server.stop() from two threads, a frontend's ``with``
exit against server.stop() — never raise because another stop is running."""

from __future__ import annotations

import threading

import conch
from conch.frontend import KServeGrpc, KServeHttp
from conftest import EXAMPLE_REPOSITORY


def race(first, second) -> list[BaseException]:
    """Runs both at the same moment on two threads; returns what they raised."""
    barrier = threading.Barrier(2)
    raised: list[BaseException] = []

    def run(fn) -> None:
        barrier.wait()
        try:
            fn()
        except BaseException as e:  # noqa: BLE001 - collected for the assertion
            raised.append(e)

    other = threading.Thread(target=run, args=(second,))
    other.start()
    run(first)
    other.join()
    return raised


def started() -> conch.Server:
    return conch.Server(model_repository=str(EXAMPLE_REPOSITORY)).start(wait_until_ready=True)


def test_two_threads_stopping_the_server() -> None:
    for _ in range(100):
        server = started()
        assert race(server.stop, server.stop) == []
        server.stop()  # and once more, after: a no-op


def test_frontend_with_exits_racing_with_server_stop() -> None:
    for _ in range(100):
        server = started()
        http = KServeHttp(server, KServeHttp.Options(port=0))
        grpc = KServeGrpc(server, KServeGrpc.Options(port=0))

        def serve_then_exit() -> None:
            with http, grpc:
                pass

        raised = race(serve_then_exit, server.stop)
        # A frontend that starts after the server stopped cannot; that is the
        # only error either side may see. No stop raises.
        assert all(isinstance(e, conch.UnavailableError) for e in raised), raised
        assert all("already" not in str(e) for e in raised), raised
        server.stop()


def test_a_stop_inside_the_with_block() -> None:
    server = started()
    with KServeHttp(server, KServeHttp.Options(port=0)):
        server.stop()
    server.stop()
