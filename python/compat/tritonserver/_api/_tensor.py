"""``tritonserver._api._tensor``."""

from conch import DataType, Tensor  # noqa: F401
