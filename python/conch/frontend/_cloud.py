"""What the cloud frontends (SageMaker, VertexAI) share: the options of an
HTTP frontend that serves a cloud's paths over the KServe routes."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from ._policy import policy_of
from ._restricted import RestrictedFeatures


@dataclass(config=ConfigDict(arbitrary_types_allowed=True))
class CloudOptions:
    """The options every cloud frontend has, as KServeHttp's."""

    #: The address to listen on.
    address: str = "0.0.0.0"
    #: The number of threads serving connections.
    thread_count: int = Field(default=8, gt=0)
    #: Endpoint groups behind a required header, as KServeHttp's.
    restricted_features: RestrictedFeatures = field(default_factory=RestrictedFeatures)
    #: Let clients register shared-memory regions and name them, as
    #: KServeHttp's (off by default).
    allow_client_shm: bool = False
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


def http_frontend_args(options: Any) -> dict[str, Any]:
    """The arguments of _conch.HttpFrontend that CloudOptions give."""
    return {
        "address": options.address,
        "port": options.port,
        "thread_count": options.thread_count,
        "restricted_features": options.restricted_features._to_native(),
        "allow_client_shm": options.allow_client_shm,
        "max_inflight": options.max_inflight,
        "max_input_size": options.max_input_size,
        "policy": policy_of(options),
    }
