"""Writes the example repository's ONNX sequence model, Triton's simple_sequence.

    python make_simple_sequence_onnx.py [OUTPUT]

OUTPUT defaults to example_model_repository/simple_sequence/1/model.onnx
beside this script. The graph answers OUTPUT = READY * (INPUT + START) over
INT32 tensors of shape [batch, 1]: what upstream's simple_sequence model
computes and its sequence client examples check. START and READY are the
sequence batcher's control inputs; clients send only INPUT. It is built with
the onnx package (onnx.helper) rather than shipped as a binary.
"""

from __future__ import annotations

import pathlib

import onnx
from onnx import TensorProto, helper

from make_identity_onnx import example_model, write_main

DEFAULT_OUTPUT = (
    pathlib.Path(__file__).resolve().parent / "example_model_repository" / "simple_sequence"
    / "1" / "model.onnx"
)


def simple_sequence_model() -> onnx.ModelProto:
    """OUTPUT = READY * (INPUT + START), all INT32 [batch, 1]."""
    def int32(name: str) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, TensorProto.INT32, ["batch", 1])

    return example_model(helper.make_graph(
        nodes=[
            helper.make_node("Add", inputs=["INPUT", "START"], outputs=["sum"]),
            helper.make_node("Mul", inputs=["READY", "sum"], outputs=["OUTPUT"]),
        ],
        name="simple_sequence",
        inputs=[int32("INPUT"), int32("START"), int32("READY")],
        outputs=[int32("OUTPUT")],
    ))


if __name__ == "__main__":
    write_main(__doc__, DEFAULT_OUTPUT, simple_sequence_model)
