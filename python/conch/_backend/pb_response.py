"""pb_utils.InferenceResponse: what a Python model answers a request with."""

from __future__ import annotations

from typing import Any, Optional

from .pb_tensor import Tensor
from .pb_types import TritonError, TritonModelException

__all__ = ["InferenceResponse"]


class InferenceResponse:
    """``InferenceResponse(output_tensors=[...], error=None, parameters=None)``."""

    __slots__ = ("_outputs", "_error", "_parameters", "_final")

    def __init__(
        self,
        output_tensors: Optional[list] = None,
        error: Optional[TritonError] = None,
        parameters: Any = None,
    ) -> None:
        outputs = list(output_tensors or [])
        for t in outputs:
            if not isinstance(t, Tensor):
                raise TritonModelException(
                    f"output_tensors must hold pb_utils.Tensor objects, not {type(t).__name__}"
                )
        if error is not None and not isinstance(error, TritonError):
            error = TritonError(str(error))
        self._outputs = outputs
        self._error = error
        self._parameters = _parameters_of(parameters)
        self._final = True  # a BLS response: whether it was the request's last

    def output_tensors(self) -> list:
        return list(self._outputs)

    def has_error(self) -> bool:
        return self._error is not None

    def error(self) -> Optional[TritonError]:
        return self._error

    def parameters(self) -> str:
        import json

        return json.dumps(self._parameters or {})

    def _send(self, native: Any, final: bool) -> None:
        """Sends this response for the request `native` (a BackendRequest)."""
        if self._error is not None:
            native.fail(self._error.message(), self._error._code_name())
            return
        native.respond([t._output() for t in self._outputs], final, self._parameters)


def _parameters_of(parameters: Any) -> Optional[dict]:
    if parameters is None:
        return None
    if isinstance(parameters, str):
        import json

        parameters = json.loads(parameters)
    if not isinstance(parameters, dict):
        raise TritonModelException("response parameters must be a dict or a JSON object string")
    return parameters
