"""Inference: every data type, BYTES, inputs of each kind, parameters, errors."""

from __future__ import annotations

import ctypes

import numpy
import pytest

import conch

NUMERIC = {
    conch.DataType.BOOL: numpy.bool_,
    conch.DataType.UINT8: numpy.uint8,
    conch.DataType.UINT16: numpy.uint16,
    conch.DataType.UINT32: numpy.uint32,
    conch.DataType.UINT64: numpy.uint64,
    conch.DataType.INT8: numpy.int8,
    conch.DataType.INT16: numpy.int16,
    conch.DataType.INT32: numpy.int32,
    conch.DataType.INT64: numpy.int64,
    conch.DataType.FP16: numpy.float16,
    conch.DataType.FP32: numpy.float32,
    conch.DataType.FP64: numpy.float64,
}


def infer_one(model: conch.Model, **kwargs: object) -> conch.InferenceResponse:
    responses = list(model.infer(**kwargs))
    assert len(responses) == 1 and responses[0].final
    return responses[0]


@pytest.mark.parametrize("data_type", list(NUMERIC), ids=lambda t: t.name)
def test_every_numeric_type_round_trips_from_numpy(dtype_server, data_type) -> None:
    array = (numpy.arange(1, 7) % 2 if data_type == conch.DataType.BOOL else numpy.arange(1, 7))
    array = array.astype(NUMERIC[data_type])
    response = infer_one(dtype_server.model(f"identity_{data_type.name}"), inputs={"INPUT0": array})
    output = response.outputs["OUTPUT0"]
    assert output.data_type == data_type
    assert list(output.shape) == [6]
    result = numpy.from_dlpack(output)
    assert result.dtype == array.dtype
    numpy.testing.assert_array_equal(result, array)


@pytest.mark.parametrize("data_type", list(NUMERIC), ids=lambda t: t.name)
def test_every_numeric_type_round_trips_through_dlpack(dtype_server, data_type) -> None:
    array = numpy.ones(5, dtype=NUMERIC[data_type])
    tensor = conch.Tensor.from_dlpack(array)
    assert tensor.data_type == data_type
    response = infer_one(dtype_server.model(f"identity_{data_type.name}"), inputs={"INPUT0": tensor})
    numpy.testing.assert_array_equal(numpy.from_dlpack(response.outputs["OUTPUT0"]), array)


def test_lists_become_arrays(dtype_server) -> None:
    response = infer_one(dtype_server.model("identity_INT64"), inputs={"INPUT0": [3, 1, 2]})
    numpy.testing.assert_array_equal(numpy.from_dlpack(response.outputs["OUTPUT0"]), [3, 1, 2])


def test_bf16_travels_as_raw_bytes(dtype_server) -> None:
    raw = numpy.array([0x3F80, 0x4000, 0xC040], dtype=numpy.uint16)  # 1.0, 2.0, -3.0
    tensor = conch.Tensor(
        conch.DataType.BF16,
        [3],
        conch.MemoryBuffer(raw.ctypes.data, conch.MemoryType.CPU, 0, raw.nbytes, raw),
    )
    output = infer_one(dtype_server.model("identity_BF16"), inputs={"INPUT0": tensor}).outputs["OUTPUT0"]
    assert output.data_type == conch.DataType.BF16
    assert ctypes.string_at(output.data_ptr, output.size) == raw.tobytes()


@pytest.mark.parametrize(
    "array",
    [
        numpy.array([b"Roger", b"", b"\x00\xff"], dtype=numpy.bytes_),
        numpy.array([b"Roger", b"", b"\x00\xff"], dtype=numpy.object_),
    ],
    ids=["bytes_", "object_"],
)
def test_bytes_from_bytes_and_object_arrays(dtype_server, array) -> None:
    response = infer_one(dtype_server.model("identity_BYTES"), inputs={"INPUT0": array})
    output = response.outputs["OUTPUT0"]
    assert output.data_type == conch.DataType.BYTES
    result = output.to_bytes_array()
    assert result.dtype == numpy.object_
    expected = [b"Roger", b"", b"\x00\xff"] if array.dtype == numpy.object_ else [b"Roger", b"", b"\x00\xff"]
    assert list(result) == expected


def test_strings_are_utf8(dtype_server) -> None:
    array = numpy.array([["héllo", "wörld"]], dtype=numpy.object_).reshape(2)
    output = infer_one(dtype_server.model("identity_BYTES"), inputs={"INPUT0": array}).outputs["OUTPUT0"]
    assert list(output.to_bytes_array()) == ["héllo".encode(), "wörld".encode()]
    assert list(output.to_string_array()) == ["héllo", "wörld"]


def test_other_objects_in_bytes_arrays_become_their_str(dtype_server) -> None:
    array = numpy.array([1, 2.5, None], dtype=numpy.object_)
    output = infer_one(dtype_server.model("identity_BYTES"), inputs={"INPUT0": array}).outputs["OUTPUT0"]
    assert list(output.to_bytes_array()) == [b"1", b"2.5", b"None"]


def test_simple_adds_and_subtracts(example_server) -> None:
    a = numpy.arange(16, dtype=numpy.int32).reshape(1, 16)
    b = numpy.ones((1, 16), dtype=numpy.int32)
    response = infer_one(example_server.model("simple"), inputs={"INPUT0": a, "INPUT1": b})
    numpy.testing.assert_array_equal(numpy.from_dlpack(response.outputs["OUTPUT0"]), a + b)
    numpy.testing.assert_array_equal(numpy.from_dlpack(response.outputs["OUTPUT1"]), a - b)


def test_outputs_do_not_alias_inputs(example_server) -> None:
    array = numpy.ones((1, 16), dtype=numpy.float32)
    response = infer_one(example_server.model("identity_fp32"), inputs={"INPUT0": array})
    array[:] = 5
    numpy.testing.assert_array_equal(numpy.from_dlpack(response.outputs["OUTPUT0"]), 1)


def test_non_contiguous_and_byte_swapped_arrays_are_accepted(dtype_server) -> None:
    base = numpy.arange(12, dtype=numpy.int32)
    strided = base[::2]
    swapped = numpy.arange(4, dtype=">i4")
    model = dtype_server.model("identity_INT32")
    numpy.testing.assert_array_equal(
        numpy.from_dlpack(infer_one(model, inputs={"INPUT0": strided}).outputs["OUTPUT0"]), strided
    )
    numpy.testing.assert_array_equal(
        numpy.from_dlpack(infer_one(model, inputs={"INPUT0": swapped}).outputs["OUTPUT0"]), swapped
    )


def test_request_id_is_echoed(dtype_server) -> None:
    response = infer_one(
        dtype_server.model("identity_INT64"), inputs={"INPUT0": [1]}, request_id="abc"
    )
    assert response.request_id == "abc"


@pytest.mark.parametrize("value", ["text", 3, True, 2.5, -(2**63)])
def test_parameters_of_each_accepted_type_are_taken(dtype_server, value) -> None:
    infer_one(dtype_server.model("identity_INT64"), inputs={"INPUT0": [1]}, parameters={"p": value})


@pytest.mark.parametrize("value", [None, {"a": 1}, [1], numpy.int32(1), b"bytes", 2**64])
def test_unsupported_parameters_raise_at_call_time(dtype_server, value) -> None:
    with pytest.raises(conch.InvalidArgumentError):
        dtype_server.model("identity_INT64").infer(inputs={"INPUT0": [1]}, parameters={"p": value})


def test_unsupported_parameter_message_names_the_type(dtype_server) -> None:
    with pytest.raises(conch.InvalidArgumentError, match="Can't convert <class 'NoneType'> to Request Parameter"):
        dtype_server.model("identity_INT64").infer(inputs={"INPUT0": [1]}, parameters={"p": None})


def test_unsupported_input_types_raise_at_call_time(dtype_server) -> None:
    model = dtype_server.model("identity_INT32")
    with pytest.raises(conch.InvalidArgumentError, match="not supported"):
        model.infer(inputs={"INPUT0": object()})
    with pytest.raises(conch.InvalidArgumentError, match="not supported"):
        model.infer(inputs={"INPUT0": numpy.zeros(2, dtype=numpy.complex64)})


def test_a_wrong_input_raises_when_iterating(dtype_server) -> None:
    responses = dtype_server.model("identity_INT32").infer(inputs={"WRONG": [1]})
    with pytest.raises(conch.InvalidArgumentError) as caught:
        next(responses)
    message, response = caught.value.args
    assert isinstance(response, conch.InferenceResponse)
    assert response.final and response.error is caught.value
    with pytest.raises(StopIteration):
        next(responses)


def test_errors_come_back_as_responses_without_raise_on_error(dtype_server) -> None:
    responses = list(dtype_server.model("identity_INT32").infer(inputs={"WRONG": [1]}, raise_on_error=False))
    assert len(responses) == 1
    assert isinstance(responses[0].error, conch.InvalidArgumentError)


def test_an_inference_request_object_can_be_submitted(dtype_server) -> None:
    model = dtype_server.model("identity_INT32")
    request = conch.InferenceRequest(model=model, inputs={"INPUT0": numpy.array([4], numpy.int32)})
    response = infer_one(model, inference_request=request)
    assert numpy.from_dlpack(response.outputs["OUTPUT0"]).tolist() == [4]


def test_an_invalid_output_memory_type_raises_when_iterating(dtype_server) -> None:
    responses = dtype_server.model("identity_INT64").infer(
        inputs={"INPUT0": [1]}, output_memory_type="unsupported"
    )
    with pytest.raises(conch.InvalidArgumentError, match="Memory type"):
        list(responses)


def test_output_memory_type_cpu_keeps_outputs_on_the_host(dtype_server) -> None:
    response = infer_one(
        dtype_server.model("identity_INT64"), inputs={"INPUT0": [1]}, output_memory_type="cpu"
    )
    assert response.outputs["OUTPUT0"].memory_type == conch.MemoryType.CPU


@pytest.mark.parametrize(
    "fields",
    [{"correlation_id": 5}, {"correlation_id": "abc"}, {"priority": 2}, {"timeout": 1000}],
    ids=["numeric correlation id", "string correlation id", "priority", "timeout"],
)
def test_request_fields_are_taken(dtype_server, fields) -> None:
    infer_one(dtype_server.model("identity_INT64"), inputs={"INPUT0": [1]}, **fields)


@pytest.mark.parametrize("correlation_id", [-1, 2**64, 1.5, b"id"])
def test_invalid_correlation_ids_raise_at_call_time(dtype_server, correlation_id) -> None:
    with pytest.raises(conch.InvalidArgumentError, match="correlation_id"):
        dtype_server.model("identity_INT64").infer(inputs={"INPUT0": [1]}, correlation_id=correlation_id)


def test_a_request_id_must_be_a_str(dtype_server) -> None:
    with pytest.raises(conch.InvalidArgumentError, match="request_id"):
        dtype_server.model("identity_INT64").infer(inputs={"INPUT0": [1]}, request_id=7)


def test_input_names_must_be_str(dtype_server) -> None:
    with pytest.raises(conch.InvalidArgumentError, match="input names"):
        dtype_server.model("identity_INT64").infer(inputs={1: [1]})
