"""pb_utils.InferenceRequest and the response sender of a Python model."""

from __future__ import annotations

import json
import threading
from typing import Any, Optional

from .pb_response import InferenceResponse, _parameters_of
from .pb_tensor import HOST_MEMORY_TYPES, Tensor
from .._errors import UnsupportedError
from .pb_types import TRITONSERVER_RESPONSE_COMPLETE_FINAL, TritonModelException

__all__ = ["InferenceRequest", "InferenceResponseSender", "wrap_request"]

_REQUIRED: Any = object()  # arguments Triton's InferenceRequest has no default for
_DEFAULT_MEMORY: Any = object()
_NO_TRACE: Any = object()


def _require(name: str, value: Any, kind: Any) -> None:
    """A TypeError, as Triton's bindings raise, unless `value` is a `kind`."""
    if value is _REQUIRED:
        raise TypeError(f"InferenceRequest.__init__(): missing required argument '{name}'")
    if isinstance(kind, str) or value is None or not isinstance(value, kind) or (
            kind is int and isinstance(value, bool)):
        expected = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
        raise TypeError(
            "InferenceRequest.__init__(): incompatible constructor arguments: "
            f"'{name}' must be {expected}, not {type(value).__name__}"
        )


class InferenceResponseSender:
    """Sends the responses of one request, with the rules of Triton's
    response sender: a decoupled model sends any number of responses, then
    TRITONSERVER_RESPONSE_COMPLETE_FINAL (which may come alone); a model that
    is not decoupled sends exactly one response, before or after its
    execute() returned. Once the final flag went out, the sender is closed.

    An error response (``InferenceResponse(error=...)``) ends the request
    for its client in Conch, whose requests end with their first error;
    the sender stays open, as in Triton, so the model may still send the
    final flag (and what it sends before that is dropped)."""

    __slots__ = ("_native", "_sent", "_closed", "_delivered", "_lock")

    def __init__(self, native: Any) -> None:
        self._native = native
        # One send at a time, as Triton's sender takes its mutex: a model
        # may send from several threads.
        self._lock = threading.Lock()
        self._sent = 0  # responses and final flags sent, as Triton counts them
        self._closed = False
        # This sender ended the request in the core: with an error, a final
        # response, or the one response of a model that is not decoupled.
        self._delivered = False

    def send(self, response: Optional[InferenceResponse] = None, flags: int = 0) -> None:
        with self._lock:
            self._send(response, flags)

    def _send(self, response: Optional[InferenceResponse], flags: int) -> None:
        if flags not in (0, TRITONSERVER_RESPONSE_COMPLETE_FINAL):
            raise TritonModelException("Unable to send response. Unsupported flag provided.")
        final = flags == TRITONSERVER_RESPONSE_COMPLETE_FINAL
        if response is None and not final:
            raise TritonModelException(
                "Inference Response object must be provided when the response flags is set to zero."
            )
        if response is not None and not isinstance(response, InferenceResponse):
            raise TypeError(
                "send(): incompatible function arguments: response must be a "
                f"pb_utils.InferenceResponse or None, not {type(response).__name__}"
            )
        native = self._native
        # Ended elsewhere: answered by execute()'s return value, or failed
        # because execute() raised (which closes every sender in Triton).
        ended_elsewhere = native.final_sent and not self._delivered
        if not native.decoupled:
            sent = self._sent + (1 if ended_elsewhere else 0)
            if response is not None and sent > 0:
                raise TritonModelException(
                    "Unable to send response. Non-decoupled model cannot send more than one "
                    "response."
                )
            if response is None and sent == 0:
                raise TritonModelException(
                    "Unable to send response. Non-decoupled model cannot send complete final "
                    "before sending a response."
                )
        if self._closed or ended_elsewhere:
            raise TritonModelException("Unable to send response. Response sender has been closed.")
        self._sent += 1
        if final:
            self._closed = True
        if self._delivered:
            return  # the request has ended for its client already
        ends = response is None or final or response.has_error() or not native.decoupled
        try:
            if response is None:
                native.respond([], True)
            else:
                response._send(native, ends)
        except UnsupportedError:
            # Ended meanwhile, by execute()'s return value on its thread.
            raise TritonModelException(
                "Unable to send response. Non-decoupled model cannot send more than one response."
                if not native.decoupled else
                "Unable to send response. Response sender has been closed.") from None
        self._delivered = ends

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
        "_sender",
        "_cpu_only",
    )

    def __init__(
        self,
        request_id: str = "",
        correlation_id: Any = 0,
        inputs: list = _REQUIRED,
        requested_output_names: list = _REQUIRED,
        model_name: str = _REQUIRED,
        model_version: int = -1,
        flags: int = 0,
        timeout: int = 0,
        preferred_memory: Any = _DEFAULT_MEMORY,
        trace: Any = _NO_TRACE,
        parameters: Any = None,
    ) -> None:
        # Triton's argument order and checks: a missing or wrongly typed
        # argument (None included) is a TypeError, a bad value inside one a
        # TritonModelException.
        if isinstance(model_name, bytes):  # as a BYTES input's as_numpy() gives it
            model_name = model_name.decode()
        _require("inputs", inputs, (list, tuple))
        _require("requested_output_names", requested_output_names, (list, tuple))
        _require("model_name", model_name, str)
        _require("request_id", request_id, str)
        for what, value in (("model_version", model_version), ("flags", flags),
                            ("timeout", timeout)):
            _require(what, value, int)
        if correlation_id is None:
            _require("correlation_id", correlation_id, (int, str))
        if preferred_memory is None or trace is None:
            _require("preferred_memory" if preferred_memory is None else "trace", None, object)
        if not all(isinstance(n, str) for n in requested_output_names):
            _require("requested_output_names", requested_output_names, "List[str]")
        inputs = list(inputs)
        for t in inputs:
            if not isinstance(t, Tensor):
                raise TritonModelException(
                    f"inputs must hold pb_utils.Tensor objects, not {type(t).__name__}"
                )
        names = list(requested_output_names)
        if not isinstance(correlation_id, (int, str)) or isinstance(correlation_id, bool):
            raise TritonModelException("Correlation ID must be integer or string")
        for what, value in (("flags", flags), ("timeout", timeout)):
            if value < 0:
                raise TritonModelException(f"{what} must be an int >= 0, not {value!r}")
        parameters = _parameters_of(parameters or None) or {}  # "" is no parameters
        if preferred_memory is _DEFAULT_MEMORY:
            preferred_memory = None
        if trace is _NO_TRACE:
            trace = None
        self._native = None
        self._sender = None
        self._cpu_only = False
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

    # -- what the request carries --------------------------------------------------

    def inputs(self) -> list:
        return list(self._input_tensors())

    def _input_tensors(self) -> list:
        """The inputs, made on the first call: the list itself, which
        the caller must not change."""
        tensors = self._inputs
        if tensors is None:
            from_native = _tensor_from_native
            items = self._request().inputs()
            to_host = self._cpu_only
            tensors = []
            for item in items:
                tensor = from_native(item)
                if to_host and item[4] not in HOST_MEMORY_TYPES:  # its memory type
                    tensor = tensor._on_host()
                tensors.append(tensor)
            self._inputs = tensors
        return tensors

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
        """The request's one response sender (the same object on each call).
        A model that is not decoupled and takes it may answer after its
        execute() returned."""
        if self._sender is None:
            native = self._request()
            native.take_sender()
            self._sender = InferenceResponseSender(native)
        return self._sender

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


_new_request = InferenceRequest.__new__
_tensor_from_native = Tensor._from_native


def wrap_request(native: Any, cpu_only: bool) -> InferenceRequest:
    """A request of a batch, as its model's execute() sees it; with
    `cpu_only` (FORCE_CPU_ONLY_INPUT_TENSORS, on by default) its inputs in GPU
    memory reach the model copied to host memory. A function, not a
    constructor: the backend calls it for each request of each batch."""
    self = _new_request(InferenceRequest)
    self._native = native
    self._inputs = None
    self._sender = None
    self._cpu_only = cpu_only
    return self
