"""SageMaker: Amazon SageMaker's hosting contract (GET /ping, POST
/invocations), as Triton's SageMaker frontend serves it (Conch's addition
to the ``tritonfrontend`` API)."""

from __future__ import annotations

import os
from dataclasses import field
from typing import Any

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from .. import _conch
from ._frontend import Frontend
from ._policy import policy_of
from ._restricted import RestrictedFeatures

__all__ = ["SageMaker"]


def _default_model() -> str:
    return os.environ.get("SAGEMAKER_TRITON_DEFAULT_MODEL_NAME",
                          "unspecified_SAGEMAKER_TRITON_DEFAULT_MODEL_NAME")


def _ping_mode() -> str:
    return os.environ.get("SAGEMAKER_TRITON_PING_MODE", "ready")


class SageMaker(Frontend):
    """Serves a started Server on SageMaker's paths: GET /ping answers 200
    while the server is ready, POST /invocations runs the default model
    with a KServe v2 body (binary tensors announced by the content type
    ``application/vnd.sagemaker-triton.binary+json;json-header-size=N``).

        with SageMaker(server, SageMaker.Options(default_model="densenet")):
            ...
    """

    @dataclass(config=ConfigDict(arbitrary_types_allowed=True))
    class Options:
        """Options of the SageMaker frontend; the defaults follow the
        environment a SageMaker container sets."""

        #: The address to listen on.
        address: str = "0.0.0.0"
        #: The TCP port (SageMaker sends requests to 8080); 0 picks a free one.
        port: int = Field(default=8080, ge=0, le=65535)
        #: The number of threads serving connections.
        thread_count: int = Field(default=8, gt=0)
        #: The model /invocations runs (SAGEMAKER_TRITON_DEFAULT_MODEL_NAME).
        default_model: str = field(default_factory=_default_model)
        #: "ready" or "live": what /ping answers 200 for
        #: (SAGEMAKER_TRITON_PING_MODE).
        ping_mode: str = field(default_factory=_ping_mode)
        #: Endpoint groups behind a required header, as KServeHttp's.
        restricted_features: RestrictedFeatures = field(default_factory=RestrictedFeatures)
        #: Requests waiting on the server at most at once (503 beyond). 0: no limit.
        max_inflight: int = Field(default=4096, ge=0)
        #: The largest request body in bytes.
        max_input_size: int = Field(default=64 * 1024 * 1024, gt=0)
        #: The connection policy, as KServeHttp's.
        header_timeout: float = Field(default=30.0, ge=0)
        body_timeout: float = Field(default=60.0, ge=0)
        keepalive_timeout: float = Field(default=75.0, ge=0)
        write_timeout: float = Field(default=60.0, ge=0)
        drain_timeout: float = Field(default=5.0, ge=0)
        max_connections: int = Field(default=4096, ge=0)
        max_inflight_bytes: int = Field(default=1 << 30, ge=0)

    def _create(self, native_server: Any, options: "SageMaker.Options") -> Any:
        return _conch.HttpFrontend(
            native_server,
            address=options.address,
            port=options.port,
            thread_count=options.thread_count,
            restricted_features=options.restricted_features._to_native(),
            max_inflight=options.max_inflight,
            max_input_size=options.max_input_size,
            policy=policy_of(options),
            sagemaker=True,
            sagemaker_default_model=options.default_model,
            sagemaker_ping_mode=options.ping_mode,
        )
