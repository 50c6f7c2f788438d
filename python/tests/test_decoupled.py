"""Decoupled models and cancellation."""

from __future__ import annotations

import asyncio
import pathlib

import numpy
import pytest

import conch
from conftest import write_model

REPEAT_WITH_DELAY = """
    backend: "repeat"
    max_batch_size: 0
    model_transaction_policy { decoupled: true }
    input [
      { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] },
      { name: "DELAY" data_type: TYPE_UINT32 dims: [ -1 ] }
    ]
    output [
      { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },
      { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] }
    ]
"""


def test_repeat_streams_one_response_per_element(example_server: conch.Server) -> None:
    values = numpy.array([7, 8, 9], dtype=numpy.int32)
    responses = list(example_server.model("repeat_int32").infer(inputs={"IN": values}))
    assert [r.final for r in responses] == [False, False, False, True]
    assert responses[-1].outputs == {}
    assert [int(numpy.from_dlpack(r.outputs["OUT"])[0]) for r in responses[:-1]] == [7, 8, 9]
    assert [int(numpy.from_dlpack(r.outputs["IDX"])[0]) for r in responses[:-1]] == [0, 1, 2]


def test_async_iteration_streams_too(example_server: conch.Server) -> None:
    async def collect() -> list[conch.InferenceResponse]:
        model = example_server.model("repeat_int32")
        return [r async for r in model.async_infer(inputs={"IN": numpy.arange(4, dtype=numpy.int32)})]

    responses = asyncio.run(collect())
    assert len(responses) == 5 and responses[-1].final
    assert [int(numpy.from_dlpack(r.outputs["OUT"])[0]) for r in responses[:-1]] == [0, 1, 2, 3]


def test_cancelling_a_running_stream_ends_it_with_cancelled_error(
    tmp_path: pathlib.Path, make_server
) -> None:
    write_model(tmp_path, "repeat_delay", REPEAT_WITH_DELAY)
    server = make_server()
    responses = server.model("repeat_delay").infer(
        inputs={
            "IN": numpy.array([10, 20, 30], dtype=numpy.int32),
            # The second response would come a minute later: only the cancel
            # can end the stream within the test's time.
            "DELAY": numpy.array([0, 60_000, 0], dtype=numpy.uint32),
        }
    )
    first = next(responses)
    assert int(numpy.from_dlpack(first.outputs["OUT"])[0]) == 10
    responses.cancel()
    with pytest.raises(conch.CancelledError):
        next(responses)
    with pytest.raises(StopIteration):
        next(responses)


def test_cancelling_a_queued_request(dtype_server: conch.Server) -> None:
    model = dtype_server.model("slow_identity")
    running = model.infer(inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)})
    queued = model.infer(inputs={"INPUT0": numpy.array([2], dtype=numpy.int32)})
    queued.cancel()
    with pytest.raises(conch.UnknownError) as caught:  # upstream-style code catches it so
        next(queued)
    assert isinstance(caught.value, conch.CancelledError)
    assert numpy.from_dlpack(next(running).outputs["OUTPUT0"]).tolist() == [1]


def test_cancel_after_completion_is_a_no_op(example_server: conch.Server) -> None:
    responses = example_server.model("identity_fp32").infer(
        inputs={"INPUT0": numpy.zeros((1, 16), dtype=numpy.float32)}
    )
    assert len(list(responses)) == 1
    responses.cancel()
