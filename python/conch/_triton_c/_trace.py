"""TRITONSERVER_InferenceTrace: a trace of one request whose activities are
reported to Python callbacks, as Triton's low-level bindings report them."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy

from .. import _conch
from .._errors import InvalidArgumentError
from ._enums import (
    TRITONSERVER_DataType,
    TRITONSERVER_InferenceTraceActivity,
    TRITONSERVER_InferenceTraceLevel,
    TRITONSERVER_MemoryType,
)

_TIMESTAMPS = int(TRITONSERVER_InferenceTraceLevel.TIMESTAMPS)
_TENSORS = int(TRITONSERVER_InferenceTraceLevel.TENSORS)
_MIN_OR_MAX = int(TRITONSERVER_InferenceTraceLevel.MIN) | int(TRITONSERVER_InferenceTraceLevel.MAX)


class TRITONSERVER_InferenceTrace:  # noqa: N801 (upstream's names)
    """A trace to give server.infer_async. Once the request is done,
    activity_function(trace, activity, timestamp_ns, trace_userp) is called
    for each timestamp, tensor_activity_function(trace, activity, name,
    data_type, buffer_address, byte_size, shape, memory_type,
    memory_type_id, trace_userp) for each tensor (TENSORS level), and
    release_function(trace, trace_userp) last, for this trace and for each
    child trace (ensemble steps), on a thread that holds the GIL."""

    def __init__(self, level: int, parent_id: int, activity_function: Callable,
                 *rest: Any, **kwargs: Any) -> None:
        names = (("tensor_activity_function", "release_function", "trace_userp")
                 if len(rest) + len(kwargs) == 3 else ("release_function", "trace_userp"))
        args = dict(zip(names, rest))
        args.update(kwargs)
        missing = [n for n in names if n not in args]
        if missing:
            raise TypeError(f"TRITONSERVER_InferenceTrace needs {', '.join(missing)}")
        level = int(level)
        if level & _MIN_OR_MAX:  # as Triton's core: MIN and MAX mean TIMESTAMPS
            level = (level & ~_MIN_OR_MAX) | _TIMESTAMPS
        self._activity_function = activity_function
        self._tensor_activity_function: Optional[Callable] = args.get("tensor_activity_function")
        self._release_function: Callable = args["release_function"]
        self._userp = args["trace_userp"]
        if self._tensor_activity_function is None:
            level &= ~_TENSORS
        self._native: Optional[_conch.Trace] = _conch.Trace(level & (_TIMESTAMPS | _TENSORS),
                                                            int(parent_id), self._deliver)
        self._id = self._native.id
        self._parent_id = int(parent_id)
        self._model_name = ""
        self._model_version = -1
        self._request_id = ""

    @property
    def id(self) -> int:
        return self._id

    @property
    def parent_id(self) -> int:
        return self._parent_id

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def model_version(self) -> int:
        return self._model_version

    @property
    def request_id(self) -> str:
        return self._request_id

    def _take(self) -> "_conch.Trace":
        """The native trace, for the request that uses it up."""
        if self._native is None:
            raise InvalidArgumentError("the trace was given to a request already")
        native, self._native = self._native, None
        return native

    def _deliver(self, record: dict) -> None:
        """Reports a finished record and its children (with the GIL)."""
        self._report(self, record)

    def _report(self, trace: "TRITONSERVER_InferenceTrace", record: dict) -> None:
        trace._id = record["id"]
        trace._parent_id = record["parent_id"]
        trace._model_name = record["model_name"]
        trace._model_version = record["model_version"]
        trace._request_id = record["request_id"]
        for name, ns in record["stamps"]:
            activity = TRITONSERVER_InferenceTraceActivity.__members__.get(name)
            if activity is not None:  # the frontends' stamps are not activities
                self._activity_function(trace, activity, ns, self._userp)
        if self._tensor_activity_function is not None:
            for activity, name, dtype, address, size, shape, memtype, device in record["tensors"]:
                self._tensor_activity_function(
                    trace, TRITONSERVER_InferenceTraceActivity[activity], name,
                    TRITONSERVER_DataType(dtype), address, size,
                    numpy.array(shape, dtype=numpy.int64), TRITONSERVER_MemoryType(memtype),
                    device, self._userp)
        for child in record["children"]:
            view = TRITONSERVER_InferenceTrace.__new__(TRITONSERVER_InferenceTrace)
            view._native = None
            self._report(view, child)
        self._release_function(trace, self._userp)
