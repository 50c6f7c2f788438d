"""The value classes of Triton's low-level bindings: TRITONSERVER_Parameter,
TRITONSERVER_BufferAttributes, TRITONSERVER_Message and
TRITONSERVER_ResponseAllocator, and the logging functions."""

from __future__ import annotations

import ctypes
import json
from typing import Any, Callable, Optional

from .. import _conch
from .._errors import InvalidArgumentError
from ._enums import TRITONSERVER_LogLevel, TRITONSERVER_MemoryType, TRITONSERVER_ParameterType

# The C API version these bindings mirror.
API_VERSION = (1, 34)


def api_version() -> tuple[int, int]:
    return API_VERSION


class TRITONSERVER_Parameter:  # noqa: N801 (upstream's names)
    """A named parameter: a str, an int, a bool or bytes."""

    __slots__ = ("name", "type", "value")

    def __init__(self, name: str, value: Any) -> None:
        self.name = str(name)
        if isinstance(value, bool):
            self.type = TRITONSERVER_ParameterType.BOOL
        elif isinstance(value, int):
            self.type = TRITONSERVER_ParameterType.INT
        elif isinstance(value, str):
            self.type = TRITONSERVER_ParameterType.STRING
        elif isinstance(value, (bytes, bytearray, memoryview)):
            self.type = TRITONSERVER_ParameterType.BYTES
            value = bytes(value)
        elif isinstance(value, float):
            self.type = TRITONSERVER_ParameterType.DOUBLE
        else:
            raise TypeError(f"a parameter is a str, int, bool or bytes, not {type(value).__name__}")
        self.value = value


# The size of a cudaIpcMemHandle_t, which TRITONSERVER_BufferAttributes copies.
_IPC_HANDLE_SIZE = 64


class TRITONSERVER_BufferAttributes:  # noqa: N801
    """Where a buffer lives and how large it is. Setting cuda_ipc_handle
    copies the 64 bytes at that address; reading it gives the copy's."""

    def __init__(self) -> None:
        self.memory_type_id = 0
        self.memory_type = TRITONSERVER_MemoryType.CPU
        self.byte_size = 0
        self._ipc: Optional[ctypes.Array] = None

    @property
    def cuda_ipc_handle(self) -> int:
        return 0 if self._ipc is None else ctypes.addressof(self._ipc)

    @cuda_ipc_handle.setter
    def cuda_ipc_handle(self, address: int) -> None:
        if not address:
            self._ipc = None
            return
        self._ipc = (ctypes.c_char * _IPC_HANDLE_SIZE)()
        ctypes.memmove(self._ipc, int(address), _IPC_HANDLE_SIZE)


class TRITONSERVER_Message:  # noqa: N801
    """A JSON document the server answers with."""

    __slots__ = ("_json",)

    def __init__(self, serialized_json: str) -> None:
        self._json = str(serialized_json)

    def serialize_to_json(self) -> str:
        return self._json

    @classmethod
    def _of(cls, value: Any) -> "TRITONSERVER_Message":
        return cls(json.dumps(value))


class TRITONSERVER_ResponseAllocator:  # noqa: N801
    """The callbacks that allocate a response's output buffers. Conch
    allocates outputs itself: an allocator is kept, and its functions are
    not called (as with upstream's bindings, whose infer_async uses an
    allocator of its own)."""

    def __init__(self, alloc_function: Callable, release_function: Callable,
                 start_function: Optional[Callable] = None) -> None:
        for name, fn in (("alloc_function", alloc_function),
                         ("release_function", release_function)):
            if not callable(fn):
                raise TypeError(f"{name} must be callable")
        self.alloc_function = alloc_function
        self.release_function = release_function
        self.start_function = start_function
        self.buffer_attributes_function: Optional[Callable] = None
        self.query_function: Optional[Callable] = None

    def set_buffer_attributes_function(self, buffer_attributes_function: Callable) -> None:
        self.buffer_attributes_function = buffer_attributes_function

    def set_query_function(self, query_function: Callable) -> None:
        self.query_function = query_function


def _level(level: int) -> TRITONSERVER_LogLevel:
    try:
        return TRITONSERVER_LogLevel(int(level))
    except ValueError:
        raise InvalidArgumentError(f"unknown logging level '{int(level)}'") from None


def TRITONSERVER_LogIsEnabled(level: int) -> bool:  # noqa: N802
    return bool(_conch.log_is_on(int(_level(level))))


def TRITONSERVER_LogMessage(level: int, filename: str, line: int, msg: str) -> None:  # noqa: N802
    """Writes `msg` through the server's logger when `level` is on; the
    line is written before this returns."""
    lvl = int(_level(level))
    if _conch.log_is_on(lvl):
        _conch.log_message(lvl, str(filename), int(line), str(msg))
