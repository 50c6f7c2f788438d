"""Constants, type maps, errors and the logger of the python-backend API
(``triton_python_backend_utils``)."""

from __future__ import annotations

import enum
from typing import Any, Optional

import numpy

from .. import _logging
from .._enums import DataType
from .._enums import LogLevel as _core

__all__ = [
    "TRITONSERVER_RESPONSE_COMPLETE_FINAL",
    "TRITONSERVER_REQUEST_FLAG_SEQUENCE_START",
    "TRITONSERVER_REQUEST_FLAG_SEQUENCE_END",
    "TRITONSERVER_REQUEST_RELEASE_ALL",
    "TRITONSERVER_REQUEST_RELEASE_RESCHEDULE",
    "TRITONSERVER_MEMORY_CPU",
    "TRITONSERVER_MEMORY_GPU",
    "PreferredMemory",
    "TRITON_STRING_TO_NUMPY",
    "triton_string_to_numpy",
    "numpy_to_triton_type",
    "triton_to_numpy_type",
    "TritonError",
    "TritonModelException",
    "Logger",
    "LogLevel",
]

TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_START = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_END = 2
TRITONSERVER_REQUEST_RELEASE_ALL = 1
TRITONSERVER_REQUEST_RELEASE_RESCHEDULE = 2
# The python backend's own values (its PreferredMemory enum), not the C API's.
TRITONSERVER_MEMORY_GPU = 0
TRITONSERVER_MEMORY_CPU = 1
_MEMORY_DEFAULT = 2

#: Configuration data type names to numpy types.
TRITON_STRING_TO_NUMPY = {
    "TYPE_BOOL": bool,
    "TYPE_UINT8": numpy.uint8,
    "TYPE_UINT16": numpy.uint16,
    "TYPE_UINT32": numpy.uint32,
    "TYPE_UINT64": numpy.uint64,
    "TYPE_INT8": numpy.int8,
    "TYPE_INT16": numpy.int16,
    "TYPE_INT32": numpy.int32,
    "TYPE_INT64": numpy.int64,
    "TYPE_FP16": numpy.float16,
    "TYPE_FP32": numpy.float32,
    "TYPE_FP64": numpy.float64,
    "TYPE_STRING": numpy.object_,
}

_NUMPY_OF = {
    DataType.BOOL: numpy.dtype(numpy.bool_),
    DataType.UINT8: numpy.dtype(numpy.uint8),
    DataType.UINT16: numpy.dtype(numpy.uint16),
    DataType.UINT32: numpy.dtype(numpy.uint32),
    DataType.UINT64: numpy.dtype(numpy.uint64),
    DataType.INT8: numpy.dtype(numpy.int8),
    DataType.INT16: numpy.dtype(numpy.int16),
    DataType.INT32: numpy.dtype(numpy.int32),
    DataType.INT64: numpy.dtype(numpy.int64),
    DataType.FP16: numpy.dtype(numpy.float16),
    DataType.FP32: numpy.dtype(numpy.float32),
    DataType.FP64: numpy.dtype(numpy.float64),
    DataType.BYTES: numpy.dtype(numpy.object_),
}

#: numpy dtypes of the numeric data types, by DataType value (None: no dtype).
NUMPY_BY_CODE: list[Optional[numpy.dtype]] = [_NUMPY_OF.get(t) for t in DataType]


def triton_string_to_numpy(triton_type_string: str) -> Any:
    """The numpy type of a configuration data type name ("TYPE_FP32")."""
    return TRITON_STRING_TO_NUMPY[triton_type_string]


def triton_to_numpy_type(data_type: int) -> Any:
    """The numpy type of a data type code (11 is FP32); None for BF16."""
    dtype = NUMPY_BY_CODE[int(data_type)]
    return None if dtype is None else dtype.type


def numpy_to_triton_type(data_type: Any) -> Optional[int]:
    """The data type code of a numpy type; None when there is none."""
    dtype = numpy.dtype(data_type)
    if dtype.kind in "OSU":
        return int(DataType.BYTES)
    for code, candidate in _NUMPY_OF.items():
        if candidate == dtype:
            return int(code)
    return None


class TritonError(Exception):
    """An error a model reports in an InferenceResponse (or raises)."""

    UNKNOWN = 0
    INTERNAL = 1
    NOT_FOUND = 2
    INVALID_ARG = 3
    UNAVAILABLE = 4
    UNSUPPORTED = 5
    ALREADY_EXISTS = 6
    CANCELLED = 7

    _CODE_NAMES = {
        UNKNOWN: "unknown",
        INTERNAL: "internal",
        NOT_FOUND: "not_found",
        INVALID_ARG: "invalid_argument",
        UNAVAILABLE: "unavailable",
        UNSUPPORTED: "unsupported",
        ALREADY_EXISTS: "already_exists",
        CANCELLED: "cancelled",
    }

    def __init__(self, message: str, code: int = INTERNAL) -> None:
        super().__init__(message)
        self._message = str(message)
        self._code = code if code in self._CODE_NAMES else TritonError.INTERNAL

    def message(self) -> str:
        return self._message

    def code(self) -> int:
        return self._code

    def _code_name(self) -> str:
        return self._CODE_NAMES[self._code]


class PreferredMemory:
    """Where a BLS request would like its outputs: ``PreferredMemory(
    TRITONSERVER_MEMORY_CPU, 0)``. A hint; Conch's models answer in the memory
    they computed in."""

    def __init__(self, preferred_memory_type: int = _MEMORY_DEFAULT,
                 preferred_device_id: int = 0) -> None:
        self.preferred_memory_type = int(preferred_memory_type)
        self.preferred_device_id = int(preferred_device_id)


class TritonModelException(Exception):
    """Raised by the API when a model uses it wrongly."""


class LogLevel(enum.IntEnum):
    """The levels of Logger.log; also Logger.INFO, Logger.WARNING,
    Logger.ERROR and Logger.VERBOSE, as Triton's stub exports them."""

    INFO = 0
    WARNING = 1
    ERROR = 2
    VERBOSE = 3


# The python-backend's levels (WARNING, not WARN) as the core's.
_CORE_LEVELS = {
    LogLevel.INFO: _core.INFO,
    LogLevel.WARNING: _core.WARN,
    LogLevel.ERROR: _core.ERROR,
    LogLevel.VERBOSE: _core.VERBOSE,
}


def _message_of(function: str, message: Any, signature: str) -> str:
    """`message` as text; a TypeError naming the accepted arguments, as
    Triton's bindings raise, for anything but str and bytes."""
    if isinstance(message, str):
        return message
    if isinstance(message, bytes):
        return message.decode("utf-8", errors="replace")
    raise TypeError(
        f"{function}(): incompatible function arguments. The following argument types are "
        f"supported:\n    1. {signature} -> None\n\nInvoked with: {message!r}"
    )


class Logger:
    """Model code's log lines, written through Conch's logger with the file
    and line of the model code that logs them."""

    LogLevel = LogLevel
    INFO = LogLevel.INFO
    WARNING = LogLevel.WARNING
    ERROR = LogLevel.ERROR
    VERBOSE = LogLevel.VERBOSE

    @staticmethod
    def log(message: str, level: LogLevel = LogLevel.INFO) -> None:
        signature = "(message: str, level: Logger.LogLevel = <LogLevel.INFO: 0>)"
        text = _message_of("log", message, signature)
        if not isinstance(level, LogLevel):  # a plain int is not taken, as in Triton
            raise TypeError(
                "log(): incompatible function arguments. The following argument types are "
                f"supported:\n    1. {signature} -> None\n\nInvoked with: {message!r}, {level!r}"
            )
        _logging.log_from_caller(int(_CORE_LEVELS[level]), text)

    @staticmethod
    def log_info(message: str) -> None:
        _logging.log_from_caller(int(_core.INFO), _message_of("log_info", message, "(message: str)"))

    @staticmethod
    def log_warn(message: str) -> None:
        _logging.log_from_caller(int(_core.WARN), _message_of("log_warn", message, "(message: str)"))

    @staticmethod
    def log_error(message: str) -> None:
        _logging.log_from_caller(int(_core.ERROR), _message_of("log_error", message, "(message: str)"))

    @staticmethod
    def log_verbose(message: str) -> None:
        _logging.log_from_caller(
            int(_core.VERBOSE), _message_of("log_verbose", message, "(message: str)")
        )
