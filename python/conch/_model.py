"""Model: one model (and version) of a running server."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from ._enums import ModelBatchFlag, ModelTxnPropertyFlag
from ._errors import InvalidArgumentError
from ._request import InferenceRequest
from ._response import AsyncResponseIterator, ResponseIterator

if TYPE_CHECKING:
    from ._server import Server

__all__ = ["Model"]


class Model:
    """A model of a started server; version -1 means the highest ready version.
    Nothing is checked until it is used: an unknown model raises NotFoundError
    from the first call that needs it."""

    def __init__(
        self,
        server: "Server",
        name: str,
        version: int = -1,
        state: Optional[str] = None,
        reason: Optional[str] = None,
    ) -> None:
        server._native()  # raises InvalidArgumentError when not started
        self._server = server
        self.name = name
        self.version = version
        self.state = state
        self.reason = reason

    def __str__(self) -> str:
        return str({"name": self.name, "version": self.version, "state": self.state})

    __repr__ = __str__

    # -- inference ---------------------------------------------------------------

    def create_request(self, **kwargs: Any) -> InferenceRequest:
        """An InferenceRequest for this model (a `model` argument is ignored)."""
        kwargs.pop("model", None)
        return InferenceRequest(model=self, **kwargs)

    def infer(
        self,
        inference_request: Optional[InferenceRequest] = None,
        raise_on_error: bool = True,
        **kwargs: Any,
    ) -> ResponseIterator:
        """Submits a request (built from `kwargs` when none is given) and
        returns the iterator of its responses. Raises at once for an unknown
        model and for inputs or parameters Conch cannot take."""
        if inference_request is None:
            inference_request = InferenceRequest(model=self, **kwargs)
        return ResponseIterator(inference_request, raise_on_error)

    def async_infer(
        self,
        inference_request: Optional[InferenceRequest] = None,
        raise_on_error: bool = True,
        **kwargs: Any,
    ) -> AsyncResponseIterator:
        """As infer, for ``async for``. Not a coroutine: the request is
        submitted when this returns."""
        if inference_request is None:
            inference_request = InferenceRequest(model=self, **kwargs)
        return AsyncResponseIterator(inference_request, raise_on_error)

    # -- queries ---------------------------------------------------------------------

    def ready(self) -> bool:
        return self._server._native().model_ready(self.name, self.version)

    def metadata(self) -> dict[str, Any]:
        """{name, versions, platform, inputs, outputs}."""
        return self._server._native().model_metadata(self.name, self.version)

    def config(self, config_version: int = 1) -> dict[str, Any]:
        """The model configuration in protobuf's JSON form."""
        if config_version != 1:
            raise InvalidArgumentError(
                f"model configuration version {config_version} is not supported; use 1"
            )
        return json.loads(self._server._native().model_config(self.name, self.version))

    def statistics(self) -> dict[str, Any]:
        """{"model_stats": [...]} for this model's ready versions."""
        return json.loads(self._server._native().model_statistics(self.name, self.version))

    def batch_properties(self) -> ModelBatchFlag:
        """FIRST_DIM when the model batches (max_batch_size > 0), else UNKNOWN."""
        if self.config().get("max_batch_size", 0) > 0:
            return ModelBatchFlag.FIRST_DIM
        return ModelBatchFlag.UNKNOWN

    def transaction_properties(self) -> ModelTxnPropertyFlag:
        """DECOUPLED for a decoupled model, else ONE_TO_ONE."""
        policy = self.config().get("model_transaction_policy") or {}
        if policy.get("decoupled", False):
            return ModelTxnPropertyFlag.DECOUPLED
        return ModelTxnPropertyFlag.ONE_TO_ONE
