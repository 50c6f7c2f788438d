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

import inspect
import os
import sys
import weakref
from types import ModuleType
from typing import Any, Optional

from . import BackendError, describe
from .instance_loop import InstanceLoop
from .model_files import model_file_path
from .model_import import forget_package, import_model_file, package_name
from .pb_bls import calling_model, forget, remember
from .pb_config import ModelConfig
from .pb_request import InferenceRequest
from .pb_response import InferenceResponse

__all__ = ["load_model", "complete_config", "PythonModel"]


def _model_file(version_path: str, config: dict) -> str:
    return model_file_path(version_path, config, "model.py")


def _import(path: str) -> ModuleType:
    """Runs `path` (a file in a version directory) as a new module."""
    from .. import python_backend_utils

    sys.modules["triton_python_backend_utils"] = python_backend_utils
    version_dir = os.path.dirname(path)
    try:
        return import_model_file(path, (version_dir, os.path.dirname(version_dir)))
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


class PythonInstance:
    """One instance: a TritonPythonModel object."""

    def __init__(self, model: Any, name: str, decoupled: bool, gateway: Any) -> None:
        self._model = model
        self._name = name
        self._decoupled = decoupled
        self._gateway = gateway
        self._loop: Optional[InstanceLoop] = None

    def execute(self, natives: list) -> None:
        requests = [InferenceRequest._wrap(n) for n in natives]
        with calling_model(self._gateway):
            try:
                responses = self._model.execute(requests)
                if inspect.iscoroutine(responses):
                    if self._loop is None:
                        self._loop = InstanceLoop(self._name, self._decoupled)
                    if self._decoupled:
                        # Answered through the senders, maybe after other
                        # requests' coroutines: this thread takes the next batch.
                        self._loop.start(responses, natives, self._check_coroutine_result)
                        return
                    responses = self._loop.run(responses)
            except Exception as e:
                raise BackendError(f"model '{self._name}' raised in execute(): {describe(e)}") from e
        self._answer(natives, responses)

    def _check_coroutine_result(self, natives: list, result: Any, error: Optional[BaseException]) -> None:
        """After a decoupled model's coroutine: its unanswered requests fail."""
        if error is not None:
            why = f"model '{self._name}' raised in execute(): {describe(error)}"
        elif result is not None:
            why = (f"model '{self._name}' is decoupled: it answers through the response senders "
                   "and its execute() must return None")
        else:
            return
        for native in natives:
            if not native.final_sent:
                try:
                    native.fail(why)
                except Exception:
                    pass  # answered meanwhile

    def _answer(self, natives: list, responses: Any) -> None:
        if responses is None:
            return  # answered through the response senders
        if self._decoupled:
            raise BackendError(
                f"model '{self._name}' is decoupled: it answers through the response senders "
                "and its execute() must return None"
            )
        if not isinstance(responses, (list, tuple)) or len(responses) != len(natives):
            got = len(responses) if isinstance(responses, (list, tuple)) else type(responses).__name__
            raise BackendError(
                f"execute() of model '{self._name}' must return a list of {len(natives)} "
                f"InferenceResponse objects, one per request; it returned {got}"
            )
        for native, response in zip(natives, responses):
            if native.final_sent:
                continue
            if native.rescheduled:
                if response is not None:
                    native.fail(
                        "Expected a None object in the execute function return list for "
                        f"reschduled request, found type '{type(response).__name__}'."
                    )
                continue
            if not isinstance(response, InferenceResponse):
                native.fail(
                    f"execute() of model '{self._name}' returned a {type(response).__name__} "
                    "instead of an InferenceResponse"
                )
                continue
            try:
                response._send(native, True)
            except Exception as e:  # a malformed output: the request fails, the batch goes on
                if not native.final_sent:
                    native.fail(f"model '{self._name}' sent an invalid response: {e}")

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
        self._path = _model_file(context["version_path"], config)
        if not os.path.isfile(self._path):
            raise BackendError(f"model file '{self._path}' does not exist")
        self._decoupled = bool((config.get("model_transaction_policy") or {}).get("decoupled"))
        self._gateway = context.get("bls")
        # Imported now so that a broken model.py fails the load even before
        # an instance starts; the first instance uses this module.
        self._first: Optional[ModuleType] = _import(self._path)
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
            module = _import(self._path)
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
        created = PythonInstance(model, ctx["name"], self._decoupled, self._gateway)
        _forget_with(created, module)
        return created


def load_model(context: dict) -> PythonModel:
    return PythonModel(context)


def _latest_model_file(config: dict, model_path: str) -> Optional[str]:
    versions = [int(d) for d in os.listdir(model_path) if d.isdigit()] if os.path.isdir(model_path) else []
    for version in sorted(versions, reverse=True):
        path = _model_file(os.path.join(model_path, str(version)), config)
        if os.path.isfile(path):
            return path
    return None


def complete_config(config: dict, model_path: str) -> dict:
    """Runs the model's static auto_complete_config on `config`."""
    path = _latest_model_file(config, model_path)
    if path is None:
        return config  # the load reports the missing file
    module = _import(path)
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
