"""What the cloud frontends (SageMaker, VertexAI) share: the options of an
HTTP frontend that serves a cloud's paths over the KServe routes."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from .. import _conch
from ._policy import POLICY_DEFAULTS, policy_of
from ._restricted import RestrictedFeatures

#: The native HTTP options' defaults, by field name (written once, in C++).
_DEFAULTS = _conch.HttpFrontend.defaults()


@dataclass(config=ConfigDict(arbitrary_types_allowed=True))
class CloudOptions:
    """The options every cloud frontend has, as KServeHttp's."""

    #: The address to listen on.
    address: str = _DEFAULTS["address"]
    #: The number of threads serving connections.
    thread_count: int = Field(default=_DEFAULTS["thread_count"], gt=0)
    #: Endpoint groups behind a required header, as KServeHttp's.
    restricted_features: RestrictedFeatures = field(default_factory=RestrictedFeatures)
    #: Let clients register shared-memory regions and name them, as
    #: KServeHttp's (off by default).
    allow_client_shm: bool = _DEFAULTS["allow_client_shm"]
    #: Requests waiting on the server at most at once (503 beyond). 0: no limit.
    max_inflight: int = Field(default=_DEFAULTS["max_inflight"], ge=0)
    #: The largest request body in bytes.
    max_input_size: int = Field(default=_DEFAULTS["max_input_size"], gt=0)
    #: The connection policy, as KServeHttp's.
    header_timeout: float = Field(default=POLICY_DEFAULTS["header_timeout"], ge=0)
    body_timeout: float = Field(default=POLICY_DEFAULTS["body_timeout"], ge=0)
    keepalive_timeout: float = Field(default=POLICY_DEFAULTS["keepalive_timeout"], ge=0)
    write_timeout: float = Field(default=POLICY_DEFAULTS["write_timeout"], ge=0)
    drain_timeout: float = Field(default=POLICY_DEFAULTS["drain_timeout"], ge=0)
    max_connections: int = Field(default=POLICY_DEFAULTS["max_connections"], ge=0)
    max_inflight_bytes: int = Field(default=POLICY_DEFAULTS["max_inflight_bytes"], ge=0)


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
        **policy_of(options),
    }
