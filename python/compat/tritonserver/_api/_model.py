"""``tritonserver._api._model``."""

from conch import Model, ModelBatchFlag, ModelTxnPropertyFlag  # noqa: F401
