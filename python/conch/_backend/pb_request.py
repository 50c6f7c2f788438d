"""pb_utils.InferenceRequest and the response sender of a Python model."""

from __future__ import annotations

import json
from typing import Any, Optional

from .pb_response import InferenceResponse
from .pb_tensor import Tensor
from .pb_types import TRITONSERVER_RESPONSE_COMPLETE_FINAL, TritonModelException

__all__ = ["InferenceRequest", "InferenceResponseSender"]


class InferenceResponseSender:
    """Sends the responses of one request: any number, then one with
    TRITONSERVER_RESPONSE_COMPLETE_FINAL (which may carry no response)."""

    __slots__ = ("_native",)

    def __init__(self, native: Any) -> None:
        self._native = native

    def send(self, response: Optional[InferenceResponse] = None, flags: int = 0) -> None:
        final = bool(flags & TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        if self._native.final_sent:
            raise TritonModelException(
                "the response sender of this request is closed: its final response was sent"
            )
        if response is None:
            if not final:
                raise TritonModelException(
                    "send() needs a response unless flags include TRITONSERVER_RESPONSE_COMPLETE_FINAL"
                )
            self._native.respond([], True)
            return
        if not isinstance(response, InferenceResponse):
            raise TritonModelException(
                f"send() takes a pb_utils.InferenceResponse, not {type(response).__name__}"
            )
        response._send(self._native, final)

    def is_cancelled(self) -> bool:
        return self._native.is_cancelled()


class InferenceRequest:
    """A request a Python model executes: ``inputs()``, ``parameters()``,
    ``request_id()``, ``correlation_id()``, ``get_response_sender()``,
    ``is_cancelled()``... Creating one in model code (a BLS request to another
    model) is accepted, but running it is not supported by Conch yet."""

    __slots__ = ("_native", "_inputs", "_bls")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._native = None
        self._inputs: Optional[list] = None
        self._bls = (args, kwargs)

    @classmethod
    def _wrap(cls, native: Any) -> "InferenceRequest":
        self = cls.__new__(cls)
        self._native = native
        self._inputs = None
        self._bls = None
        return self

    # -- what the request carries --------------------------------------------------

    def inputs(self) -> list:
        if self._inputs is None:
            self._inputs = [Tensor._from_native(item) for item in self._request().inputs()]
        return list(self._inputs)

    def request_id(self) -> str:
        return self._request().id

    def correlation_id(self) -> Any:
        cid = self._request().correlation_id
        return 0 if cid is None else cid

    def flags(self) -> int:
        return self._request().flags

    def timeout(self) -> int:
        return self._request().timeout_us

    def priority(self) -> int:
        return self._request().priority

    def model_name(self) -> str:
        return self._request().model_name

    def model_version(self) -> int:
        return self._request().model_version

    def parameters(self) -> str:
        """The request's parameters as a JSON object string."""
        return json.dumps(self._request().parameters)

    def requested_output_names(self) -> list:
        return self._request().requested_output_names()

    def is_cancelled(self) -> bool:
        return self._request().is_cancelled()

    def get_response_sender(self) -> InferenceResponseSender:
        return InferenceResponseSender(self._request())

    # -- BLS -------------------------------------------------------------------------

    def exec(self, *args: Any, **kwargs: Any) -> Any:
        raise TritonModelException("BLS requests (InferenceRequest.exec) are not supported by Conch yet")

    async def async_exec(self, *args: Any, **kwargs: Any) -> Any:
        raise TritonModelException("BLS requests (InferenceRequest.async_exec) are not supported by Conch yet")

    def _request(self) -> Any:
        if self._native is None:
            raise TritonModelException("this InferenceRequest was created by model code and carries no request")
        return self._native
