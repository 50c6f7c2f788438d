"""``tritonserver._api._dlpack``."""

from conch import DLDeviceType  # noqa: F401
