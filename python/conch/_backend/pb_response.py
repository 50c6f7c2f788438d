"""pb_utils.InferenceResponse: what a Python model answers a request with."""

from __future__ import annotations

from typing import Any, Optional

from .pb_tensor import Tensor
from .pb_types import TritonError, TritonModelException

__all__ = ["InferenceResponse"]

_EMPTY: list = []  # the default of output_tensors, never changed


class InferenceResponse:
    """``InferenceResponse(output_tensors=[...], error=None, parameters=None)``."""

    __slots__ = ("_outputs", "_error", "_parameters", "_final")

    def __init__(
        self,
        output_tensors: list = _EMPTY,
        error: Optional[TritonError] = None,
        parameters: Any = None,
    ) -> None:
        # Triton's bindings: a wrong type is a TypeError, a None inside the
        # list a TritonModelException.
        if output_tensors is _EMPTY:
            output_tensors = []
        if not isinstance(output_tensors, (list, tuple)):
            raise TypeError(
                "__init__(): incompatible constructor arguments. The following argument types "
                "are supported:\n    1. InferenceResponse(output_tensors: List[Tensor] = [], "
                "error: TritonError = None, parameters: object = None)\n\n"
                f"Invoked with: {type(output_tensors).__name__}"
            )
        outputs = list(output_tensors)
        for t in outputs:
            if not isinstance(t, Tensor):
                raise TritonModelException(
                    f"output_tensors must hold pb_utils.Tensor objects, not {type(t).__name__}"
                )
        if error is not None and not isinstance(error, TritonError):
            raise TypeError(
                "__init__(): incompatible constructor arguments: error must be a "
                f"pb_utils.TritonError or None, not {type(error).__name__}"
            )
        self._outputs = outputs
        self._error = error
        self._parameters = None if parameters is None else _parameters_of(parameters)
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
        outputs = []
        for tensor in self._outputs:
            outputs.append(tensor._output())
        native.respond(outputs, final, self._parameters)


def _parameters_of(parameters: Any) -> Optional[dict]:
    """The parameters of a response or a BLS request, checked with Triton's
    texts: a dict (or a JSON object string) of str keys to bool, int or str."""
    if parameters is None:
        return None
    if isinstance(parameters, str):
        import json

        parameters = json.loads(parameters)
    if not isinstance(parameters, dict):
        raise TritonModelException(f"Expect N8pybind114dictE, got {type(parameters)}")
    for key, value in parameters.items():
        if not isinstance(key, str):
            raise TritonModelException(
                f"Expect parameters keys to have type str, found type {type(key)}"
            )
        if not isinstance(value, (bool, int, str)):
            raise TritonModelException(
                f"Expect parameters values to have type bool/int/str, found type {type(value)}"
            )
    return parameters
