"""The models the attacks need, in a temporary folder: the example
repository's models (linked) and a few of the suite's own."""

from __future__ import annotations

import pathlib

from harness import ROOT

EXAMPLES = ROOT / "python/examples/example_model_repository"

IDENTITY = """name: "{name}"
backend: "identity"
max_batch_size: 64
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
instance_group [ {{ count: {instances} kind: KIND_CPU }} ]
{extra}
"""

REPEAT_SLOW = """name: "repeat_slow"
backend: "repeat"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [
  { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] },
  { name: "DELAY" data_type: TYPE_UINT32 dims: [ -1 ] }
]
output [
  { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] }
]
"""

IDENTITY_BYTES = """name: "identity_bytes"
backend: "identity"
max_batch_size: 0
input [ { name: "INPUT0" data_type: TYPE_STRING dims: [ -1 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_STRING dims: [ -1 ] } ]
"""

PYTHON_CONFIG = """name: "{name}"
backend: "python"
max_batch_size: 0
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] }} ]
output [ {{ name: "OUTPUT0" data_type: {output} dims: [ {dims} ] }} ]
{extra}
"""

PYTHON_IDENTITY = """import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor(
                    "OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())])
                for r in requests]
"""

# Imports the helper.py beside it: each of two models has its own.
PYTHON_SCALED_BY_HELPER = """import helper
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor(
                    "OUTPUT0",
                    pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy() * helper.VALUE)])
                for r in requests]
"""

# Scales its input by the request parameter "scale": the response cache must
# tell requests with other parameters apart.
PYTHON_SCALED_BY_PARAMETER = """import json

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            scale = float(json.loads(r.parameters() or "{}").get("scale", 1))
            x = pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy()
            out.append(pb_utils.InferenceResponse(
                output_tensors=[pb_utils.Tensor("OUTPUT0", x * scale)]))
        return out
"""

# Answers the path of its own file, so the client can look at who may read it.
PYTHON_OWN_PATH = """import numpy
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        path = numpy.array([__file__.encode()], dtype=object)
        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("OUTPUT0", path)])
                for r in requests]
"""

# Leaves a marker file when imported: the server must never import it.
EVIL = """import pathlib
pathlib.Path({marker!r}).write_text("imported")
"""


def _write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def python_model(root: pathlib.Path, name: str, model_py: str, output: str = "TYPE_FP32",
                 dims: str = "4", extra: str = "", files: dict[str, str] = {}) -> None:
    _write(root / name / "config.pbtxt",
           PYTHON_CONFIG.format(name=name, output=output, dims=dims, extra=extra))
    _write(root / name / "1" / "model.py", model_py)
    for relative, text in files.items():
        _write(root / name / "1" / relative, text)


def build(root: pathlib.Path) -> pathlib.Path:
    """The main server's repository, in `root`/repository."""
    repo = root / "repository"
    repo.mkdir(parents=True)
    for name in ("identity_fp32", "simple", "repeat_int32"):
        (repo / name).symlink_to(EXAMPLES / name)
    _write(repo / "identity_extra" / "config.pbtxt",
           IDENTITY.format(name="identity_extra", instances=1, extra=""))
    _write(repo / "identity_slow" / "config.pbtxt", IDENTITY.format(
        name="identity_slow", instances=4,
        extra='parameters { key: "execute_delay_ms" value: { string_value: "20" } }'))
    _write(repo / "repeat_slow" / "config.pbtxt", REPEAT_SLOW)
    _write(repo / "identity_bytes" / "config.pbtxt", IDENTITY_BYTES)
    for name in ("identity_extra", "identity_slow", "repeat_slow", "identity_bytes"):
        (repo / name / "1").mkdir(parents=True, exist_ok=True)
    python_model(repo, "py_victim", PYTHON_IDENTITY)
    python_model(repo, "py_iso_a", PYTHON_SCALED_BY_HELPER, files={"helper.py": "VALUE = 2.0\n"})
    python_model(repo, "py_iso_b", PYTHON_SCALED_BY_HELPER, files={"helper.py": "VALUE = 3.0\n"})
    python_model(repo, "py_cache", PYTHON_SCALED_BY_PARAMETER,
                 extra="response_cache { enable: true }")
    # A model outside the repository, where traversal would find it.
    _write(root / "outside" / "config.pbtxt",
           IDENTITY.format(name="outside", instances=1, extra=""))
    (root / "outside" / "1").mkdir()
    return repo


def build_small(root: pathlib.Path) -> pathlib.Path:
    """The default-mode server's repository: two small models, all loaded."""
    repo = root / "repository-none"
    repo.mkdir(parents=True)
    for name in ("identity_fp32", "simple"):
        (repo / name).symlink_to(EXAMPLES / name)
    return repo


def identity_config(name: str, **fields) -> dict:
    """identity_fp32's configuration as JSON (a load's config override)."""
    config = {"name": name, "backend": "identity", "max_batch_size": 64,
              "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [16]}],
              "output": [{"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [16]}],
              "instance_group": [{"count": 1, "kind": "KIND_CPU"}]}
    config.update(fields)
    return config


def python_config(name: str, output: str = "TYPE_FP32", dims: list = [4], **fields) -> dict:
    config = {"name": name, "backend": "python", "max_batch_size": 0,
              "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [4]}],
              "output": [{"name": "OUTPUT0", "data_type": output, "dims": dims}]}
    config.update(fields)
    return config
