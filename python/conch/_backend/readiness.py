"""A python model's own readiness check: its optional ``is_ready()``.

Triton's python backend consults ``is_ready()`` on every per-model readiness
query (HTTP and gRPC model ready, the in-process ``Model.ready()``): a model
is ready only while the method returns ``True``. ``False``, any other value,
an exception, or no answer within five seconds make it not ready; inference
is not affected either way. A check that outlives its query keeps running,
and the queries that arrive meanwhile wait for its answer rather than start
another, so a slow ``is_ready()`` is never run twice at once.

The method runs on a thread of its own, never the instance's, so that a
model busy in ``execute()`` still answers. A coroutine (``async def
is_ready``) runs on the instance's event loop when the instance has one
that runs side by side with it (decoupled ``async def execute``), and on a
loop of the check's own otherwise.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from typing import Any, Callable, List, Optional

__all__ = ["ReadinessCheck", "TIMEOUT_S"]

# How long a query waits for is_ready() (Triton's kUserModelReadinessTimeoutMs).
TIMEOUT_S = 5.0


class _Query:
    """One readiness query: answered once, by the check or by its timer."""

    __slots__ = ("done", "timer", "answered")

    def __init__(self, done: Callable[[bool], None]) -> None:
        self.done = done
        self.timer: Optional[threading.Timer] = None
        self.answered = False


class ReadinessCheck:
    def __init__(self, fn: Callable[[], Any], instance: str,
                 loop: Callable[[], Optional[asyncio.AbstractEventLoop]]) -> None:
        self._fn = fn
        self._instance = instance
        self._loop = loop  # the instance's concurrent event loop, if it has one
        self._lock = threading.Lock()
        self._waiting: List[_Query] = []
        self._running = False

    def query(self, done: Callable[[bool], None]) -> None:
        """Asks is_ready(); `done(ready)` is called once, from another thread."""
        q = _Query(done)
        q.timer = threading.Timer(TIMEOUT_S, self._expire, (q,))
        q.timer.daemon = True
        with self._lock:
            self._waiting.append(q)
            start = not self._running
            self._running = True
        q.timer.start()
        if start:
            threading.Thread(target=self._run, daemon=True,
                             name=f"conch-ready-{self._instance}").start()

    def _answer(self, q: _Query, ready: bool) -> None:
        with self._lock:
            if q.answered:
                return
            q.answered = True
        if q.timer is not None:
            q.timer.cancel()
        q.done(ready)

    def _expire(self, q: _Query) -> None:
        with self._lock:
            if q in self._waiting:
                self._waiting.remove(q)
        self._answer(q, False)

    def _call(self) -> bool:
        log = logging.getLogger("conch")
        try:
            value = self._fn()
            if inspect.iscoroutine(value):
                loop = self._loop()
                if loop is not None and loop.is_running():
                    value = asyncio.run_coroutine_threadsafe(value, loop).result()
                else:
                    value = asyncio.run(value)
        except Exception as e:
            log.error("is_ready() of model instance '%s' raised: %s: %s", self._instance,
                      type(e).__name__, e)
            return False
        if not isinstance(value, bool):
            log.error("is_ready() of model instance '%s' returned %s, not a bool: the model "
                      "is not ready", self._instance, type(value).__name__)
            return False
        return value

    def _run(self) -> None:
        ready = self._call()
        with self._lock:
            waiting, self._waiting = self._waiting, []
            self._running = False
        for q in waiting:
            self._answer(q, ready)
