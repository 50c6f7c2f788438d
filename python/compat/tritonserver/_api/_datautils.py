"""``tritonserver._api._datautils``: the device and memory-type parsing
upstream's modules share."""

from conch._tensor import parse_device as parse_device_or_memory_type  # noqa: F401
