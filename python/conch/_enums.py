"""The enumerations of the API; their values equal Triton's C enums."""

from __future__ import annotations

from enum import IntEnum, IntFlag

__all__ = [
    "DataType",
    "MemoryType",
    "ModelControlMode",
    "RateLimitMode",
    "LogFormat",
    "LogLevel",
    "InstanceGroupKind",
    "MetricFormat",
    "MetricKind",
    "ModelBatchFlag",
    "ModelTxnPropertyFlag",
    "RequestFlag",
    "ResponseCompleteFlag",
    "ModelIndexFlag",
    "DLDeviceType",
]


class DataType(IntEnum):
    """A tensor element type."""

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


class MemoryType(IntEnum):
    """Where a buffer's bytes live."""

    CPU = 0
    CPU_PINNED = 1
    GPU = 2


class ModelControlMode(IntEnum):
    """How the repository decides what to load."""

    NONE = 0
    POLL = 1
    EXPLICIT = 2


class RateLimitMode(IntEnum):
    """Rate limiting of model instances (Conch has none; OFF is the only mode)."""

    OFF = 0
    EXEC_COUNT = 1


class LogFormat(IntEnum):
    """The format of log lines."""

    DEFAULT = 0
    ISO8601 = 1


class LogLevel(IntEnum):
    """The level of a log message, as log_callback receives it."""

    INFO = 0
    WARN = 1
    ERROR = 2
    VERBOSE = 3


class InstanceGroupKind(IntEnum):
    """The kind of a model instance group."""

    AUTO = 0
    CPU = 1
    GPU = 2
    MODEL = 3


class MetricFormat(IntEnum):
    """The format of Server.metrics()."""

    PROMETHEUS = 0


class MetricKind(IntEnum):
    """The kind of a metric family."""

    COUNTER = 0
    GAUGE = 1
    HISTOGRAM = 2


class ModelBatchFlag(IntFlag):
    """How a model batches: FIRST_DIM when max_batch_size > 0."""

    UNKNOWN = 1
    FIRST_DIM = 2


class ModelTxnPropertyFlag(IntFlag):
    """A model's transaction policy: one response per request, or decoupled."""

    ONE_TO_ONE = 1
    DECOUPLED = 2


class RequestFlag(IntFlag):
    """Flags of a request in a sequence."""

    SEQUENCE_START = 1
    SEQUENCE_END = 2


class ResponseCompleteFlag(IntFlag):
    """Flags of a response."""

    FINAL = 1


class ModelIndexFlag(IntFlag):
    """Flags of a repository index query."""

    READY = 1


class DLDeviceType(IntEnum):
    """DLPack device types. An IntEnum (upstream uses plain ints), so tuples
    like ``(DLDeviceType.kDLCUDA, 0)`` are recognised as device specs."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
