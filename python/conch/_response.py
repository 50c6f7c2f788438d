"""InferenceResponse and the iterators that yield a request's responses."""

from __future__ import annotations

import asyncio
import collections
import queue
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional, cast

from . import _conch
from ._errors import AlreadyExistsError, TritonError
from ._tensor import MemoryBuffer, Tensor
from ._enums import DataType, MemoryType

if TYPE_CHECKING:
    from ._model import Model
    from ._request import InferenceRequest

__all__ = ["InferenceResponse", "ResponseIterator", "AsyncResponseIterator"]

# Enum members by value, for the per-response path (an index is cheaper than
# an enum call).
_DATA_TYPES = list(DataType)
_MEMORY_TYPES = list(MemoryType)
assert all(t.value == i for i, t in enumerate(_DATA_TYPES))
assert all(t.value == i for i, t in enumerate(_MEMORY_TYPES))


@dataclass
class InferenceResponse:
    """One response. A failed request's error is in ``error`` (its args are
    the message and this response); a decoupled model's last response may
    have no outputs."""

    model: "Model"
    request_id: Optional[str] = None
    parameters: dict = field(default_factory=dict)
    outputs: dict[str, Tensor] = field(default_factory=dict)
    error: Optional[TritonError] = None
    classification_label: Optional[str] = None
    final: bool = False

    @staticmethod
    def _from_native(request: "InferenceRequest", native: "_conch.Response") -> "InferenceResponse":
        error = cast(Optional[TritonError], native.error)
        outputs = {}
        for name, data_type, shape, data_ptr, memory_type, device_id, size, buffer in native.outputs:
            outputs[name] = Tensor(
                _DATA_TYPES[data_type],
                shape,
                MemoryBuffer(data_ptr, _MEMORY_TYPES[memory_type], device_id, size, buffer),
            )
        if error is None:
            try:
                outputs = _placed(outputs, request.output_memory_type)
            except TritonError as e:
                error = e
        response = InferenceResponse(
            model=request.model,
            request_id=native.id or None,
            parameters=native.parameters,
            outputs=outputs,
            error=error,
            final=native.final,
        )
        if error is not None:
            error.args = (*error.args[:1], response)
        return response


def _placed(outputs: dict[str, Tensor], memory_type: Any) -> dict[str, Tensor]:
    """The outputs in the memory a request asked for. Without a request for
    one they are where Triton's default allocator would put them, in host
    memory: an output a model left on a GPU is copied to the host."""
    if memory_type is not None:
        return {n: t.to_device(memory_type) for n, t in outputs.items()}
    if all(t.memory_type != MemoryType.GPU for t in outputs.values()):
        return outputs
    return {n: t.to_host() if t.memory_type == MemoryType.GPU else t for n, t in outputs.items()}


class _ResponseStream:
    """What both iterators share: ending on the final response, raising a
    failed one when asked to, and cancelling the request."""

    _done: bool
    _raise_on_error: bool

    def _yield(self, response: InferenceResponse) -> InferenceResponse:
        if response.final:
            self._done = True
        if response.error is not None and self._raise_on_error:
            raise response.error
        return response

    def cancel(self) -> None:
        """Cancels the request; its final response carries a CancelledError."""
        self._handle.cancel()


class ResponseIterator(_ResponseStream):
    """The responses of one request, for a ``for`` loop. Each ``next`` waits
    with the GIL released; with raise_on_error a failed response is raised."""

    def __init__(self, request: "InferenceRequest", raise_on_error: bool = True) -> None:
        self._request = request
        self._raise_on_error = raise_on_error
        self._done = False
        # With a user queue every response is delivered as it arrives, on the
        # Conch thread that produced it, into both queues.
        self._queue: Optional[queue.SimpleQueue] = (
            queue.SimpleQueue() if request.response_queue is not None else None
        )
        self._handle = request._submit(self._deliver if self._queue is not None else None)

    def _deliver(self, native: "_conch.Response") -> None:
        # Runs on a Conch thread, with the GIL.
        response = InferenceResponse._from_native(self._request, native)
        assert self._queue is not None and self._request.response_queue is not None
        self._request.response_queue.put(response)
        self._queue.put(response)

    def __iter__(self) -> "ResponseIterator":
        return self

    def __next__(self) -> InferenceResponse:
        if self._done:
            raise StopIteration
        if self._queue is not None:
            response = self._queue.get()
        else:
            response = InferenceResponse._from_native(self._request, _got(self._handle.get()))
        return self._yield(response)



class AsyncResponseIterator(_ResponseStream):
    """The responses of one request, for an ``async for`` loop. Inside a
    running event loop responses are handed to the loop as they arrive;
    otherwise each step waits in the loop's default executor."""

    def __init__(self, request: "InferenceRequest", raise_on_error: bool = True) -> None:
        self._request = request
        self._raise_on_error = raise_on_error
        self._done = False
        self._pending: collections.deque[InferenceResponse] = collections.deque()
        self._waiter: Optional[asyncio.Future] = None
        try:
            self._loop: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            if request.response_queue is not None:
                raise
            self._loop = None
        on_response: Optional[Callable[[Any], None]] = None
        if self._loop is not None:
            loop = self._loop

            def on_response(native: "_conch.Response") -> None:
                # Runs on a Conch thread, with the GIL. A loop closed before
                # the response came has nobody left to hand it to.
                try:
                    loop.call_soon_threadsafe(self._deliver, native)
                except RuntimeError:
                    if not loop.is_closed():
                        raise

        self._handle = request._submit(on_response)

    def _deliver(self, native: "_conch.Response") -> None:
        # Runs on the event loop's thread.
        response = InferenceResponse._from_native(self._request, native)
        if self._request.response_queue is not None:
            self._request.response_queue.put_nowait(response)
        self._pending.append(response)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def __aiter__(self) -> "AsyncResponseIterator":
        return self

    async def __anext__(self) -> InferenceResponse:
        if self._done:
            raise StopAsyncIteration
        if self._waiter is not None:
            raise AlreadyExistsError("cannot call GetNextResponse concurrently")
        if self._loop is None:
            loop = asyncio.get_running_loop()
            native = await loop.run_in_executor(None, self._handle.get)
            return self._yield(InferenceResponse._from_native(self._request, _got(native)))
        while not self._pending:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._yield(self._pending.popleft())



def _got(native: Optional["_conch.Response"]) -> "_conch.Response":
    # RequestHandle.get() without a timeout returns only with a response.
    assert native is not None
    return native
