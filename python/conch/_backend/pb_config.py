"""The model configuration as a Python model sees it: the object its
``auto_complete_config`` fills, and the lookups by tensor name."""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["ModelConfig", "get_input_config_by_name", "get_output_config_by_name"]

_TENSOR_KEYS = {
    "input": {"name", "data_type", "dims", "format", "reshape", "optional", "is_shape_tensor",
              "allow_ragged_batch", "is_non_linear_format_io"},
    "output": {"name", "data_type", "dims", "reshape", "label_filename", "is_shape_tensor",
               "is_non_linear_format_io"},
}


class ModelConfig:
    """What ``auto_complete_config(auto_complete_model_config)`` receives and
    returns: the configuration so far, completed by the model's calls."""

    def __init__(self, model_config: dict) -> None:
        self._model_config = model_config

    def as_dict(self) -> dict:
        return self._model_config

    def max_batch_size(self) -> int:
        return int(self._model_config.get("max_batch_size", 0) or 0)

    def set_max_batch_size(self, max_batch_size: int) -> None:
        current = self.max_batch_size()
        if current > 0 and current != max_batch_size:
            raise ValueError(
                f"the configuration of model '{self._name()}' says max_batch_size {current}, "
                f"but its auto_complete_config sets {max_batch_size}"
            )
        self._model_config["max_batch_size"] = int(max_batch_size)

    def set_dynamic_batching(self) -> None:
        if "sequence_batching" in self._model_config:
            raise ValueError(
                f"model '{self._name()}' has sequence batching; dynamic batching cannot be added"
            )
        self._model_config.setdefault("dynamic_batching", {})

    def set_model_transaction_policy(self, transaction_policy: dict) -> None:
        unknown = set(transaction_policy) - {"decoupled"}
        if unknown:
            raise ValueError(f"unknown model_transaction_policy keys: {sorted(unknown)}")
        policy = self._model_config.setdefault("model_transaction_policy", {})
        current = policy.get("decoupled")
        wanted = bool(transaction_policy.get("decoupled", False))
        if current is not None and bool(current) != wanted and "decoupled" in transaction_policy:
            raise ValueError(
                f"the configuration of model '{self._name()}' says decoupled {bool(current)}, "
                f"but its auto_complete_config sets {wanted}"
            )
        policy["decoupled"] = wanted

    def add_input(self, input: dict) -> None:
        self._add_tensor("input", input)

    def add_output(self, output: dict) -> None:
        self._add_tensor("output", output)

    # -- helpers ---------------------------------------------------------------------

    def _name(self) -> str:
        return str(self._model_config.get("name", ""))

    def _add_tensor(self, kind: str, tensor: dict) -> None:
        if not isinstance(tensor, dict):
            raise ValueError(f"add_{kind} takes a dict, not {type(tensor).__name__}")
        unknown = set(tensor) - _TENSOR_KEYS[kind]
        if unknown:
            raise ValueError(f"unknown keys in {kind} '{tensor.get('name', '')}': {sorted(unknown)}")
        for key in ("name", "data_type", "dims"):
            if key not in tensor:
                raise ValueError(f"{kind} '{tensor.get('name', '')}' must have '{key}'")
        tensors = self._model_config.setdefault(kind, [])
        for existing in tensors:
            if existing.get("name") != tensor["name"]:
                continue
            for key in ("data_type", "dims"):
                have = existing.get(key)
                want = tensor[key] if key != "dims" else [int(d) for d in tensor[key]]
                if have not in (None, [], "TYPE_INVALID") and have != want:
                    raise ValueError(
                        f"{kind} '{tensor['name']}' of model '{self._name()}' has {key} {have} in "
                        f"the configuration, but auto_complete_config gives {want}"
                    )
            existing.update({k: v for k, v in tensor.items() if existing.get(k) in (None, [], "TYPE_INVALID")})
            return
        entry = dict(tensor)
        entry["dims"] = [int(d) for d in entry["dims"]]
        tensors.append(entry)


def _find(model_config: dict, kind: str, name: str) -> Optional[dict]:
    for tensor in model_config.get(kind, []) or []:
        if tensor.get("name") == name:
            return tensor
    return None


def get_input_config_by_name(model_config: Any, name: str) -> Optional[dict]:
    """The configuration of input `name`, or None."""
    return _find(model_config, "input", name)


def get_output_config_by_name(model_config: Any, name: str) -> Optional[dict]:
    """The configuration of output `name`, or None."""
    return _find(model_config, "output", name)
