"""A python model's own readiness check: its optional ``is_ready()``.

Triton's python backend consults ``is_ready()`` on every per-model readiness
query (HTTP and gRPC model ready, the in-process ``Model.ready()``): a model
is ready only while the method returns ``True``. ``False``, any other value,
an exception, or no answer within five seconds make it not ready; inference
is not affected either way. A check that outlives its query keeps running,
and the queries that arrive meanwhile wait for its answer rather than start
another, so a slow ``is_ready()`` is never run twice at once.

The method runs on a thread of its own, never the instance's, so that a
model busy in ``execute()`` still answers; one more thread answers the
queries whose time is up. Both live only while a check runs, however many
queries wait for it. A coroutine (``async def is_ready``) runs on the
instance's event loop when the instance has one that runs side by side with
it (decoupled ``async def execute``), and on a loop of the check's own
otherwise.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import time
from typing import Any, Callable, List, Optional

__all__ = ["ReadinessCheck", "TIMEOUT_S"]

# How long a query waits for is_ready() (Triton's kUserModelReadinessTimeoutMs).
TIMEOUT_S = 5.0


class _Query:
    """One readiness query, answered once: by the check, or past its deadline."""

    __slots__ = ("done", "deadline")

    def __init__(self, done: Callable[[bool], None], deadline: float) -> None:
        self.done = done
        self.deadline = deadline


class ReadinessCheck:
    def __init__(self, fn: Callable[[], Any], instance: str,
                 loop: Callable[[], Optional[asyncio.AbstractEventLoop]]) -> None:
        self._fn = fn
        self._instance = instance
        self._loop = loop  # the instance's concurrent event loop, if it has one
        self._changed = threading.Condition()
        self._waiting: List[_Query] = []
        self._running = False

    def query(self, done: Callable[[bool], None]) -> None:
        """Asks is_ready(); `done(ready)` is called once, from another thread."""
        q = _Query(done, time.monotonic() + TIMEOUT_S)
        with self._changed:
            self._waiting.append(q)
            if self._running:
                self._changed.notify()  # the expiry thread has a new deadline
                return
            self._running = True
            try:
                threading.Thread(target=self._run, daemon=True,
                                 name=f"conch-ready-{self._instance}").start()
                threading.Thread(target=self._expire, daemon=True,
                                 name=f"conch-ready-timeout-{self._instance}").start()
            except BaseException:
                # No thread, no check: nothing waits, and the next query
                # tries again. The caller answers this one.
                self._waiting.clear()
                self._running = False
                raise

    def _expire(self) -> None:
        """Answers False to each query whose deadline passes first, until the
        check is over."""
        with self._changed:
            while self._running:
                now = time.monotonic()
                late = [q for q in self._waiting if q.deadline <= now]
                if late:
                    self._waiting = [q for q in self._waiting if q.deadline > now]
                    self._changed.release()
                    try:
                        for q in late:
                            self._answer(q, False)
                    finally:
                        self._changed.acquire()
                    continue
                wait = min((q.deadline for q in self._waiting), default=now + TIMEOUT_S) - now
                self._changed.wait(max(wait, 0.0))

    def _answer(self, q: _Query, ready: bool) -> None:
        try:
            q.done(ready)
        except Exception:
            logging.getLogger("conch").exception("answering a readiness query failed")

    def _call(self) -> bool:
        log = logging.getLogger("conch")
        try:
            value = self._fn()
            if inspect.iscoroutine(value):
                loop = self._loop()
                if loop is not None and loop.is_running():
                    value = asyncio.run_coroutine_threadsafe(value, loop).result(TIMEOUT_S * 4)
                else:
                    value = asyncio.run(value)
        except BaseException as e:  # noqa: B036 - whatever it raised, the model is not ready
            log.error("is_ready() of model instance '%s' raised: %s: %s", self._instance,
                      type(e).__name__, e)
            return False
        if not isinstance(value, bool):
            log.error("is_ready() of model instance '%s' returned %s, not a bool: the model "
                      "is not ready", self._instance, type(value).__name__)
            return False
        return value

    def _run(self) -> None:
        ready = False
        try:
            ready = self._call()
        finally:
            with self._changed:
                waiting, self._waiting = self._waiting, []
                self._running = False
                self._changed.notify()
            for q in waiting:
                self._answer(q, ready)
