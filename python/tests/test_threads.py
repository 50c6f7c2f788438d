"""Several Python threads at once; stopping with requests in flight."""

from __future__ import annotations

import threading
import time

import numpy
import pytest

import conch


def run_threads(count: int, target) -> list:
    errors: list = []

    def guarded(i: int) -> None:
        try:
            target(i)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
        assert not t.is_alive(), "a thread did not finish"
    return errors


def test_threads_infer_at_once_and_each_gets_its_own_answer(example_server) -> None:
    model = example_server.model("identity_fp32")

    def work(i: int) -> None:
        for j in range(200):
            value = numpy.full((1, 16), i * 1000 + j, dtype=numpy.float32)
            response = list(model.infer(inputs={"INPUT0": value}))[0]
            numpy.testing.assert_array_equal(numpy.from_dlpack(response.outputs["OUTPUT0"]), value)

    assert run_threads(8, work) == []


def test_a_wait_does_not_hold_the_gil(dtype_server) -> None:
    # While the main thread waits 200 ms for a slow model, another thread runs
    # Python in the middle of that wait (a held GIL would allow it at most in
    # the first switch interval, 5 ms).
    stamps: list[float] = []
    stop = threading.Event()

    def tick() -> None:
        while not stop.is_set():
            stamps.append(time.monotonic())

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        begin = time.monotonic()
        list(dtype_server.model("slow_identity").infer(inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)}))
        end = time.monotonic()
    finally:
        stop.set()
        ticker.join()
    assert end - begin >= 0.15
    assert any(begin + 0.05 < t < end - 0.05 for t in stamps)


def test_two_threads_waiting_on_one_request_raise_already_exists(dtype_server) -> None:
    responses = dtype_server.model("slow_identity").infer(
        inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)}
    )
    got = []

    def wait() -> None:
        while True:
            try:
                got.append(next(responses))
                return
            except conch.AlreadyExistsError:
                continue  # raced with the main thread's probe; wait again

    waiter = threading.Thread(target=wait)
    waiter.start()
    deadline = time.monotonic() + 30
    saw_busy = False
    while not saw_busy and time.monotonic() < deadline and waiter.is_alive():
        try:
            assert responses._handle.get(timeout=0) is None
        except conch.AlreadyExistsError:
            saw_busy = True
    waiter.join(timeout=30)
    assert saw_busy
    assert got and got[0].final


def test_stop_with_requests_in_flight_from_several_threads(tmp_path, make_server) -> None:
    from conftest import identity_config, write_model

    write_model(tmp_path, "slow", identity_config("TYPE_INT32", delay_ms=20))
    server = make_server()
    model = server.model("slow")
    started = threading.Barrier(5)
    outcomes: list = []

    def work(i: int) -> None:
        started.wait()
        while True:
            try:
                list(model.infer(inputs={"INPUT0": numpy.array([i], dtype=numpy.int32)}))
            except (conch.UnavailableError, conch.InvalidArgumentError, conch.CancelledError) as e:
                outcomes.append(type(e))
                return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    started.wait()
    server.stop()
    for t in threads:
        t.join(timeout=60)
        assert not t.is_alive()
    assert len(outcomes) == 4


BUSY_SERVER = """
import queue, sys, threading
import numpy
import conch
from conch.frontend import KServeHttp

# Every HTTP request goes through the actors, whose thread also produces the
# in-process responses below: if handing one to Python took the GIL there,
# the HTTP requests would wait for it too.
server = conch.Server(model_repository=sys.argv[1], direct_lane=False).start(wait_until_ready=True)
http = KServeHttp(server, KServeHttp.Options(port=0))
http.start()
model = server.model("identity_fp32")
data = numpy.ones((1, 16), dtype=numpy.float32)
responses = queue.SimpleQueue()

def busy():
    # Pure Python that keeps the GIL for seconds at a time, and now and then
    # a request whose responses are pushed into a Python queue.
    sys.setswitchinterval(2.0)
    n = 0
    while True:
        n += 1
        if n % 200000 == 0:
            model.infer(inputs={"INPUT0": data}, response_queue=responses)

threading.Thread(target=busy, daemon=True).start()
print(http.port, flush=True)
sys.stdin.read()
"""


def test_a_busy_python_thread_does_not_slow_a_cpp_model() -> None:
    import subprocess
    import sys

    import tritonclient.http as httpclient

    from conftest import EXAMPLE_REPOSITORY

    process = subprocess.Popen(
        [sys.executable, "-c", BUSY_SERVER, str(EXAMPLE_REPOSITORY)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        port = int(process.stdout.readline())
        client = httpclient.InferenceServerClient(f"127.0.0.1:{port}", network_timeout=60)
        tensor = httpclient.InferInput("INPUT0", [1, 16], "FP32")
        tensor.set_data_from_numpy(numpy.ones((1, 16), dtype=numpy.float32))
        begin = time.monotonic()
        for _ in range(20):
            client.infer("identity_fp32", inputs=[tensor])
        took = time.monotonic() - begin
        # Waiting for the GIL even once a request would cost up to the busy
        # thread's 2 s switch interval; without it, 20 requests take
        # milliseconds. The bound is far from both.
        assert took < 10, f"20 requests took {took:.1f} s"
        client.close()
    finally:
        process.kill()
        process.wait()


def test_max_inflight_refuses_requests_past_it(tmp_path, make_server) -> None:
    from conftest import identity_config, write_model

    write_model(tmp_path, "slow", identity_config("TYPE_INT32", delay_ms=300))
    server = make_server(max_inflight=1)
    model = server.model("slow")
    first = model.infer(inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)})
    with pytest.raises(conch.UnavailableError, match="too many requests in flight"):
        list(model.infer(inputs={"INPUT0": numpy.array([2], dtype=numpy.int32)}))
    assert len(list(first)) == 1
    # The first request's place is free once the server let go of it, which
    # may be a moment after its caller read the answer.
    deadline = time.monotonic() + 10
    while True:
        try:
            out = list(model.infer(inputs={"INPUT0": numpy.array([3], dtype=numpy.int32)}))
            break
        except conch.UnavailableError:
            assert time.monotonic() < deadline, "the first request's place never came free"
            time.sleep(0.005)
    assert numpy.from_dlpack(out[0].outputs["OUTPUT0"]).tolist() == [3]


def test_a_negative_max_inflight_is_refused(tmp_path) -> None:
    with pytest.raises(conch.InvalidArgumentError, match="max_inflight must not be negative"):
        conch.Server(model_repository=str(tmp_path), max_inflight=-1).start()
