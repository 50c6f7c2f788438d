"""``tritonserver._api._logging``."""

from conch import LogLevel  # noqa: F401
from conch._logging import LogMessage  # noqa: F401
