"""``tritonserver._c``: Triton's low-level bindings, served by Conch's
emulation of them (conch._triton_c)."""

from .triton_bindings import *  # noqa: F401,F403
