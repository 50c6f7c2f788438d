"""Memory stays flat over many inferences."""

from __future__ import annotations

import gc
import tracemalloc

import numpy

import conch


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def run(model: conch.Model, count: int) -> None:
    array = numpy.ones((1, 16), dtype=numpy.float32)
    for _ in range(count):
        for response in model.infer(inputs={"INPUT0": array}, parameters={"p": 1}):
            numpy.from_dlpack(response.outputs["OUTPUT0"])
    conch._conch.run_deferred()


def test_memory_is_flat_over_many_inferences(example_server) -> None:
    model = example_server.model("identity_fp32")
    run(model, 5_000)  # warm-up: caches, allocator pools
    gc.collect()
    tracemalloc.start()
    rss_before = rss_bytes()
    traced_before, _ = tracemalloc.get_traced_memory()
    run(model, 30_000)
    gc.collect()
    traced_after, _ = tracemalloc.get_traced_memory()
    rss_after = rss_bytes()
    tracemalloc.stop()
    # A leak of one small object per request would show 30,000 times over.
    assert traced_after - traced_before < 256 * 1024
    assert rss_after - rss_before < 16 * 1024 * 1024


def test_bytes_and_queue_paths_do_not_leak(example_server, dtype_server) -> None:
    import queue

    model = dtype_server.model("identity_BYTES")
    strings = numpy.array([b"a" * 100, b"b" * 10], dtype=numpy.object_)

    def once() -> None:
        q: queue.SimpleQueue = queue.SimpleQueue()
        for response in model.infer(inputs={"INPUT0": strings}, response_queue=q):
            response.outputs["OUTPUT0"].to_bytes_array()

    for _ in range(2_000):
        once()
    gc.collect()
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    for _ in range(10_000):
        once()
    gc.collect()
    after, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert after - before < 256 * 1024
