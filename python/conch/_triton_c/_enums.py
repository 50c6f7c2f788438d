"""The ``TRITONSERVER_*`` enums of Triton's low-level bindings, with the
values of tritonserver.h, and their string and size helpers."""

from __future__ import annotations

from enum import IntEnum


class TRITONSERVER_DataType(IntEnum):
    INVALID = 0
    BOOL = 1
    UINT8 = 2
    UINT16 = 3
    UINT32 = 4
    UINT64 = 5
    INT8 = 6
    INT16 = 7
    INT32 = 8
    INT64 = 9
    FP16 = 10
    FP32 = 11
    FP64 = 12
    BYTES = 13
    BF16 = 14


class TRITONSERVER_MemoryType(IntEnum):
    CPU = 0
    CPU_PINNED = 1
    GPU = 2


class TRITONSERVER_ParameterType(IntEnum):
    STRING = 0
    INT = 1
    BOOL = 2
    DOUBLE = 3
    BYTES = 4


class TRITONSERVER_InstanceGroupKind(IntEnum):
    AUTO = 0
    CPU = 1
    GPU = 2
    MODEL = 3


class TRITONSERVER_LogLevel(IntEnum):
    INFO = 0
    WARN = 1
    ERROR = 2
    VERBOSE = 3


class TRITONSERVER_LogFormat(IntEnum):
    DEFAULT = 0
    ISO8601 = 1


class TRITONSERVER_MetricFormat(IntEnum):
    PROMETHEUS = 0


class TRITONSERVER_InferenceTraceLevel(IntEnum):
    DISABLED = 0
    MIN = 1
    MAX = 2
    TIMESTAMPS = 4
    TENSORS = 8


class TRITONSERVER_InferenceTraceActivity(IntEnum):
    REQUEST_START = 0
    QUEUE_START = 1
    COMPUTE_START = 2
    COMPUTE_INPUT_END = 3
    COMPUTE_OUTPUT_START = 4
    COMPUTE_END = 5
    REQUEST_END = 6
    TENSOR_QUEUE_INPUT = 7
    TENSOR_BACKEND_INPUT = 8
    TENSOR_BACKEND_OUTPUT = 9


class TRITONSERVER_RequestFlag(IntEnum):
    SEQUENCE_START = 1
    SEQUENCE_END = 2


class TRITONSERVER_RequestReleaseFlag(IntEnum):
    ALL = 1


class TRITONSERVER_ResponseCompleteFlag(IntEnum):
    FINAL = 1


class TRITONSERVER_ModelControlMode(IntEnum):
    NONE = 0
    POLL = 1
    EXPLICIT = 2


class TRITONSERVER_RateLimitMode(IntEnum):
    OFF = 0
    EXEC_COUNT = 1


class TRITONSERVER_ModelBatchFlag(IntEnum):
    UNKNOWN = 1
    FIRST_DIM = 2


class TRITONSERVER_ModelIndexFlag(IntEnum):
    READY = 1


class TRITONSERVER_ModelTxnPropertyFlag(IntEnum):
    ONE_TO_ONE = 0
    DECOUPLED = 1


class TRITONSERVER_MetricKind(IntEnum):
    COUNTER = 0
    GAUGE = 1


# The values upstream's enums export into the module as well.
EXPORTED = {
    member.name: member
    for enum in (TRITONSERVER_InferenceTraceLevel, TRITONSERVER_InferenceTraceActivity,
                 TRITONSERVER_RequestFlag, TRITONSERVER_RequestReleaseFlag,
                 TRITONSERVER_ResponseCompleteFlag, TRITONSERVER_ModelBatchFlag,
                 TRITONSERVER_ModelIndexFlag, TRITONSERVER_ModelTxnPropertyFlag)
    for member in enum
}

_BYTE_SIZES = {
    TRITONSERVER_DataType.BOOL: 1, TRITONSERVER_DataType.UINT8: 1, TRITONSERVER_DataType.INT8: 1,
    TRITONSERVER_DataType.UINT16: 2, TRITONSERVER_DataType.INT16: 2,
    TRITONSERVER_DataType.FP16: 2, TRITONSERVER_DataType.BF16: 2,
    TRITONSERVER_DataType.UINT32: 4, TRITONSERVER_DataType.INT32: 4,
    TRITONSERVER_DataType.FP32: 4,
    TRITONSERVER_DataType.UINT64: 8, TRITONSERVER_DataType.INT64: 8,
    TRITONSERVER_DataType.FP64: 8,
}


def _name_of(enum: type, value: int, unknown: str) -> str:
    try:
        return enum(int(value)).name
    except ValueError:
        return unknown


def TRITONSERVER_DataTypeString(datatype: int) -> str:  # noqa: N802 (upstream's names)
    if int(datatype) == TRITONSERVER_DataType.INVALID:
        return "<invalid>"
    return _name_of(TRITONSERVER_DataType, datatype, "<invalid>")


def TRITONSERVER_StringToDataType(dtype: str) -> TRITONSERVER_DataType:  # noqa: N802
    member = TRITONSERVER_DataType.__members__.get(dtype)
    if member is None or member == TRITONSERVER_DataType.INVALID:
        return TRITONSERVER_DataType.INVALID
    return member


def TRITONSERVER_DataTypeByteSize(datatype: int) -> int:  # noqa: N802
    try:
        return _BYTE_SIZES.get(TRITONSERVER_DataType(int(datatype)), 0)
    except ValueError:
        return 0


def TRITONSERVER_MemoryTypeString(memtype: int) -> str:  # noqa: N802
    return _name_of(TRITONSERVER_MemoryType, memtype, "<invalid>")


def TRITONSERVER_ParameterTypeString(paramtype: int) -> str:  # noqa: N802
    return _name_of(TRITONSERVER_ParameterType, paramtype, "<invalid>")


def TRITONSERVER_InstanceGroupKindString(kind: int) -> str:  # noqa: N802
    return _name_of(TRITONSERVER_InstanceGroupKind, kind, "<invalid>")


def TRITONSERVER_InferenceTraceLevelString(level: int) -> str:  # noqa: N802
    return _name_of(TRITONSERVER_InferenceTraceLevel, level, "<unknown>")


def TRITONSERVER_InferenceTraceActivityString(activity: int) -> str:  # noqa: N802
    return _name_of(TRITONSERVER_InferenceTraceActivity, activity, "<unknown>")
