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
from ._cloud import CloudOptions, http_frontend_args

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
    class Options(CloudOptions):
        """Options of the Vertex AI frontend; the defaults follow the
        environment Vertex AI sets (AIP_*)."""

        #: The TCP port (AIP_HTTP_PORT, else 8080); 0 picks a free one.
        port: int = Field(default_factory=_port, ge=0, le=65535)
        #: The model the predict route runs; empty: the repository's one
        #: ready model (start() fails otherwise, with Triton's text).
        default_model: str = ""
        #: The routes, RE2 regular expressions matched against the whole path.
        health_route: str = field(default_factory=lambda: _env("AIP_HEALTH_ROUTE"))
        predict_route: str = field(default_factory=lambda: _env("AIP_PREDICT_ROUTE"))

    def _create(self, native_server: Any, options: "VertexAI.Options") -> Any:
        return _conch.HttpFrontend(
            native_server,
            **http_frontend_args(options),
            vertex_ai=True,
            vertex_ai_default_model=options.default_model,
            vertex_ai_health_route=options.health_route,
            vertex_ai_predict_route=options.predict_route,
        )
