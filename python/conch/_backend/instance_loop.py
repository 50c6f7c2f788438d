"""The event loop of one Python model instance whose ``execute`` is a
coroutine (``async def execute``).

A model that is not decoupled has each coroutine run to completion on the
instance's own thread, as its returned responses answer the batch: the
loop lives as long as the instance, so what model code keeps on it (clients,
tasks) carries from one request to the next. A decoupled model answers
through its response senders, so, as in Triton, its coroutines run side by
side: they run on a thread of the instance's own that runs the loop, and
``execute`` returns as soon as it has handed one over, so the instance takes
its next batch while earlier ones are awaited.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any, Callable, Coroutine, Optional

from .errors import ExecutionAbandoned

__all__ = ["InstanceLoop"]

# How long closing waits for the loop's thread, past which it is left as a
# daemon thread: a coroutine that never ends must not hold an unload.
_CLOSE_WAIT_S = 5.0
_TICK_S = 0.1


class InstanceLoop:
    def __init__(self, name: str, concurrent: bool) -> None:
        self._name = name
        self._loop = asyncio.new_event_loop()
        self._thread: Optional[threading.Thread] = None
        if concurrent:
            self._thread = threading.Thread(
                target=self._serve, name=f"conch-async-{name}", daemon=True
            )
            self._thread.start()

    def side_loop(self) -> Optional[asyncio.AbstractEventLoop]:
        """The loop, while it runs on a thread of its own (a decoupled
        model's): other threads may hand it coroutines."""
        if self._thread is not None and self._thread.is_alive():
            return self._loop
        return None

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def run(self, coroutine: Coroutine) -> Any:
        """Runs `coroutine` on this thread until it returns. The loop wakes
        every tenth of a second meanwhile, so that an ExecutionAbandoned
        raised in this thread (past the exit timeout) goes off even while
        the coroutine awaits something that never comes."""
        assert self._thread is None
        ticking: list = []
        abandoned: list = []

        def tick() -> None:
            ticking[:] = [self._loop.call_later(_TICK_S, tick)]

        def on_error(loop: asyncio.AbstractEventLoop, context: dict) -> None:
            # asyncio reports what a callback raised, BaseExceptions too: an
            # ExecutionAbandoned that went off in one ends the run.
            if isinstance(context.get("exception"), ExecutionAbandoned):
                abandoned.append(context["exception"])
                loop.stop()
            else:
                loop.default_exception_handler(context)

        self._loop.set_exception_handler(on_error)
        tick()
        try:
            result = self._loop.run_until_complete(coroutine)
        except RuntimeError:
            if abandoned:
                raise abandoned[0] from None
            raise
        finally:
            for handle in ticking:
                handle.cancel()
        if abandoned:
            raise abandoned[0]
        return result

    def start(
        self,
        coroutine: Coroutine,
        natives: list,
        then: Callable[[list, Any, Optional[BaseException]], None],
    ) -> None:
        """Runs `coroutine` on the loop's thread, in the context of the caller
        (the calling model), then calls ``then(natives, result, error)``."""
        assert self._thread is not None
        context = contextvars.copy_context()

        def done(task: "asyncio.Task[Any]") -> None:
            if task.cancelled():
                then(natives, None, asyncio.CancelledError())
                return
            error = task.exception()
            then(natives, None if error is not None else task.result(), error)

        def begin() -> None:
            # Runs in `context`, which the task copies.
            task = self._loop.create_task(coroutine)
            task.add_done_callback(done)

        self._loop.call_soon_threadsafe(begin, context=context)

    def close(self) -> None:
        """Ends the loop once its coroutines are done (up to a few seconds)."""
        if self._thread is None:
            self._loop.close()
            return

        async def finish() -> None:
            pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            if pending:
                await asyncio.wait(pending, timeout=_CLOSE_WAIT_S)
            # What is left is cancelled: its requests fail (see start()).
            left = [t for t in pending if not t.done()]
            for task in left:
                task.cancel()
            if left:
                await asyncio.wait(left, timeout=_CLOSE_WAIT_S)
            self._loop.stop()

        try:
            self._loop.call_soon_threadsafe(lambda: self._loop.create_task(finish()))
        except RuntimeError:
            return  # closed already
        self._thread.join(_CLOSE_WAIT_S * 2)
        if not self._thread.is_alive():
            self._loop.close()
