"""Completing a model configuration from an ONNX model's inputs and outputs
(strict_model_config false). What the configuration already says is never
changed; only what it leaves out is filled in:

* inputs (outputs): when the configuration lists none, every input (output)
  of the model, in the model's order; when it lists some, only their missing
  ``data_type`` and ``dims`` are filled from the model tensor of the same name;
* ``max_batch_size``: kept when it is set (> 0). When it is 0 or absent and
  the configuration lists no inputs and no outputs, the model is taken to
  batch when every input and output has a dynamic first dimension; then
  ``max_batch_size`` becomes 4 (Triton's default) and, unless present,
  ``dynamic_batching`` is enabled with its defaults. Otherwise it stays 0;
* ``dims``: the model's shape, without the first (batch) dimension when
  ``max_batch_size`` > 0; dynamic or symbolic dimensions become -1.
"""

from __future__ import annotations

import copy
from typing import Any, Iterable

from .._errors import UnsupportedError

__all__ = ["DEFAULT_MAX_BATCH_SIZE", "config_type_of", "completed_config"]

DEFAULT_MAX_BATCH_SIZE = 4

_CONFIG_TYPES = {
    "tensor(bool)": "TYPE_BOOL",
    "tensor(uint8)": "TYPE_UINT8",
    "tensor(uint16)": "TYPE_UINT16",
    "tensor(uint32)": "TYPE_UINT32",
    "tensor(uint64)": "TYPE_UINT64",
    "tensor(int8)": "TYPE_INT8",
    "tensor(int16)": "TYPE_INT16",
    "tensor(int32)": "TYPE_INT32",
    "tensor(int64)": "TYPE_INT64",
    "tensor(float16)": "TYPE_FP16",
    "tensor(float)": "TYPE_FP32",
    "tensor(double)": "TYPE_FP64",
    "tensor(string)": "TYPE_STRING",
}


def config_type_of(node: Any) -> str:
    """The TYPE_* name of an onnxruntime NodeArg's type; UnsupportedError
    for types a model configuration cannot express (bfloat16 included:
    onnxruntime's Python API has no numpy type for it)."""
    try:
        return _CONFIG_TYPES[node.type]
    except KeyError:
        raise UnsupportedError(
            f"the ONNX tensor '{node.name}' has type {node.type}, which the onnxruntime "
            "backend does not support"
        ) from None


def _dims(shape: Iterable[Any]) -> list[int]:
    return [d if isinstance(d, int) and d >= 0 else -1 for d in shape]


def _batchable(nodes: Iterable[Any]) -> bool:
    return all(len(node.shape) >= 1 and _dims(node.shape)[0] == -1 for node in nodes)


def _complete_tensors(entries: list[dict], nodes: list[Any], batched: bool) -> list[dict]:
    """The configuration's tensor list with what the model adds."""
    by_name = {node.name: node for node in nodes}
    if not entries:
        entries = [{"name": node.name} for node in nodes]
    for entry in entries:
        node = by_name.get(entry.get("name", ""))
        if node is None:
            continue  # the load reports a tensor the model lacks
        if entry.get("data_type", "TYPE_INVALID") in ("TYPE_INVALID", 0):
            entry["data_type"] = config_type_of(node)
        if not entry.get("dims"):
            dims = _dims(node.shape)
            entry["dims"] = dims[1:] if batched and dims else dims
    return entries


def completed_config(config: dict, session: Any) -> dict:
    """`config` completed from the inputs and outputs of `session` (an
    onnxruntime InferenceSession); `config` itself is not changed."""
    config = copy.deepcopy(config)
    inputs, outputs = session.get_inputs(), session.get_outputs()
    max_batch_size = int(config.get("max_batch_size") or 0)
    if max_batch_size <= 0 and not config.get("input") and not config.get("output"):
        if inputs and _batchable(inputs) and _batchable(outputs):
            max_batch_size = DEFAULT_MAX_BATCH_SIZE
            config["max_batch_size"] = max_batch_size
            config.setdefault("dynamic_batching", {})
    batched = max_batch_size > 0
    config["input"] = _complete_tensors(config.get("input") or [], inputs, batched)
    config["output"] = _complete_tensors(config.get("output") or [], outputs, batched)
    return config
