"""Writes the example repository's ONNX string identity model.

    python make_identity_onnx.py [OUTPUT]

OUTPUT defaults to example_model_repository/identity/1/model.onnx beside this
script. The graph is one Identity node from INPUT0 to OUTPUT0, both string
tensors of shape [batch, length] with both dimensions dynamic. It is built
with the onnx package (onnx.helper) rather than shipped as a binary.
"""

from __future__ import annotations

import argparse
import pathlib

import onnx
from onnx import TensorProto, helper

DEFAULT_OUTPUT = (
    pathlib.Path(__file__).resolve().parent / "example_model_repository" / "identity" / "1" / "model.onnx"
)

# Opset 13 and IR version 8 load in every onnxruntime release since 1.10.
OPSET = 13
IR_VERSION = 8


def example_model(graph: onnx.GraphProto) -> onnx.ModelProto:
    """`graph` as a checked model of the opset and IR version above."""
    model = helper.make_model(
        graph,
        producer_name="conch-examples",
        opset_imports=[helper.make_opsetid("", OPSET)],
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def identity_model() -> onnx.ModelProto:
    """The string identity model: OUTPUT0 = INPUT0."""
    shape = ["batch", "length"]
    return example_model(helper.make_graph(
        nodes=[helper.make_node("Identity", inputs=["INPUT0"], outputs=["OUTPUT0"])],
        name="identity",
        inputs=[helper.make_tensor_value_info("INPUT0", TensorProto.STRING, shape)],
        outputs=[helper.make_tensor_value_info("OUTPUT0", TensorProto.STRING, shape)],
    ))


def write_main(doc: str, default_output: pathlib.Path, build) -> None:
    """The command line of a model-writing script: OUTPUT, then `build()` saved there."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("output", nargs="?", type=pathlib.Path, default=default_output,
                        help="where to write the model (default: %(default)s)")
    output = parser.parse_args().output
    output.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(build(), str(output))
    print(f"wrote {output}")


if __name__ == "__main__":
    write_main(__doc__, DEFAULT_OUTPUT, identity_model)
