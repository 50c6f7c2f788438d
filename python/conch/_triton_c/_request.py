"""TRITONSERVER_InferenceRequest and TRITONSERVER_InferenceResponse: a
request built from raw buffers, as Triton's low-level bindings build one,
and the responses it gets."""

from __future__ import annotations

import ctypes
import threading
from collections import deque
from typing import Any, Optional

import numpy

from .. import _conch
from .._errors import AlreadyExistsError, InvalidArgumentError, UnsupportedError
from .._tensor import native_input
from ._enums import (
    TRITONSERVER_DataType,
    TRITONSERVER_MemoryType,
    TRITONSERVER_ParameterType,
    TRITONSERVER_ResponseCompleteFlag,
)

_NUMPY_TYPES = {
    TRITONSERVER_DataType.BOOL: numpy.bool_, TRITONSERVER_DataType.UINT8: numpy.uint8,
    TRITONSERVER_DataType.UINT16: numpy.uint16, TRITONSERVER_DataType.UINT32: numpy.uint32,
    TRITONSERVER_DataType.UINT64: numpy.uint64, TRITONSERVER_DataType.INT8: numpy.int8,
    TRITONSERVER_DataType.INT16: numpy.int16, TRITONSERVER_DataType.INT32: numpy.int32,
    TRITONSERVER_DataType.INT64: numpy.int64, TRITONSERVER_DataType.FP16: numpy.float16,
    TRITONSERVER_DataType.FP32: numpy.float32, TRITONSERVER_DataType.FP64: numpy.float64,
}

# A string correlation id is at most this long, as in Triton.
_MAX_CORRELATION_ID_STRING = 128


class TRITONSERVER_InferenceResponse:  # noqa: N801 (upstream's names)
    """One response; its output buffers live as long as it does."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self._outputs = native.outputs
        self._parameters = list(native.parameters.items())

    def throw_if_response_error(self) -> None:
        if self._native.error is not None:
            raise self._native.error

    @property
    def model(self) -> tuple[str, int]:
        return (self._native.model_name, int(self._native.model_version))

    @property
    def id(self) -> str:
        return self._native.id

    @property
    def parameter_count(self) -> int:
        return len(self._parameters)

    def parameter(self, index: int) -> tuple[str, TRITONSERVER_ParameterType, Any]:
        if not 0 <= index < len(self._parameters):
            raise InvalidArgumentError(
                f"out of bounds index {index}: response has {len(self._parameters)} parameters")
        name, value = self._parameters[index]
        if isinstance(value, bool):
            kind = TRITONSERVER_ParameterType.BOOL
        elif isinstance(value, int):
            kind = TRITONSERVER_ParameterType.INT
        elif isinstance(value, float):
            kind = TRITONSERVER_ParameterType.DOUBLE
        elif isinstance(value, str):
            kind = TRITONSERVER_ParameterType.STRING
        else:
            raise UnsupportedError("Unexpected type 'BYTES' received as response parameter")
        return (name, kind, value)

    @property
    def output_count(self) -> int:
        return len(self._outputs)

    def output(self, index: int) -> tuple:
        """(name, data type, shape, buffer address, byte size, memory type,
        memory type id)."""
        if not 0 <= index < len(self._outputs):
            raise InvalidArgumentError(
                f"out of bounds index {index}: response has {len(self._outputs)} outputs")
        name, data_type, shape, data_ptr, memory_type, device_id, size, _ = self._outputs[index]
        return (name, TRITONSERVER_DataType(data_type), numpy.array(shape, dtype=numpy.int64),
                int(data_ptr), int(size), TRITONSERVER_MemoryType(memory_type), int(device_id))

    def output_classification_label(self, index: int, class_index: int) -> str:
        """Conch delivers class labels in classification outputs (the
        `classification` parameter of a request), not beside raw outputs:
        "" as for an output without labels."""
        if not 0 <= index < len(self._outputs):
            raise InvalidArgumentError(
                f"out of bounds index {index}: response has {len(self._outputs)} outputs")
        return ""


class _Input:
    __slots__ = ("datatype", "shape", "raw", "chunks")

    def __init__(self, datatype: Optional[TRITONSERVER_DataType], shape: Optional[list[int]],
                 raw: bool) -> None:
        self.datatype = datatype
        self.shape = shape
        self.raw = raw
        self.chunks: list[bytes] = []


class TRITONSERVER_InferenceRequest:  # noqa: N801
    """A request to a model of `server`, with its inputs in raw buffers. The
    buffers are read when the request is submitted (server.infer_async)."""

    def __init__(self, server: Any, model_name: str, model_version: int) -> None:
        server._check_model(model_name, model_version)
        self._server = server  # the request keeps its server alive, as in Triton
        self._model_name = str(model_name)
        self._model_version = int(model_version)
        config = server._config(self._model_name, self._model_version)
        batching = config.get("dynamic_batching", {})
        self._priority_levels = int(batching.get("priority_levels", 0))
        self._default_priority = int(batching.get("default_priority_level", 0))
        self._config_inputs = config.get("input", [])
        self.id = ""
        self.flags = 0
        self._correlation_id: Any = 0
        self._priority = 0
        self.timeout_microseconds = 0
        self._inputs: dict[str, _Input] = {}
        self._outputs: list[str] = []
        self._parameters: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._responses: deque = deque()
        self._future: Any = None
        self._handle: Any = None

    # -- properties ------------------------------------------------------------------------

    @property
    def correlation_id(self) -> int:
        if isinstance(self._correlation_id, str):
            raise InvalidArgumentError("given request's correlation id is not an unsigned int")
        return self._correlation_id

    @correlation_id.setter
    def correlation_id(self, value: int) -> None:
        self._correlation_id = int(value)

    @property
    def correlation_id_string(self) -> str:
        if not isinstance(self._correlation_id, str):
            raise InvalidArgumentError("given request's correlation id is not a string")
        return self._correlation_id

    @correlation_id_string.setter
    def correlation_id_string(self, value: str) -> None:
        if len(value) > _MAX_CORRELATION_ID_STRING:
            raise UnsupportedError("string correlation ID cannot be longer than 128 characters")
        self._correlation_id = str(value)

    @property
    def priority(self) -> int:
        return self._priority

    @priority.setter
    def priority(self, value: int) -> None:
        # As Triton's core: 0, or a level the model does not have, is the
        # model's default level.
        value = int(value)
        if value == 0 or (self._priority_levels and value > self._priority_levels):
            value = self._default_priority
        self._priority = value

    @property
    def priority_uint64(self) -> int:
        return self._priority

    @priority_uint64.setter
    def priority_uint64(self, value: int) -> None:
        self.priority = value

    # -- inputs ------------------------------------------------------------------------------

    def _input(self, name: str) -> _Input:
        found = self._inputs.get(name)
        if found is None:
            raise InvalidArgumentError(f"input '{name}' does not exist in request")
        return found

    def add_input(self, name: str, datatype: int, shape: Any) -> None:
        if any(i.raw for i in self._inputs.values()):
            raise InvalidArgumentError(
                f"input '{name}' can't be added to a request with a raw input")
        if name in self._inputs:
            raise InvalidArgumentError(f"input '{name}' already exists in request")
        self._inputs[name] = _Input(TRITONSERVER_DataType(int(datatype)),
                                    [int(d) for d in shape], False)

    def add_raw_input(self, name: str) -> None:
        if self._inputs:
            raise InvalidArgumentError(
                f"raw input '{name}' can't be added to a request with other inputs")
        # Whether the model has the one input a raw input stands for is
        # checked when the request is submitted, as Triton does.
        self._inputs[name] = _Input(None, None, True)

    def remove_input(self, name: str) -> None:
        self._input(name)
        del self._inputs[name]

    def remove_all_inputs(self) -> None:
        self._inputs.clear()

    def append_input_data(self, name: str, base: int, byte_size: int, memory_type: int,
                          memory_type_id: int) -> None:
        found = self._input(name)
        if int(memory_type) == TRITONSERVER_MemoryType.GPU and byte_size:
            # Read now, as host chunks are: the request owns its bytes from
            # here on (UnsupportedError where no CUDA device can be used).
            host = _conch.Buffer.allocate(int(TRITONSERVER_MemoryType.CPU), 0, int(byte_size))
            _conch.copy_bytes(host.data_ptr, int(TRITONSERVER_MemoryType.CPU), 0, int(base),
                              int(memory_type), int(memory_type_id), int(byte_size))
            found.chunks.append(ctypes.string_at(host.data_ptr, int(byte_size)))
            return
        found.chunks.append(ctypes.string_at(int(base), int(byte_size)) if byte_size else b"")

    def append_input_data_with_host_policy(self, name: str, base: int, byte_size: int,
                                           memory_type: int, memory_type_id: int,
                                           host_policy_name: str) -> None:
        self.append_input_data(name, base, byte_size, memory_type, memory_type_id)

    def append_input_data_with_buffer_attributes(self, name: str, base: int,
                                                 buffer_attributes: Any) -> None:
        self.append_input_data(name, base, buffer_attributes.byte_size,
                               buffer_attributes.memory_type, buffer_attributes.memory_type_id)

    def remove_all_input_data(self, name: str) -> None:
        self._input(name).chunks.clear()

    # -- outputs and parameters ----------------------------------------------------------------

    def add_requested_output(self, name: str) -> None:
        if name not in self._outputs:
            self._outputs.append(str(name))

    def remove_requested_output(self, name: str) -> None:
        if name in self._outputs:
            self._outputs.remove(name)

    def remove_all_requested_outputs(self) -> None:
        self._outputs.clear()

    def set_string_parameter(self, key: str, value: str) -> None:
        self._parameters[str(key)] = str(value)

    def set_int_parameter(self, key: str, value: int) -> None:
        self._parameters[str(key)] = int(value)

    def set_bool_parameter(self, key: str, value: bool) -> None:
        self._parameters[str(key)] = bool(value)

    def set_double_parameter(self, key: str, value: float) -> None:
        self._parameters[str(key)] = float(value)

    # -- submission and responses ------------------------------------------------------------

    def _native_inputs(self) -> list[tuple]:
        out = []
        for name, found in self._inputs.items():
            data = b"".join(found.chunks)
            if found.raw:
                if len(self._config_inputs) != 1:
                    raise InvalidArgumentError(
                        f"Raw request must only have 1 input (found 1) to be deduced but got "
                        f"{len(self._config_inputs)} inputs in '{self._model_name}' model "
                        "configuration")
                config = self._config_inputs[0]
                datatype = TRITONSERVER_DataType[config["data_type"].replace("TYPE_", "")
                                                 .replace("STRING", "BYTES")]
                name = config["name"]
                size = numpy.dtype(_NUMPY_TYPES.get(datatype, numpy.uint8)).itemsize
                shape = [len(data) // size] if datatype != TRITONSERVER_DataType.BYTES else [1]
            else:
                datatype, shape = found.datatype, found.shape
            if datatype == TRITONSERVER_DataType.BYTES:
                out.append(native_input(name, _bytes_elements(data, shape)))
            else:
                array = numpy.frombuffer(data, dtype=_NUMPY_TYPES[datatype])
                out.append((name, int(datatype), shape, array))
        return out

    def _submit(self, server: Any, trace: Optional[Any]) -> None:
        native = server._native()
        with self._lock:
            self._responses.clear()
        self._handle = native.infer(
            self._model_name, self._model_version, self._native_inputs(), self._parameters,
            self.id or None, int(self.flags), self._correlation_id or None, self._priority,
            int(self.timeout_microseconds), self._on_response,
            trace=None if trace is None else trace._take(),
            outputs=list(self._outputs))

    def _on_response(self, native: Any) -> None:
        # On a Conch thread, with the GIL.
        flags = int(TRITONSERVER_ResponseCompleteFlag.FINAL) if native.final else 0
        result = (TRITONSERVER_InferenceResponse(native), flags)
        with self._lock:
            future, self._future = self._future, None
            if future is None:
                self._responses.append(result)
        if native.final:
            self._handle = None  # the request is done: the server lets it go
        if future is not None:
            _set_result(future, result)

    def get_next_response(self, future: Any) -> None:
        """Sets `future`'s result to (response, flags) with the next
        response: at once when one waits, else when it comes."""
        with self._lock:
            if self._responses:
                result = self._responses.popleft()
            elif self._future is not None:
                raise AlreadyExistsError("cannot call GetNextResponse concurrently")
            else:
                self._future = future
                return
        _set_result(future, result)

    def cancel(self) -> None:
        handle = self._handle
        if handle is not None:
            handle.cancel()


def _set_result(future: Any, result: Any) -> None:
    def settle(f: Any, value: Any) -> None:
        if not (hasattr(f, "done") and f.done()):
            f.set_result(value)

    get_loop = getattr(future, "get_loop", None)
    if get_loop is not None:
        get_loop().call_soon_threadsafe(settle, future, result)
    else:
        settle(future, result)


def _bytes_elements(data: bytes, shape: list[int]) -> numpy.ndarray:
    """A BYTES input's elements from their serialized form (each a 4-byte
    little-endian length, then its bytes)."""
    elements = []
    at = 0
    while at + 4 <= len(data):
        n = int.from_bytes(data[at:at + 4], "little")
        elements.append(data[at + 4:at + 4 + n])
        at += 4 + n
    if at != len(data):
        raise InvalidArgumentError("malformed BYTES input data")
    array = numpy.array(elements, dtype=numpy.object_)
    return array.reshape(shape) if int(numpy.prod(shape)) == len(elements) else array
