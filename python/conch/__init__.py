"""Conch: an in-process inference server with the API of ``tritonserver``.

    import conch, numpy
    server = conch.Server(model_repository="models").start(wait_until_ready=True)
    for response in server.model("identity_fp32").infer(inputs={"INPUT0": array}):
        output = numpy.from_dlpack(response.outputs["OUTPUT0"])
    server.stop()
"""

from __future__ import annotations

from importlib import metadata as _metadata

from ._errors import (
    AlreadyExistsError,
    CancelledError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    TritonError,
    UnavailableError,
    UnknownError,
    UnsupportedError,
)
from ._enums import (
    DataType,
    DLDeviceType,
    InstanceGroupKind,
    LogFormat,
    LogLevel,
    MemoryType,
    MetricFormat,
    MetricKind,
    ModelBatchFlag,
    ModelControlMode,
    ModelIndexFlag,
    ModelTxnPropertyFlag,
    RateLimitMode,
    RequestFlag,
    ResponseCompleteFlag,
)
from ._metrics import Metric, MetricFamily
from ._model import Model
from ._options import ModelLoadDeviceLimit, Options, RateLimiterResource
from ._request import InferenceRequest
from ._response import AsyncResponseIterator, InferenceResponse, ResponseIterator
from ._server import ModelDictionary, Server
from ._tensor import DeviceOrMemoryType, MemoryBuffer, Tensor

try:
    __version__ = _metadata.version("conch")
except _metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "UNKNOWN"

__all__ = [
    "Server",
    "Options",
    "Model",
    "ModelDictionary",
    "InferenceRequest",
    "InferenceResponse",
    "ResponseIterator",
    "AsyncResponseIterator",
    "Tensor",
    "MemoryBuffer",
    "DeviceOrMemoryType",
    "RateLimiterResource",
    "ModelLoadDeviceLimit",
    "DataType",
    "MemoryType",
    "DLDeviceType",
    "ModelControlMode",
    "RateLimitMode",
    "LogFormat",
    "LogLevel",
    "InstanceGroupKind",
    "MetricFamily",
    "Metric",
    "MetricFormat",
    "MetricKind",
    "ModelBatchFlag",
    "ModelTxnPropertyFlag",
    "RequestFlag",
    "ResponseCompleteFlag",
    "ModelIndexFlag",
    "TritonError",
    "UnknownError",
    "InternalError",
    "NotFoundError",
    "InvalidArgumentError",
    "UnavailableError",
    "UnsupportedError",
    "AlreadyExistsError",
    "CancelledError",
]
