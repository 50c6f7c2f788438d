"""conch.frontend: network frontends for a Conch server, with the API of
NVIDIA Triton's ``tritonfrontend`` package.

    import conch
    from conch.frontend import KServeHttp

    server = conch.Server(model_repository="models").start(wait_until_ready=True)
    with KServeHttp(server, KServeHttp.Options(port=8000)):
        ...                          # tritonclient.http, curl, ...
    server.stop()

KServeGrpc serves the same over gRPC (port 8001), Metrics serves the server's Prometheus metrics on
port 8002 the same way, and OpenAI serves OpenAI's API (port 9000).
"""

from __future__ import annotations

from ._kservegrpc import KServeGrpc
from ._kservehttp import KServeHttp
from ._metrics import Metrics
from ._openai import ChatTemplate, OpenAI
from ._restricted import Feature, FeatureGroup, RestrictedFeatures
from ._sagemaker import SageMaker
from ._vertex_ai import VertexAI

__all__ = [
    "KServeHttp", "KServeGrpc", "Metrics", "OpenAI", "ChatTemplate", "SageMaker", "VertexAI", "Feature", "FeatureGroup",
    "RestrictedFeatures",
]
