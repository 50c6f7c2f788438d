"""The emulation of ``tritonserver._c`` (upstream's ``triton_bindings``,
Triton's low-level TRITONSERVER_* C-API surface) over Conch: the
``TRITONSERVER_*`` enums, helpers and classes, with upstream's error
classes, so code written against that layer runs unchanged. These are not
Conch's own bindings (that is the compiled ``conch._conch``): this package
is built on the high-level modules (``conch._server``, ``conch._options``,
...), which never import it. python/README.md says what each class maps to
and what it cannot do."""

from __future__ import annotations

from .._errors import (
    AlreadyExistsError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    TritonError,
    UnavailableError,
    UnknownError,
    UnsupportedError,
)
from ._enums import *  # noqa: F401,F403
from ._enums import EXPORTED
from ._metrics import TRITONSERVER_Metric, TRITONSERVER_MetricFamily
from ._options import TRITONSERVER_ServerOptions
from ._request import TRITONSERVER_InferenceRequest, TRITONSERVER_InferenceResponse
from ._server import TRITONSERVER_Metrics, TRITONSERVER_Server
from ._trace import TRITONSERVER_InferenceTrace
from ._values import (
    TRITONSERVER_BufferAttributes,
    TRITONSERVER_LogIsEnabled,
    TRITONSERVER_LogMessage,
    TRITONSERVER_Message,
    TRITONSERVER_Parameter,
    TRITONSERVER_ResponseAllocator,
    api_version,
)

# The enum values upstream exports into the module (FINAL, SEQUENCE_START, ...).
globals().update(EXPORTED)

__all__ = [name for name in globals() if not name.startswith("_") and name not in (
    "annotations", "EXPORTED")]
