"""``tritonserver._api._request``."""

from conch import InferenceRequest  # noqa: F401
