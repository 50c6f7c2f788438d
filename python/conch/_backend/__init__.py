"""The Python half of the backends that run in this interpreter.

The extension registers the ``python`` and ``onnxruntime`` backends with the
core and calls the functions below, with the GIL held: ``load_model`` and
``complete_config`` when a model loads, ``create_instance`` on each
instance's thread (and ``readiness_check`` after it), ``execute`` for each
batch there, and ``finalize`` when an instance goes. Every exception leaving them is a ``BackendError`` whose text
is what a user should read: the model's UNAVAILABLE reason, or the error of
the requests of a batch.
"""

from __future__ import annotations

import importlib
import logging
from types import ModuleType
from typing import Any

from .._errors import TritonError

# In a module of their own, where the backend modules import them from, so
# that none of those imports this package, which loads them by name.
from .errors import BackendError, ExecutionAbandoned, describe

__all__ = [
    "BackendError",
    "ExecutionAbandoned",
    "load_model",
    "complete_config",
    "create_instance",
    "execute",
    "readiness_check",
    "finalize",
]

_MODULES = {"python": "python_model", "onnxruntime": "onnxruntime_model"}


def _backend(name: str) -> ModuleType:
    if name not in _MODULES:
        raise BackendError(f"no Python backend is called '{name}'")
    return importlib.import_module(f"{__name__}.{_MODULES[name]}")


def _backend_error(what: str, error: Exception) -> BackendError:
    if isinstance(error, TritonError):  # raised on purpose by a backend: its message says it all
        return BackendError(f"{what}: {error}")
    return BackendError(f"{what}: {describe(error)}")


def _guard(what: str, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except BackendError:
        raise
    except Exception as e:
        raise _backend_error(what, e) from e


def load_model(backend: str, context: dict) -> Any:
    """The runner of one model version."""
    return _guard(
        f"{backend} backend failed to load model '{context['name']}'",
        _backend(backend).load_model,
        context,
    )


def complete_config(backend: str, config: dict, model_path: str, model_file: str = "") -> dict:
    """`config` completed by the backend (strict_model_config off);
    `model_file` is a python-based backend's model.py."""
    extra = (model_file,) if model_file else ()
    return _guard(
        f"{backend} backend failed to auto-complete the configuration",
        _backend(backend).complete_config,
        config,
        model_path,
        *extra,
    )


def create_instance(runner: Any, instance: dict) -> Any:
    """The runner of one instance, created on the thread that runs it."""
    return _guard(
        f"failed to create model instance '{instance['name']}'", runner.create_instance, instance
    )


def execute(instance: Any, requests: list) -> None:
    """Runs one batch; the requests it leaves unanswered get the error.
    (_guard's work without its call: this runs for every batch.)"""
    try:
        instance.execute(requests)
    except BackendError:
        raise
    except Exception as e:
        raise _backend_error("model execution failed", e) from e


def readiness_check(instance: Any) -> Any:
    """The instance's own readiness check (readiness.ReadinessCheck), or None."""
    fn = getattr(instance, "readiness_check", None)
    return fn() if fn is not None else None


def finalize(instance: Any) -> None:
    """Lets an instance go; an error is logged, as nobody waits for it."""
    fn = getattr(instance, "finalize", None)
    if fn is None:
        return
    try:
        _guard("finalize() failed", fn)
    except BackendError as e:
        logging.getLogger("conch").error("%s", e)
