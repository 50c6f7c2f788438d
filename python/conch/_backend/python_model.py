"""The ``python`` backend: model.py files written for Triton's python
backend, run in this interpreter on each instance's own thread.

Each instance imports model.py afresh, so module-level state is per
instance, as with Triton's one process per instance. model.py runs inside a
package of its own (see model_import.py): ``import helper`` and ``from .
import helper`` find the modules beside it, never another model's, and
``import triton_python_backend_utils`` gives Conch's API. The model file is
default_model_filename (model.py when unset) inside the version directory,
never outside it.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import sys
import traceback
import weakref
from types import ModuleType
from typing import Any, Optional

from .errors import BackendError, describe
from .instance_loop import InstanceLoop
from .model_files import model_file_path
from .model_import import forget_package, import_model_file, package_name
from .pb_bls import calling_model, enter_model, forget, leave_model, remember
from .pb_config import ModelConfig
from .pb_request import wrap_request as _wrap_request
from .pb_response import InferenceResponse
from .readiness import ReadinessCheck

__all__ = ["load_model", "complete_config", "PythonModel"]


def _model_file(version_path: str, config: dict) -> str:
    return model_file_path(version_path, config, "model.py")


def _import(path: str, backend_based: bool = False) -> ModuleType:
    """Runs `path` (a file in a version directory, or a python-based
    backend's model.py) as a new module, which imports its own modules from
    beside it (and from the model directory, for a model's file)."""
    from .. import python_backend_utils

    sys.modules["triton_python_backend_utils"] = python_backend_utils
    folder = os.path.dirname(path)
    search = (folder,) if backend_based else (folder, os.path.dirname(folder))
    try:
        return import_model_file(path, search)
    except Exception as e:
        raise BackendError(f"failed to import '{path}': {describe(e)}") from e


def _forget(module: ModuleType) -> None:
    """Drops the package of `module` from sys.modules, where _import
    registered it and the model's own modules: once nothing uses a model
    file's import any more (its instance, its version or the auto-complete
    that imported it is gone), so that loading and unloading a model again
    and again does not keep every import alive."""
    name = package_name(module)
    forget_package(name)
    forget(name)


def _forget_with(owner: object, module: ModuleType) -> weakref.finalize:
    """Drops `module` from sys.modules when `owner` is garbage."""
    return weakref.finalize(owner, _forget, module)


def _model_class(module: ModuleType, path: str) -> type:
    cls = getattr(module, "TritonPythonModel", None)
    if not isinstance(cls, type):
        raise BackendError(f"'{path}' defines no class TritonPythonModel")
    return cls


def _triton_description(error: BaseException) -> str:
    """"Type: message", then where it was raised, as Triton's stub words an
    exception of model code ("...\n\nAt:\n  file(line): function")."""
    text = f"{type(error).__name__}: {error}"
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        text += "\n\nAt:\n" + "".join(
            f"  {f.filename}({f.lineno}): {f.name}\n" for f in reversed(frames))
    return text


class PythonInstance:
    """One instance: a TritonPythonModel object."""

    def __init__(self, model: Any, name: str, instance: str, decoupled: bool,
                 gateway: Any, cpu_only_inputs: bool = True, iterative: bool = True) -> None:
        self._model = model
        self._iterative = iterative  # whether its requests may be rescheduled
        self._cpu_only_inputs = cpu_only_inputs
        self._name = name
        self._instance = instance  # the instance's name, which Triton's texts give
        self._decoupled = decoupled
        self._gateway = gateway
        self._execute_scope = (gateway, "execute")
        self._loop: Optional[InstanceLoop] = None

    def _failed(self, message: str) -> BackendError:
        """The error of every request of a batch that failed, in Triton's words."""
        return BackendError(
            f"Failed to process the request(s) for model '{self._instance}', message: {message}")

    def _must_return_none(self) -> str:
        return (f"Python model '{self._instance}' is using the decoupled mode and the execute "
                "function must return None.")

    def execute(self, natives: list) -> None:
        # Once per request: what runs here is most of the Python a request
        # costs besides the model's own, so it calls as little as it can
        # (loops rather than comprehensions, which are a function each up
        # to Python 3.11).
        wrap = _wrap_request
        cpu_only = self._cpu_only_inputs
        requests = []
        for native in natives:
            requests.append(wrap(native, cpu_only))
        token = enter_model(self._execute_scope)
        try:
            responses = self._model.execute(requests)
            if type(responses) is not list and inspect.iscoroutine(responses):
                if self._loop is None:
                    self._loop = InstanceLoop(self._name, self._decoupled)
                if self._decoupled:
                    # Answered through the senders, maybe after other
                    # requests' coroutines: this thread takes the next batch.
                    self._loop.start(responses, natives, self._check_coroutine_result)
                    return
                responses = self._loop.run(responses)
        except Exception as e:
            raise self._failed(_triton_description(e)) from e
        finally:
            leave_model(token)
        self._answer(natives, responses)

    def _check_coroutine_result(self, natives: list, result: Any, error: Optional[BaseException]) -> None:
        """After a decoupled model's coroutine. As in Triton, what it raised
        is logged with its traceback (also when it had answered every
        request); where Conch does more, the requests it left unanswered
        fail, rather than wait for ever."""
        if error is not None:
            if not isinstance(error, asyncio.CancelledError):
                logging.getLogger("conch").error(
                    "%s", "".join(traceback.TracebackException.from_exception(error).format()))
            why = self._failed(_triton_description(error))
        elif result is not None:
            why = self._failed(self._must_return_none())
        else:
            return
        for native in natives:
            if not native.final_sent:
                try:
                    native.fail(str(why))
                except Exception:
                    pass  # answered meanwhile

    def _answer(self, natives: list, responses: Any) -> None:
        """Checks what a batch's execute() returned, with Triton's rules and
        texts, and sends it. A request left unanswered (its slot None, or
        execute() returned None) is the response sender's to answer."""
        if responses is None:
            return
        if self._decoupled:
            raise self._failed(self._must_return_none())
        if not isinstance(responses, list):
            raise self._failed(
                f"Expected a list in the execute return, found type '{type(responses)}'.")
        if len(responses) != len(natives):
            raise self._failed(
                "Number of InferenceResponse objects do not match the number of InferenceRequest "
                f"objects. InferenceRequest(s) size is:{len(natives)}, and InferenceResponse(s) "
                f"size is:{len(responses)}\n")
        # Every response is checked before any is sent. A native's flags are
        # read once, and `rescheduled` only where a request can be: each
        # property of the extension's request is a call into it.
        to_send = []
        iterative = self._iterative
        for native, response in zip(natives, responses):
            if iterative and native.rescheduled:
                if response is not None:
                    native.fail(
                        "Expected a None object in the execute function return list for "
                        f"reschduled request, found type '{type(response).__name__}'."
                    )
                continue
            if response is None:
                continue  # answered through its sender, or to be
            if not isinstance(response, InferenceResponse):
                raise self._failed(
                    "Expected an 'InferenceResponse' object in the execute function return "
                    f"list, found type '{type(response)}'.")
            to_send.append((native, response))
        for native, response in to_send:
            if native.final_sent:
                continue  # answered through its sender
            try:
                response._send(native, True)
            except Exception as e:  # a malformed output: the request fails, the batch goes on
                if not native.final_sent:
                    native.fail(f"model '{self._name}' sent an invalid response: {e}")

    def readiness_check(self) -> Optional[ReadinessCheck]:
        """The model's is_ready(), as readiness queries consult it; None when
        the model has no such method."""
        fn = getattr(self._model, "is_ready", None)
        if not callable(fn):
            return None
        return ReadinessCheck(fn, self._instance, self._concurrent_loop)

    def _concurrent_loop(self) -> Optional[asyncio.AbstractEventLoop]:
        return self._loop.side_loop() if self._loop is not None else None

    def finalize(self) -> None:
        # The event loop ends first, as in Triton: finalize() runs after the
        # coroutines it may have to clean up after.
        if self._loop is not None:
            self._loop.close()
        fn = getattr(self._model, "finalize", None)
        if fn is not None:
            with calling_model(self._gateway, "finalize"):
                try:
                    fn()
                except Exception as e:
                    raise BackendError(
                        f"finalize() of model '{self._name}' raised: {describe(e)}"
                    ) from e


class PythonModel:
    """A loaded model version: creates TritonPythonModel instances."""

    def __init__(self, context: dict) -> None:
        self._context = context
        config = context["config"]
        # A python-based backend runs its own model.py for every model.
        self._backend_based = bool(context.get("backend_model_file"))
        self._path = context.get("backend_model_file") or _model_file(context["version_path"],
                                                                      config)
        if not os.path.isfile(self._path):
            raise BackendError(f"Python model file not found in '{self._path}'")
        self._decoupled = bool((config.get("model_transaction_policy") or {}).get("decoupled"))
        # Only a model with iterative sequences can have a request rescheduled.
        self._iterative = bool((config.get("sequence_batching") or {}).get("iterative_sequence"))
        self._cpu_only_inputs = _force_cpu_only_input_tensors(config)
        self._gateway = context.get("bls")
        # Imported now so that a broken model.py fails the load even before
        # an instance starts; the first instance uses this module.
        self._first: Optional[ModuleType] = _import(self._path, self._backend_based)
        remember(package_name(self._first), self._gateway)
        try:
            _model_class(self._first, self._path)
        except BaseException:
            _forget(self._first)
            raise
        self._first_forgotten = _forget_with(self, self._first)  # unless an instance takes it

    def create_instance(self, instance: dict) -> PythonInstance:
        module, self._first = self._first, None
        if module is not None:
            self._first_forgotten.detach()  # the instance owns it now
        else:
            module = _import(self._path, self._backend_based)
            remember(package_name(module), self._gateway)
        try:
            model = _model_class(module, self._path)()
        except BaseException:
            _forget(module)
            raise
        ctx = self._context
        args = {
            "model_config": ctx["config_json"],
            "model_instance_kind": instance["kind"].replace("KIND_", ""),
            "model_instance_name": instance["name"],
            "model_instance_device_id": str(instance["device_id"]),
            "model_repository": ctx["model_path"],
            "model_version": str(ctx["version"]),
            "model_name": ctx["name"],
        }
        initialize = getattr(model, "initialize", None)
        if initialize is not None:
            try:
                with calling_model(self._gateway, "initialize"):
                    initialize(args)
            except Exception as e:
                _forget(module)
                raise BackendError(
                    f"initialize() of model '{ctx['name']}' raised: {describe(e)}"
                ) from e
        created = PythonInstance(model, ctx["name"], instance["name"], self._decoupled,
                                 self._gateway, self._cpu_only_inputs, self._iterative)
        _forget_with(created, module)
        return created


def _force_cpu_only_input_tensors(config: dict) -> bool:
    """The model's FORCE_CPU_ONLY_INPUT_TENSORS parameter: "yes" (the
    default) has inputs in GPU memory copied to host memory before the model
    sees them, "no" hands them over where they are; anything else fails the
    load, with Triton's text."""
    entry = (config.get("parameters") or {}).get("FORCE_CPU_ONLY_INPUT_TENSORS")
    if entry is None:
        return True
    value = entry.get("string_value", "") if isinstance(entry, dict) else str(entry)
    if value in ("yes", "no"):
        return value == "yes"
    raise BackendError(f"Incorrect value for FORCE_CPU_ONLY_INPUT_TENSORS: {value}'")


def load_model(context: dict) -> PythonModel:
    return PythonModel(context)


def _latest_model_file(config: dict, model_path: str) -> Optional[str]:
    versions = [int(d) for d in os.listdir(model_path) if d.isdigit()] if os.path.isdir(model_path) else []
    for version in sorted(versions, reverse=True):
        path = _model_file(os.path.join(model_path, str(version)), config)
        if os.path.isfile(path):
            return path
    return None


def complete_config(config: dict, model_path: str, model_file: str = "") -> dict:
    """Runs the model's static auto_complete_config on `config` (that of a
    python-based backend's `model_file` when given)."""
    path = model_file or _latest_model_file(config, model_path)
    if path is None:
        return config  # the load reports the missing file
    module = _import(path, bool(model_file))
    try:
        cls = _model_class(module, path)
        fn = getattr(cls, "auto_complete_config", None)
        if fn is None:
            return config
        try:
            result = fn(ModelConfig(config))
        except Exception as e:
            raise BackendError(f"auto_complete_config() of '{path}' raised: {describe(e)}") from e
    finally:
        # After auto_complete_config(), which may import the model's modules.
        _forget(module)
    if not isinstance(result, ModelConfig):
        raise BackendError(
            f"auto_complete_config() of '{path}' must return the config object it was given"
        )
    return result.as_dict()
