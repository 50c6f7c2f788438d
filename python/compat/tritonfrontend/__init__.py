"""``tritonfrontend``: the network frontends of NVIDIA Triton's Python
package, served by Conch. Every name is conch.frontend's own object
(``tritonfrontend.KServeHttp is conch.frontend.KServeHttp``); errors are the
``tritonserver`` (that is, conch) exceptions.

    import tritonserver
    from tritonfrontend import KServeHttp
    server = tritonserver.Server(model_repository="models").start(wait_until_ready=True)
    with KServeHttp(server, KServeHttp.Options(port=8000)):
        ...
"""

from conch.frontend import KServeGrpc, KServeHttp, Metrics  # noqa: F401

# Conch's additions: the SageMaker and Vertex AI frontends Triton's server
# binary has, and the OpenAI-compatible API that Triton serves from a
# separate FastAPI application.
from conch.frontend import OpenAI, SageMaker, VertexAI  # noqa: F401
