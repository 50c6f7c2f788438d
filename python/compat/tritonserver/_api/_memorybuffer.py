"""``tritonserver._api._memorybuffer``."""

from conch import DeviceOrMemoryType, MemoryBuffer, MemoryType  # noqa: F401
