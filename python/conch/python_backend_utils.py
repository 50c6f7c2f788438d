"""The python-backend API that model.py files import as
``triton_python_backend_utils`` (usually ``as pb_utils``).

Models run in-process by Conch's ``python`` backend see this module under
that name; the compatibility package of the same name re-exports it.
"""

from __future__ import annotations

from typing import Any, Optional

from ._backend.pb_bls import InferenceResponseIterator, is_model_ready, load_model, unload_model
from ._backend.pb_metrics import Metric, MetricFamily
from ._backend.pb_config import ModelConfig, get_input_config_by_name, get_output_config_by_name
from ._backend.pb_request import InferenceRequest, InferenceResponseSender, InferenceTrace
from ._backend.pb_response import InferenceResponse
from ._backend.pb_tensor import Tensor
from ._backend.pb_types import (
    TRITON_STRING_TO_NUMPY,
    TRITONSERVER_REQUEST_FLAG_SEQUENCE_END,
    TRITONSERVER_REQUEST_FLAG_SEQUENCE_START,
    TRITONSERVER_REQUEST_RELEASE_ALL,
    TRITONSERVER_REQUEST_RELEASE_RESCHEDULE,
    TRITONSERVER_MEMORY_CPU,
    TRITONSERVER_MEMORY_GPU,
    TRITONSERVER_RESPONSE_COMPLETE_FINAL,
    Logger,
    LogLevel,
    TritonError,
    PreferredMemory,
    TritonModelException,
    numpy_to_triton_type,
    triton_string_to_numpy,
    triton_to_numpy_type,
)

__all__ = [
    "Tensor",
    "InferenceRequest",
    "InferenceResponse",
    "InferenceResponseSender",
    "InferenceResponseIterator",
    "InferenceTrace",
    "PreferredMemory",
    "MetricFamily",
    "Metric",
    "ModelConfig",
    "TritonError",
    "TritonModelException",
    "Logger",
    "LogLevel",
    "TRITON_STRING_TO_NUMPY",
    "TRITONSERVER_RESPONSE_COMPLETE_FINAL",
    "TRITONSERVER_MEMORY_CPU",
    "TRITONSERVER_MEMORY_GPU",
    "TRITONSERVER_REQUEST_FLAG_SEQUENCE_START",
    "TRITONSERVER_REQUEST_FLAG_SEQUENCE_END",
    "TRITONSERVER_REQUEST_RELEASE_ALL",
    "TRITONSERVER_REQUEST_RELEASE_RESCHEDULE",
    "get_input_tensor_by_name",
    "get_output_tensor_by_name",
    "get_input_config_by_name",
    "get_output_config_by_name",
    "triton_string_to_numpy",
    "triton_to_numpy_type",
    "numpy_to_triton_type",
    "using_decoupled_model_transaction_policy",
    "load_model",
    "unload_model",
    "is_model_ready",
]


def get_input_tensor_by_name(inference_request: InferenceRequest, name: str) -> Optional[Tensor]:
    """The request's input `name`, or None."""
    if type(inference_request) is InferenceRequest:
        tensors = inference_request._input_tensors()  # without inputs()' copy
    else:  # a subclass, or a stand-in of a model's tests: its own inputs()
        tensors = inference_request.inputs()
    for tensor in tensors:
        if tensor.name() == name:
            return tensor
    return None


def get_output_tensor_by_name(inference_response: Any, name: str) -> Optional[Tensor]:
    """The response's output `name`, or None."""
    for tensor in inference_response.output_tensors():
        if tensor.name() == name:
            return tensor
    return None


def using_decoupled_model_transaction_policy(model_config: Any) -> bool:
    """Whether the model's configuration (the dict initialize() gets as
    json.loads(args["model_config"])) makes it decoupled."""
    policy = (model_config or {}).get("model_transaction_policy") or {}
    return bool(policy.get("decoupled", False))
