"""``tritonserver._api``: the modules of upstream's package, each holding
the names upstream code imports from it (``tritonserver._api._response.
InferenceResponse``), served by Conch's own objects."""

# Imported with the package, so that `tritonserver._api._response.X` works
# after a plain `import tritonserver`, as upstream's annotations need.
from . import (  # noqa: F401
    _datautils,
    _dlpack,
    _logging,
    _memorybuffer,
    _model,
    _request,
    _response,
    _server,
    _tensor,
)
