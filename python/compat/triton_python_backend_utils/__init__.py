"""``triton_python_backend_utils``: the API a Triton Python model imports
(``import triton_python_backend_utils as pb_utils``), served by Conch's
``python`` backend. Everything comes from ``conch.python_backend_utils``."""

from conch.python_backend_utils import *  # noqa: F401,F403
from conch.python_backend_utils import __all__  # noqa: F401
