"""``tritonserver._c``: Triton's low-level bindings, served by Conch
(conch._bindings)."""

from .triton_bindings import *  # noqa: F401,F403
