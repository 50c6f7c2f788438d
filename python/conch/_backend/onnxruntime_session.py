"""Opening ONNX models with onnxruntime: importing the package, finding the
model file and creating an InferenceSession from the model configuration.

Sessions always use onnxruntime's CPU execution provider, whatever the
instance kind. Model-configuration parameters read here:

* ``intra_op_thread_count``: threads onnxruntime uses inside one operator
  (default 1: the instance thread is the unit of parallelism; 0 lets
  onnxruntime choose one per core);
* ``inter_op_thread_count``: threads used across operators (default 1, 0 as
  above).
"""

from __future__ import annotations

import pathlib
from types import ModuleType
from typing import Any

from .._errors import InvalidArgumentError, NotFoundError, UnavailableError
from .model_files import model_file_path

__all__ = ["import_onnxruntime", "model_file", "latest_model_file", "open_session"]

DEFAULT_MODEL_FILENAME = "model.onnx"

_THREAD_PARAMETERS = {
    "intra_op_thread_count": "intra_op_num_threads",
    "inter_op_thread_count": "inter_op_num_threads",
}


def import_onnxruntime() -> ModuleType:
    """The onnxruntime module; UnavailableError saying how to install it
    when it is missing."""
    try:
        import onnxruntime
    except ModuleNotFoundError as e:
        if e.name != "onnxruntime":
            raise UnavailableError(f"the onnxruntime package could not be imported: {e}") from e
        raise UnavailableError(
            "the onnxruntime backend needs the Python package 'onnxruntime', which is not "
            "installed; install it with: pip install onnxruntime"
        ) from e
    except ImportError as e:
        raise UnavailableError(f"the onnxruntime package could not be imported: {e}") from e
    return onnxruntime


def _filename(config: dict) -> str:
    return config.get("default_model_filename") or DEFAULT_MODEL_FILENAME


def model_file(version_path: str, config: dict) -> pathlib.Path:
    """<version_path>/<default_model_filename or model.onnx>; NotFoundError
    when it does not exist, InvalidArgumentError when the name leads out of
    the version directory."""
    path = pathlib.Path(model_file_path(version_path, config, DEFAULT_MODEL_FILENAME))
    if not path.exists():
        raise NotFoundError(f"the ONNX model file '{path}' does not exist")
    return path


def latest_model_file(model_path: str, config: dict) -> pathlib.Path:
    """The model file of the highest-numbered version directory that has one
    (what auto-completion reads)."""
    root = pathlib.Path(model_path)
    versions = sorted(
        (int(p.name) for p in root.iterdir() if p.is_dir() and p.name.isdigit()),
        reverse=True,
    ) if root.is_dir() else []
    for version in versions:
        path = pathlib.Path(model_file_path(str(root / str(version)), config,
                                            DEFAULT_MODEL_FILENAME))
        if path.exists():
            return path
    raise NotFoundError(
        f"no version directory of '{root}' holds the ONNX model file '{_filename(config)}'"
    )


def _thread_count(config: dict, key: str) -> int:
    entry = (config.get("parameters") or {}).get(key)
    if entry is None:
        return 1
    text = entry.get("string_value", "") if isinstance(entry, dict) else str(entry)
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise InvalidArgumentError(
            f"model parameter '{key}' must be a non-negative integer, not '{text}'"
        )
    return value


def open_session(ort: ModuleType, path: pathlib.Path, config: dict) -> Any:
    """An InferenceSession over `path` on the CPU execution provider, with
    the thread counts of the configuration's parameters."""
    options = ort.SessionOptions()
    for key, attribute in _THREAD_PARAMETERS.items():
        setattr(options, attribute, _thread_count(config, key))
    options.log_severity_level = 3  # errors only: warnings would go to stderr
    try:
        return ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as e:  # onnxruntime's own exception classes
        raise InvalidArgumentError(f"onnxruntime could not load '{path}': {e}") from e
