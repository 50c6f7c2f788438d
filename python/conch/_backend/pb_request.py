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
        if flags not in (0, TRITONSERVER_RESPONSE_COMPLETE_FINAL):
            raise TritonModelException("Unable to send response. Unsupported flag provided.")
        final = flags == TRITONSERVER_RESPONSE_COMPLETE_FINAL
        if response is None and not final:
            raise TritonModelException(
                "Inference Response object must be provided when the response flags is set to zero."
            )
        if self._native.final_sent:
            raise TritonModelException("Unable to send response. Response sender has been closed.")
        if response is None:
            self._native.respond([], True)
            return
        if not isinstance(response, InferenceResponse):
            raise TritonModelException(
                f"send() takes a pb_utils.InferenceResponse, not {type(response).__name__}"
            )
        response._send(self._native, final)

    def is_cancelled(self) -> bool:
        return self._native.is_cancelled()


class InferenceTrace:
    """The trace of a request (``request.trace()``). Passed as
    ``InferenceRequest(trace=...)`` it makes a BLS request a child trace of
    the request the model runs; without it, as in Triton, BLS requests are
    not traced."""

    __slots__ = ("_native",)

    def __init__(self, native: Any = None) -> None:
        self._native = native

    def get_context(self, key: Optional[str] = None) -> Optional[str]:
        """The W3C trace context the request's children continue, as a JSON
        object string ({"traceparent": ...}), or the value of `key` in it;
        None when the request is not traced."""
        if self._native is None:
            return None
        context = self._native.context_json()
        if key is None or key == "":
            return context
        return json.loads(context).get(key)


class InferenceRequest:
    """A request a Python model executes: ``inputs()``, ``parameters()``,
    ``request_id()``, ``correlation_id()``, ``get_response_sender()``,
    ``is_cancelled()``... Created by model code, it is a BLS request to a
    model of the same server, sent with ``exec()`` or ``async_exec()``."""

    __slots__ = (
        "_native",
        "_inputs",
        "_model_name",
        "_model_version",
        "_inputs_out",
        "_requested_outputs",
        "_request_id",
        "_correlation_id",
        "_flags",
        "_timeout",
        "_parameters_out",
        "_preferred_memory",
        "_trace",
    )

    def __init__(
        self,
        model_name: str,
        inputs: Optional[list] = None,
        requested_output_names: Optional[list] = None,
        request_id: str = "",
        correlation_id: Any = 0,
        flags: int = 0,
        timeout: int = 0,
        model_version: int = -1,
        preferred_memory: Any = None,
        trace: Any = None,
        parameters: Any = None,
    ) -> None:
        if isinstance(model_name, bytes):  # as a BYTES input's as_numpy() gives it
            model_name = model_name.decode()
        if not isinstance(model_name, str):
            raise TritonModelException(f"model_name must be a str, not {type(model_name).__name__}")
        inputs = list(inputs or [])
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TritonModelException(
                    f"inputs must hold pb_utils.Tensor objects, not {type(t).__name__}"
                )
        names = list(requested_output_names or [])
        if not all(isinstance(n, str) for n in names):
            raise TritonModelException("requested_output_names must be a list of str")
        if not isinstance(correlation_id, (int, str)) or isinstance(correlation_id, bool):
            raise TritonModelException("Correlation ID must be integer or string")
        for what, value in (("flags", flags), ("timeout", timeout)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise TritonModelException(f"{what} must be an int >= 0, not {value!r}")
        if isinstance(parameters, str):
            parameters = json.loads(parameters) if parameters else {}
        parameters = dict(parameters or {})
        for key, value in parameters.items():
            if not isinstance(key, str) or not isinstance(value, (str, int, bool)):
                raise TritonModelException(
                    "parameters must map str keys to str, int or bool values"
                )
        self._native = None
        self._inputs = inputs
        self._model_name = model_name
        self._model_version = int(model_version)
        self._inputs_out = inputs
        self._requested_outputs = names
        self._request_id = request_id or ""
        self._correlation_id = correlation_id
        self._flags = int(flags)
        self._timeout = int(timeout)
        self._parameters_out = parameters
        self._preferred_memory = preferred_memory
        self._trace = trace

    @classmethod
    def _wrap(cls, native: Any) -> "InferenceRequest":
        self = cls.__new__(cls)
        self._native = native
        self._inputs = None
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

    def trace(self) -> InferenceTrace:
        """This request's trace (empty when it is not traced); for a request
        made in model code, the trace it was given."""
        if self._native is None:
            return self._trace if isinstance(self._trace, InferenceTrace) else InferenceTrace()
        return InferenceTrace(self._request().trace)

    def get_response_sender(self) -> InferenceResponseSender:
        return InferenceResponseSender(self._request())

    # -- BLS -------------------------------------------------------------------------

    def exec(self, decoupled: bool = False) -> Any:
        """Sends this request to its model and waits: the response, or with
        `decoupled` an iterator of the responses as they come (the last one
        final, possibly empty). Errors come back as responses whose
        has_error() is true."""
        from . import pb_bls

        self._bls_only("exec")
        return pb_bls.run(self, bool(decoupled))

    async def async_exec(self, decoupled: bool = False) -> Any:
        """As exec(), awaited in an ``async def execute``."""
        from . import pb_bls

        self._bls_only("async_exec")
        return await pb_bls.run_async(self, bool(decoupled))

    def set_release_flags(self, flags: int) -> None:
        """With TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, the request runs
        again in a later batch (a model with iterative sequences): a model
        that is not decoupled then puts None at its place in execute()'s
        list; a decoupled one may have sent responses that were not final."""
        try:
            self._request().set_release_flags(int(flags))
        except Exception as e:
            raise TritonModelException(str(e)) from None

    def _bls_only(self, what: str) -> None:
        if self._native is not None:
            raise TritonModelException(
                f"{what}() sends a request that model code created; this one was given to execute()"
            )

    def _correlation_id_out(self) -> Any:
        cid = self._correlation_id
        return None if cid == 0 or cid == "" else cid

    def _request(self) -> Any:
        if self._native is None:
            raise TritonModelException("this InferenceRequest was created by model code and carries no request")
        return self._native
