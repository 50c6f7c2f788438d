"""SageMaker: Amazon SageMaker's hosting contract (GET /ping, POST
/invocations, the multi-model /models routes), as Triton's SageMaker
frontend serves it (Conch's addition to the ``tritonfrontend`` API)."""

from __future__ import annotations

import os
from dataclasses import field
from typing import Any

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from .. import _conch
from ._frontend import Frontend
from ._cloud import CloudOptions, http_frontend_args

__all__ = ["SageMaker"]


def _default_model() -> str:
    return os.environ.get("SAGEMAKER_TRITON_DEFAULT_MODEL_NAME",
                          "unspecified_SAGEMAKER_TRITON_DEFAULT_MODEL_NAME")


def _ping_mode() -> str:
    return os.environ.get("SAGEMAKER_TRITON_PING_MODE", "ready")


def _inference_type() -> str:
    return os.environ.get("SAGEMAKER_TRITON_INFERENCE_TYPE", "infer")


class SageMaker(Frontend):
    """Serves a started Server on SageMaker's paths: GET /ping answers 200
    while the server is ready, POST /invocations runs the default model
    with a KServe v2 body (binary tensors announced by the content type
    ``application/vnd.sagemaker-triton.binary+json;json-header-size=N``),
    and a multi-model endpoint loads, lists, invokes and unloads models
    under /models (the server needs model_control_mode="explicit" there).

        with SageMaker(server, SageMaker.Options(default_model="densenet")):
            ...
    """

    @dataclass(config=ConfigDict(arbitrary_types_allowed=True))
    class Options(CloudOptions):
        """Options of the SageMaker frontend; the defaults follow the
        environment a SageMaker container sets."""

        #: The TCP port (SageMaker sends requests to 8080); 0 picks a free one.
        port: int = Field(default=8080, ge=0, le=65535)
        #: The model /invocations runs (SAGEMAKER_TRITON_DEFAULT_MODEL_NAME).
        default_model: str = field(default_factory=_default_model)
        #: "ready" or "live": what /ping answers 200 for
        #: (SAGEMAKER_TRITON_PING_MODE).
        ping_mode: str = field(default_factory=_ping_mode)
        #: "infer", "generate" or "generate_stream": the KServe endpoint
        #: /invocations is served by (SAGEMAKER_TRITON_INFERENCE_TYPE).
        inference_type: str = field(default_factory=_inference_type)

    def _create(self, native_server: Any, options: "SageMaker.Options") -> Any:
        return _conch.HttpFrontend(
            native_server,
            **http_frontend_args(options),
            sagemaker=True,
            sagemaker_default_model=options.default_model,
            sagemaker_ping_mode=options.ping_mode,
            sagemaker_inference_type=options.inference_type,
        )
