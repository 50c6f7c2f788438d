"""``tritonserver._c.triton_bindings``, the module upstream's high-level
package imports its low-level names from."""

from conch._triton_c import *  # noqa: F401,F403
from conch._triton_c import __all__  # noqa: F401
