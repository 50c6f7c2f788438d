"""VertexAI: Google Vertex AI's prediction contract (a health route and a
predict route, AIP_HEALTH_ROUTE and AIP_PREDICT_ROUTE), as Triton's Vertex
AI frontend serves it (Conch's addition to the ``tritonfrontend`` API)."""

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

__all__ = ["VertexAI"]


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def _port() -> int:
    return int(os.environ.get("AIP_HTTP_PORT", "8080"))


class VertexAI(Frontend):
    """Serves a started Server on Vertex AI's routes: GET on the health route
    answers 200 while the server is ready; POST on the predict route runs
    the default model with a KServe v2 body (binary tensors announced by
    ``application/vnd.vertex-ai-triton.binary+json;json-header-size=N``),
    or, with an ``X-Vertex-Ai-Triton-Redirect`` header, the KServe endpoint
    it names (``v2/models/<m>/infer``, ``v2/models/<m>/ready``,
    ``v2/repository/index``, ...).

        with VertexAI(server, VertexAI.Options(health_route="/health",
                                               predict_route="/predict")):
            ...
    """

    @dataclass(config=ConfigDict(arbitrary_types_allowed=True))
    class Options:
        """Options of the Vertex AI frontend; the defaults follow the
        environment Vertex AI sets (AIP_*)."""

        #: The address to listen on.
        address: str = "0.0.0.0"
        #: The TCP port (AIP_HTTP_PORT, else 8080); 0 picks a free one.
        port: int = Field(default_factory=_port, ge=0, le=65535)
        #: The number of threads serving connections.
        thread_count: int = Field(default=8, gt=0)
        #: The model the predict route runs; empty: the repository's one
        #: ready model (start() fails otherwise, with Triton's text).
        default_model: str = ""
        #: The routes, regular expressions matched against the whole path.
        health_route: str = field(default_factory=lambda: _env("AIP_HEALTH_ROUTE"))
        predict_route: str = field(default_factory=lambda: _env("AIP_PREDICT_ROUTE"))
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

    def _create(self, native_server: Any, options: "VertexAI.Options") -> Any:
        return _conch.HttpFrontend(
            native_server,
            address=options.address,
            port=options.port,
            thread_count=options.thread_count,
            restricted_features=options.restricted_features._to_native(),
            max_inflight=options.max_inflight,
            max_input_size=options.max_input_size,
            policy=policy_of(options),
            vertex_ai=True,
            vertex_ai_default_model=options.default_model,
            vertex_ai_health_route=options.health_route,
            vertex_ai_predict_route=options.predict_route,
        )
