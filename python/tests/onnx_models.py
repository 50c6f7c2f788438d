"""Small ONNX models that the ONNX tests write with onnx.helper."""

from __future__ import annotations

import pathlib
from typing import Optional, Sequence, Union

import onnx
from onnx import TensorProto, helper

Dim = Union[int, str, None]

# What onnxruntime 1.10 and later load.
OPSET = 13
IR_VERSION = 8


def save(path: pathlib.Path, nodes: list, inputs: list, outputs: list,
         initializers: Sequence[onnx.TensorProto] = ()) -> pathlib.Path:
    graph = helper.make_graph(nodes, "test", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))
    return path


def add_sub(path: pathlib.Path, shape: Sequence[Dim] = ("batch", 4),
            elem_type: int = TensorProto.FLOAT) -> pathlib.Path:
    """SUM = A + B and DIFF = A - B."""
    def tensor(name: str) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, elem_type, list(shape))

    return save(
        path,
        [helper.make_node("Add", ["A", "B"], ["SUM"]), helper.make_node("Sub", ["A", "B"], ["DIFF"])],
        [tensor("A"), tensor("B")],
        [tensor("SUM"), tensor("DIFF")],
    )


def add_sub_batch(path: pathlib.Path) -> pathlib.Path:
    """add_sub over [batch, 4], plus BATCH: an INT64 [batch, 1] filled with
    the batch size the model ran with (what shows that requests were batched)."""
    def tensor(name: str) -> onnx.ValueInfoProto:
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", 4])

    def int64(name: str, value: int) -> onnx.TensorProto:
        return helper.make_tensor(name, TensorProto.INT64, [1], [value])

    return save(
        path,
        [
            helper.make_node("Add", ["A", "B"], ["SUM"]),
            helper.make_node("Sub", ["A", "B"], ["DIFF"]),
            helper.make_node("Shape", ["A"], ["shape"]),
            helper.make_node("Slice", ["shape", "zero", "one"], ["size"]),
            helper.make_node("Concat", ["size", "one"], ["batch_shape"], axis=0),
            helper.make_node("Expand", ["size", "batch_shape"], ["BATCH"]),
        ],
        [tensor("A"), tensor("B")],
        [tensor("SUM"), tensor("DIFF"),
         helper.make_tensor_value_info("BATCH", TensorProto.INT64, ["batch", 1])],
        [int64("zero", 0), int64("one", 1)],
    )


def string_identity(path: pathlib.Path, shape: Optional[Sequence[Dim]] = ("batch", "length")) -> pathlib.Path:
    """OUTPUT0 = INPUT0, string tensors."""
    return save(
        path,
        [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"])],
        [helper.make_tensor_value_info("INPUT0", TensorProto.STRING, shape)],
        [helper.make_tensor_value_info("OUTPUT0", TensorProto.STRING, shape)],
    )
