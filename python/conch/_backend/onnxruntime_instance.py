"""One instance of an ONNX model: runs batches of requests through its
onnxruntime session.

A batch of several requests runs once when the model batches
(max_batch_size > 0) and the requests fit together: the same inputs, each of
one data type and of the same shape after the batch dimension. Their inputs
are concatenated along the first dimension and every output is split back by
the requests' batch sizes. Otherwise, or when the joint run fails or gives an
output that cannot be split, each request runs on its own, so that one bad
request only fails itself.

BYTES tensors are ONNX string tensors: onnxruntime's Python API takes and
gives them as str, so input elements must be UTF-8 text; outputs go back as
their UTF-8 bytes. Errors become error responses; nothing here raises out of
execute.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from .._enums import DataType, MemoryType
from .._errors import (
    AlreadyExistsError,
    CancelledError,
    InvalidArgumentError,
    NotFoundError,
    UnavailableError,
    UnsupportedError,
)
from .._tensor import MemoryBuffer, Tensor, native_input

__all__ = ["OnnxRuntimeInstance"]

_ERROR_CODES = {
    InvalidArgumentError: "invalid_argument",
    NotFoundError: "not_found",
    UnavailableError: "unavailable",
    UnsupportedError: "unsupported",
    AlreadyExistsError: "already_exists",
    CancelledError: "cancelled",
}

# onnxruntime's exception classes, by name (their module is private).
_ONNXRUNTIME_CODES = {"InvalidArgument": "invalid_argument", "NotImplemented": "unsupported"}


def _code_of(error: BaseException) -> str:
    for cls, code in _ERROR_CODES.items():
        if isinstance(error, cls):
            return code
    return _ONNXRUNTIME_CODES.get(type(error).__name__, "internal")


def _text(name: str, items: numpy.ndarray) -> numpy.ndarray:
    """A BYTES input as the object array of str that onnxruntime takes."""
    flat = items.reshape(-1)
    try:
        decoded = [item.decode("utf-8") for item in flat]
    except UnicodeDecodeError:
        raise InvalidArgumentError(
            f"input '{name}' holds bytes that are not UTF-8 text; ONNX string tensors "
            "pass through onnxruntime as UTF-8 strings"
        ) from None
    out = numpy.empty(len(decoded), dtype=numpy.object_)
    out[:] = decoded
    return out.reshape(items.shape)


def read_inputs(request: Any) -> dict[str, numpy.ndarray]:
    """The inputs of a BackendRequest as numpy arrays (numeric ones without
    copying)."""
    feeds = {}
    for name, data_type, shape, data_ptr, memory_type, device_id, size, owner in request.inputs():
        data_type = DataType(data_type)
        if data_type == DataType.BF16:
            raise UnsupportedError(f"input '{name}' is BF16, which onnxruntime's Python API cannot take")
        buffer = MemoryBuffer(data_ptr, MemoryType(memory_type), device_id, size, owner)
        tensor = Tensor(data_type, list(shape), buffer).to_host()
        if data_type == DataType.BYTES:
            feeds[name] = _text(name, tensor.to_bytes_array())
        else:
            feeds[name] = numpy.from_dlpack(tensor)
    return feeds


class _Job:
    """A request with its inputs and the outputs it wants."""

    __slots__ = ("request", "feeds", "wanted")

    def __init__(self, request: Any, feeds: dict[str, numpy.ndarray], wanted: list[str]) -> None:
        self.request = request
        self.feeds = feeds
        self.wanted = wanted


def _fail(request: Any, error: BaseException) -> None:
    if not request.final_sent:
        request.fail(str(error) or type(error).__name__, _code_of(error))


def _respond(job: _Job, names: Sequence[str], values: Sequence[Any]) -> None:
    try:
        outputs = []
        for name, value in zip(names, values):
            if name not in job.wanted:
                continue
            if not isinstance(value, numpy.ndarray):
                raise UnsupportedError(
                    f"output '{name}' of the model is a {type(value).__name__}, not a tensor"
                )
            outputs.append(native_input(name, value))
        job.request.respond(outputs, final=True)
    except Exception as e:
        _fail(job.request, e)


def _batch_sizes(jobs: Sequence[_Job]) -> Optional[list[int]]:
    """Each job's batch size, when the jobs can run as one batch."""
    names = jobs[0].feeds.keys()
    if not names or any(job.feeds.keys() != names for job in jobs):
        return None
    sizes = []
    for job in jobs:
        arrays = list(job.feeds.values())
        if any(a.ndim == 0 or a.shape[0] != arrays[0].shape[0] for a in arrays):
            return None
        sizes.append(arrays[0].shape[0])
    for name in names:
        first = jobs[0].feeds[name]
        if any(j.feeds[name].dtype != first.dtype or j.feeds[name].shape[1:] != first.shape[1:]
               for j in jobs):
            return None
    return sizes


class OnnxRuntimeInstance:
    """Runs requests through one InferenceSession on the instance's thread."""

    def __init__(self, session: Any, max_batch_size: int) -> None:
        self._session = session
        self._max_batch_size = max_batch_size

    def execute(self, requests: list[Any]) -> None:
        jobs = []
        for request in requests:
            try:
                if request.is_cancelled():
                    raise CancelledError("the request was cancelled")
                jobs.append(_Job(request, read_inputs(request), list(request.requested_output_names())))
            except Exception as e:
                _fail(request, e)
        if len(jobs) > 1 and self._max_batch_size > 0 and self._run_together(jobs):
            return
        for job in jobs:
            self._run_alone(job)

    def finalize(self) -> None:
        self._session = None

    # -- running -------------------------------------------------------------

    def _run_alone(self, job: _Job) -> None:
        try:
            values = self._session.run(job.wanted, job.feeds)
        except Exception as e:
            _fail(job.request, e)
            return
        _respond(job, job.wanted, values)

    def _run_together(self, jobs: list[_Job]) -> bool:
        """Runs the jobs as one batch; False (nothing answered) when they do
        not fit together or the joint run fails."""
        sizes = _batch_sizes(jobs)
        if sizes is None:
            return False
        names: list[str] = []
        for job in jobs:
            names.extend(n for n in job.wanted if n not in names)
        feeds = {name: numpy.concatenate([j.feeds[name] for j in jobs]) for name in jobs[0].feeds}
        try:
            values = self._session.run(names, feeds)
        except Exception:
            return False  # each request runs alone and gets its own error
        total = sum(sizes)
        if any(not isinstance(v, numpy.ndarray) or v.ndim == 0 or v.shape[0] != total
               for v in values):
            return False
        offsets = numpy.cumsum(sizes)[:-1]
        parts = [numpy.split(v, offsets) for v in values]
        for index, job in enumerate(jobs):
            _respond(job, names, [p[index] for p in parts])
        return True
