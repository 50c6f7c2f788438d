"""``tritonserver._api._response``."""

from conch import AsyncResponseIterator, InferenceResponse, ResponseIterator  # noqa: F401
