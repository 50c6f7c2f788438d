"""``tritonserver``: the in-process API of NVIDIA Triton's Python package,
served by Conch. Every name is conch's own object (``tritonserver.Server is
conch.Server``), so code written for ``tritonserver`` runs unchanged and may
mix both names.

    import tritonserver
    server = tritonserver.Server(tritonserver.Options(model_repository="models"))
    server.start(wait_until_ready=True)
"""

from conch import *  # noqa: F401,F403
from conch import __all__, __version__  # noqa: F401

from . import _api  # noqa: F401,E402  (upstream's module layout, tritonserver._api._*)
# The low-level layer, imported with the package as upstream's imports it:
# it also gives Options upstream's _create_tritonserver_server_options().
from . import _c  # noqa: F401,E402
