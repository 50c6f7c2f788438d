"""BLS: the requests a Python model sends to other models of its server
(``pb_utils.InferenceRequest(...).exec()`` / ``async_exec()``).

A request goes through the server's own request path (``_conch.BlsGateway``:
the published model table, validation, the direct lane or the scheduler,
statistics, cancellation). Which server: the one of the model whose
``execute`` runs on this thread or task; from a thread that model code
started, the one of the model.py whose code is on that thread's stack.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
import weakref
from typing import Any, Callable, Iterator, Optional

from .. import _conch
from .. import _errors as core_errors
from .pb_response import InferenceResponse
from .pb_tensor import Tensor
from .pb_types import TritonError, TritonModelException

__all__ = ["calling_model", "enter_model", "leave_model", "gateway", "run", "InferenceResponseIterator"]

# How long one wait for a response lasts before Python code runs again, so
# that an ExecutionAbandoned raised in a stuck model's thread can go off.
_WAIT_SLICE_S = 0.1

_current: contextvars.ContextVar[Optional[tuple]] = contextvars.ContextVar(
    "conch_bls_gateway", default=None
)
_by_module: dict[str, "weakref.ref[Any]"] = {}


class calling_model:
    """Marks the code in its scope as the model's own, in one of its phases
    ("initialize", "execute", "finalize"), so that its requests go to the
    model's server: BLS from execute() only, model loading from initialize()
    and execute(), as Triton allows them."""

    __slots__ = ("_gateway", "_phase", "_token")

    def __init__(self, gateway: Any, phase: str = "execute") -> None:
        self._gateway = gateway
        self._phase = phase
        self._token: Optional[contextvars.Token] = None

    def __enter__(self) -> None:
        self._token = _current.set((self._gateway, self._phase))

    def __exit__(self, *exc: Any) -> None:
        assert self._token is not None
        _current.reset(self._token)


def enter_model(scope: tuple) -> contextvars.Token:
    """As ``calling_model``'s ``__enter__``, for the code that runs each
    batch: `scope` is ``(gateway, phase)``, kept by the caller; the token goes
    to ``leave_model`` when the model's code has returned."""
    return _current.set(scope)


def leave_model(token: contextvars.Token) -> None:
    _current.reset(token)


def remember(package_name: str, gateway: Any) -> None:
    """Registers the gateway of the model whose model.py was imported into
    the package `package_name`, with the model's own modules (held weakly)."""
    if gateway is not None:
        _by_module[package_name] = weakref.ref(gateway)


def forget(package_name: str) -> None:
    _by_module.pop(package_name, None)


def gateway(loading: bool = False) -> Any:
    """The gateway the requests made here go through (BLS, or with
    `loading` the model loading API): the calling model's, from its own code;
    from a thread that model code started, the gateway of the model.py whose
    code is on the stack."""
    found = _current.get()
    if found is not None:
        gateway, phase = found
        if not loading and phase != "execute":
            raise TritonModelException("BLS is only supported during the 'execute' function.")
        if loading and phase == "finalize":
            raise TritonModelException(
                "The model loading API is not supported in the 'finalize' function."
            )
        if gateway is not None:
            return gateway
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        ref = _by_module.get(name.partition(".")[0]) if isinstance(name, str) else None
        if ref is not None and ref() is not None:
            return ref()
        frame = frame.f_back
    raise TritonModelException(
        "BLS requests can only be sent by the code of a Python model that a Conch server runs"
    )


# -- responses ---------------------------------------------------------------------

_CODES = (
    (core_errors.CancelledError, TritonError.CANCELLED),
    (core_errors.InternalError, TritonError.INTERNAL),
    (core_errors.NotFoundError, TritonError.NOT_FOUND),
    (core_errors.InvalidArgumentError, TritonError.INVALID_ARG),
    (core_errors.UnavailableError, TritonError.UNAVAILABLE),
    (core_errors.UnsupportedError, TritonError.UNSUPPORTED),
    (core_errors.AlreadyExistsError, TritonError.ALREADY_EXISTS),
)


def _triton_error(error: BaseException) -> TritonError:
    for cls, code in _CODES:
        if isinstance(error, cls):
            return TritonError(str(error.args[0]) if error.args else str(error), code)
    return TritonError(str(error), TritonError.UNKNOWN)


def _response(native: Any) -> InferenceResponse:
    """A pb_utils.InferenceResponse of a _conch.Response."""
    error = native.error
    if error is not None:
        response = InferenceResponse(error=_triton_error(error))
    else:
        response = InferenceResponse(
            [Tensor._from_native(item) for item in native.outputs], None, native.parameters or None
        )
    response._final = bool(native.final)
    return response


def _failed(error: BaseException) -> InferenceResponse:
    response = InferenceResponse(error=_triton_error(error))
    response._final = True
    return response


class InferenceResponseIterator:
    """The responses of a BLS request sent with ``decoupled=True``, in the
    order they come; the last one carries the final flag and may be empty.
    ``cancel()`` cancels the request."""

    def __init__(self, handle: Any, first: Optional[InferenceResponse] = None) -> None:
        self._handle = handle if first is None or not first._final else None
        self._pending: list[InferenceResponse] = [first] if first is not None else []
        self._done = first is not None and first._final
        self._seen: list[InferenceResponse] = []

    def __iter__(self) -> Iterator[InferenceResponse]:
        # Iterated again once finished, it starts over from the first
        # response, as Triton's does.
        if self._done and not self._pending:
            return iter(list(self._seen))
        return self

    def __next__(self) -> InferenceResponse:
        if self._pending:
            response = self._pending.pop(0)
        elif self._done or self._handle is None:
            raise StopIteration
        else:
            response = _response(_wait(self._handle))
            self._done = response._final
        self._seen.append(response)
        return response

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()


def _wait(handle: Any) -> Any:
    while True:
        native = handle.get(_WAIT_SLICE_S)
        if native is not None:
            return native


def _submit(request: Any, decoupled: bool, on_response: Optional[Callable[[Any], None]]) -> Any:
    inputs = [t._output() if isinstance(t, Tensor) else t for t in request._inputs_out]
    return gateway().infer(
        request._model_name,
        request._model_version,
        inputs,
        request._parameters_out,
        request._request_id or None,
        request._flags,
        request._correlation_id_out(),
        request._timeout,
        list(request._requested_outputs),
        decoupled,
        on_response,
        getattr(request._trace, "_native", None),
    )


def run(request: Any, decoupled: bool) -> Any:
    """exec(): the response, or with `decoupled` the iterator of responses."""
    try:
        handle = _submit(request, decoupled, None)
    except core_errors.TritonError as e:
        failed = _failed(e)
        return InferenceResponseIterator(None, failed) if decoupled else failed
    if decoupled:
        return InferenceResponseIterator(handle)
    return _response(_wait(handle))


async def run_async(request: Any, decoupled: bool) -> Any:
    """async_exec(): as run, the waits for the first response (the only one,
    without `decoupled`) done by the running loop's executor; the iterator
    of a decoupled request waits for the rest on the thread that iterates,
    as Triton's does. Cancelling the awaiting task cancels the request."""
    try:
        handle = _submit(request, decoupled, None)
    except core_errors.TritonError as e:
        failed = _failed(e)
        return InferenceResponseIterator(None, failed) if decoupled else failed
    loop = asyncio.get_running_loop()
    try:
        first = _response(await loop.run_in_executor(None, _wait, handle))
    except asyncio.CancelledError:
        handle.cancel()
        raise
    if not decoupled:
        return first
    return InferenceResponseIterator(handle, first)


# -- the model loading API ---------------------------------------------------------------


def load_model(model_name: str, config: str = "", files: Optional[dict] = None) -> None:
    """pb_utils.load_model: loads (or reloads) a model of this server, as a
    load request would (EXPLICIT mode), and waits until it is READY."""
    entries = []
    for key, value in (files or {}).items():
        if not isinstance(key, str) or not isinstance(value, (bytes, bytearray, memoryview)):
            raise TritonModelException("files must map 'file:<version>/<path>' str keys to bytes")
        entries.append((key, bytes(value)))
    try:
        gateway(loading=True).load(model_name, config or "", entries)
    except core_errors.TritonError as e:
        raise TritonModelException(f"Failed to load model '{model_name}': {e}") from None


def unload_model(model_name: str, unload_dependents: bool = False) -> None:
    """pb_utils.unload_model: begins unloading a model of this server and
    returns, as Triton's does (waiting could wait for the caller itself); a
    failure is logged."""
    gateway(loading=True).unload(model_name, bool(unload_dependents))


def is_model_ready(model_name: str, model_version: str = "") -> bool:
    """pb_utils.is_model_ready: whether the version ("" for any) would take a
    request now."""
    version = -1 if model_version in ("", None) else int(model_version)
    return bool(gateway(loading=True).ready(model_name, version))
