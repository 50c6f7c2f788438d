"""Interpreter exit with a running server neither hangs nor crashes."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from conftest import EXAMPLE_REPOSITORY, identity_config, write_model

PRELUDE = """
import asyncio, queue, sys, threading
import numpy
import conch
server = conch.Server(model_repository=sys.argv[1]).start(wait_until_ready=True)
slow = server.model("slow")
"""


def run_script(body: str, repository: pathlib.Path) -> subprocess.CompletedProcess:
    script = textwrap.dedent(PRELUDE) + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", script, str(repository)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
    )


@pytest.fixture
def slow_repository(tmp_path: pathlib.Path) -> pathlib.Path:
    write_model(tmp_path, "slow", identity_config("TYPE_INT32", delay_ms=300))
    return tmp_path


def check(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 0, result.stderr
    assert "Fatal Python error" not in result.stderr
    assert "done" in result.stdout


def test_exit_without_stop(slow_repository) -> None:
    check(run_script("""
        list(slow.infer(inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)}))
        print("done")
    """, slow_repository))


def test_exit_while_a_daemon_thread_waits_for_a_response(slow_repository) -> None:
    check(run_script("""
        waiting = threading.Event()
        def wait():
            responses = slow.infer(inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)})
            waiting.set()
            for _ in responses:
                pass
        threading.Thread(target=wait, daemon=True).start()
        waiting.wait()
        print("done")
    """, slow_repository))


def test_exit_with_requests_that_deliver_into_python_queues(slow_repository) -> None:
    check(run_script("""
        q = queue.SimpleQueue()
        for i in range(8):
            slow.infer(inputs={"INPUT0": numpy.array([i], dtype=numpy.int32)}, response_queue=q)
        print("done")
    """, slow_repository))


def test_exit_with_an_async_request_in_flight(slow_repository) -> None:
    check(run_script("""
        async def main():
            responses = slow.async_infer(inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)})
            return responses
        kept = asyncio.run(main())
        print("done")
    """, slow_repository))


def test_exit_with_a_server_stopped_and_objects_kept(slow_repository) -> None:
    check(run_script("""
        responses = slow.infer(inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)})
        tensor = list(responses)[0].outputs["OUTPUT0"]
        server.stop()
        print(numpy.from_dlpack(tensor).tolist())
        print("done")
    """, slow_repository))
