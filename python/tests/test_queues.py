"""response_queue with queue.SimpleQueue and asyncio.Queue."""

from __future__ import annotations

import asyncio
import queue

import numpy
import pytest

import conch


def test_simple_queue_gets_each_response_once_and_the_iterator_all(example_server) -> None:
    user_queue: queue.SimpleQueue = queue.SimpleQueue()
    responses = list(
        example_server.model("repeat_int32").infer(
            inputs={"IN": numpy.array([1, 2], dtype=numpy.int32)}, response_queue=user_queue
        )
    )
    assert len(responses) == 3
    queued = [user_queue.get_nowait() for _ in range(3)]
    assert queued == responses and all(q is r for q, r in zip(queued, responses))
    assert user_queue.empty()


def test_simple_queue_is_filled_without_iterating(example_server) -> None:
    user_queue: queue.SimpleQueue = queue.SimpleQueue()
    example_server.model("repeat_int32").infer(
        inputs={"IN": numpy.array([5, 6], dtype=numpy.int32)}, response_queue=user_queue
    )
    received = [user_queue.get(timeout=30) for _ in range(3)]
    assert [r.final for r in received] == [False, False, True]
    assert int(numpy.from_dlpack(received[1].outputs["OUT"])[0]) == 6


def test_asyncio_queue_gets_each_response_once(example_server) -> None:
    async def run() -> tuple[list, list]:
        user_queue: asyncio.Queue = asyncio.Queue()
        model = example_server.model("repeat_int32")
        responses = [
            r
            async for r in model.async_infer(
                inputs={"IN": numpy.array([3, 4, 5], dtype=numpy.int32)}, response_queue=user_queue
            )
        ]
        queued = [user_queue.get_nowait() for _ in range(user_queue.qsize())]
        return responses, queued

    responses, queued = asyncio.run(run())
    assert len(responses) == 4
    assert all(q is r for q, r in zip(queued, responses)) and len(queued) == 4


def test_asyncio_queue_needs_a_running_loop(example_server) -> None:
    with pytest.raises(RuntimeError):
        example_server.model("repeat_int32").async_infer(
            inputs={"IN": numpy.array([1], dtype=numpy.int32)}, response_queue=asyncio.Queue()
        )


def test_async_iterator_made_outside_a_loop_still_works(example_server) -> None:
    responses = example_server.model("repeat_int32").async_infer(
        inputs={"IN": numpy.array([1, 2], dtype=numpy.int32)}
    )

    async def collect() -> list:
        return [r async for r in responses]

    assert [r.final for r in asyncio.run(collect())] == [False, False, True]


def test_async_errors_are_raised(example_server) -> None:
    async def run() -> None:
        async for _ in example_server.model("repeat_int32").async_infer(inputs={"WRONG": [1]}):
            pass

    with pytest.raises(conch.InvalidArgumentError):
        asyncio.run(run())


def test_two_concurrent_anext_calls_raise_already_exists(dtype_server) -> None:
    async def run() -> None:
        responses = dtype_server.model("slow_identity").async_infer(
            inputs={"INPUT0": numpy.array([1], dtype=numpy.int32)}
        )
        first = asyncio.ensure_future(responses.__anext__())
        await asyncio.sleep(0)  # lets `first` start waiting
        with pytest.raises(conch.AlreadyExistsError):
            await responses.__anext__()
        assert (await first).final

    asyncio.run(run())
