"""The ``onnxruntime`` backend (platform ``onnxruntime_onnx``): ONNX models run
by the onnxruntime package, one InferenceSession per model instance.

The model file is <version>/<default_model_filename>, ``model.onnx`` when the
configuration names none. The package is imported when a model loads, so a
server without it still serves every other model; an ONNX model is then
UNAVAILABLE with a reason that says how to install it. See
onnxruntime_session.py for the configuration parameters read,
onnxruntime_config.py for auto-completion and onnxruntime_instance.py for
execution and batching.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from .onnxruntime_config import completed_config, config_type_of
from .onnxruntime_instance import OnnxRuntimeInstance
from .onnxruntime_session import import_onnxruntime, latest_model_file, model_file, open_session

__all__ = ["load_model", "complete_config", "OnnxRuntimeModel"]


class OnnxRuntimeModel:
    """A loaded ONNX model: opens one session per instance. The session
    opened at load (to report a bad model file then) goes to the first
    instance."""

    def __init__(self, ort: Any, context: dict) -> None:
        self._ort = ort
        self._config: dict = context["config"]
        self._path = model_file(context["version_path"], self._config)
        self._max_batch_size = int(self._config.get("max_batch_size") or 0)
        self._lock = threading.Lock()
        self._first: Optional[Any] = open_session(ort, self._path, self._config)
        for node in [*self._first.get_inputs(), *self._first.get_outputs()]:
            config_type_of(node)  # rejects tensor types the backend cannot pass

    def create_instance(self, instance: dict) -> OnnxRuntimeInstance:
        with self._lock:
            session, self._first = self._first, None
        if session is None:
            session = open_session(self._ort, self._path, self._config)
        return OnnxRuntimeInstance(session, self._max_batch_size)


def load_model(context: dict) -> OnnxRuntimeModel:
    """Loads the ONNX model of a model version (context as the backend
    interface describes it); raises with the UNAVAILABLE reason."""
    return OnnxRuntimeModel(import_onnxruntime(), context)


def complete_config(config: dict, model_path: str) -> dict:
    """`config` completed from the model file of the newest version directory
    under `model_path` (see onnxruntime_config.py)."""
    ort = import_onnxruntime()
    session = open_session(ort, latest_model_file(model_path, config), config)
    return completed_config(config, session)
