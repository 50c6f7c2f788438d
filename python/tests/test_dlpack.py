"""Tensor and MemoryBuffer: DLPack both ways and its reference counts,
BYTES helpers, devices."""

from __future__ import annotations

import gc
import sys

import numpy
import pytest

import conch


def test_from_dlpack_holds_exactly_one_reference_to_the_array() -> None:
    array = numpy.arange(6, dtype=numpy.float32)
    before = sys.getrefcount(array)
    tensor = conch.Tensor.from_dlpack(array)
    assert sys.getrefcount(array) == before + 1
    assert tensor.data_ptr == array.ctypes.data
    assert tensor.size == array.nbytes
    assert tensor.memory_type == conch.MemoryType.CPU
    del tensor
    assert sys.getrefcount(array) == before


def test_numpy_from_dlpack_holds_one_reference_to_the_tensor() -> None:
    tensor = conch.Tensor.from_dlpack(numpy.arange(6, dtype=numpy.int32))
    before = sys.getrefcount(tensor)
    view = numpy.from_dlpack(tensor)
    assert sys.getrefcount(tensor) == before + 1
    assert view.ctypes.data == tensor.data_ptr  # no copy
    del view
    assert sys.getrefcount(tensor) == before


def test_an_export_keeps_the_shape_it_was_made_with() -> None:
    tensor = conch.Tensor.from_dlpack(numpy.arange(6, dtype=numpy.int32).reshape(2, 3))
    view = numpy.from_dlpack(tensor)
    tensor.shape = [3, 2]
    assert view.shape == (2, 3)
    assert numpy.from_dlpack(tensor).shape == (3, 2)


def test_an_unconsumed_capsule_releases_the_tensor() -> None:
    tensor = conch.Tensor.from_dlpack(numpy.arange(3, dtype=numpy.int32))
    before = sys.getrefcount(tensor)
    capsule = tensor.__dlpack__()
    assert sys.getrefcount(tensor) == before + 1
    del capsule
    assert sys.getrefcount(tensor) == before


def test_no_tensor_survives_its_users(example_server) -> None:
    gc.collect()
    before = sum(isinstance(o, conch.Tensor) for o in gc.get_objects())
    for _ in range(20):
        response = list(
            example_server.model("identity_fp32").infer(
                inputs={"INPUT0": conch.Tensor.from_dlpack(numpy.ones((1, 16), numpy.float32))}
            )
        )[0]
        numpy.from_dlpack(response.outputs["OUTPUT0"]).sum()
    del response
    gc.collect()
    assert sum(isinstance(o, conch.Tensor) for o in gc.get_objects()) == before


def test_input_arrays_are_released_after_inference(example_server) -> None:
    array = numpy.ones((1, 16), numpy.float32)
    before = sys.getrefcount(array)
    list(example_server.model("identity_fp32").infer(inputs={"INPUT0": array}))
    # Conch threads let go of the array without the GIL; the release happens
    # the next time Python enters the extension.
    conch._conch.run_deferred()
    deadline_loops = 1000
    while sys.getrefcount(array) != before and deadline_loops:
        conch._conch.run_deferred()
        deadline_loops -= 1
        list(example_server.model("identity_fp32").infer(inputs={"INPUT0": numpy.ones((1, 16), numpy.float32)}))
    assert sys.getrefcount(array) == before


def test_dlpack_device_of_host_tensors() -> None:
    tensor = conch.Tensor.from_dlpack(numpy.zeros(1))
    assert tensor.__dlpack_device__() == (conch.DLDeviceType.kDLCPU, 0)


def test_bytes_tensors_cannot_be_exported_through_dlpack() -> None:
    tensor = conch.Tensor.from_bytes_array([b"a"])
    with pytest.raises(conch.InvalidArgumentError):
        tensor.__dlpack__()


def test_bytes_helpers_round_trip() -> None:
    tensor = conch.Tensor.from_string_array(numpy.array([["a", "bé"], ["", "d"]]))
    assert tensor.data_type == conch.DataType.BYTES
    assert list(tensor.shape) == [2, 2]
    assert tensor.to_bytes_array().tolist() == [[b"a", "bé".encode()], [b"", b"d"]]
    assert tensor.to_string_array().tolist() == [["a", "bé"], ["", "d"]]


def test_bytes_helpers_reject_other_data() -> None:
    with pytest.raises(conch.InvalidArgumentError):
        conch.Tensor.from_bytes_array(numpy.arange(3))
    with pytest.raises(conch.InvalidArgumentError):
        conch.Tensor.from_dlpack(numpy.arange(3)).to_bytes_array()


def test_strided_dlpack_tensors_are_rejected() -> None:
    with pytest.raises(conch.InvalidArgumentError, match="Only contiguous memory is supported"):
        conch.Tensor.from_dlpack(numpy.arange(10)[::2])


def test_objects_without_dlpack_are_rejected() -> None:
    with pytest.raises(conch.InvalidArgumentError, match="Object does not support DLpack protocol"):
        conch.MemoryBuffer.from_dlpack(object())


def test_memory_buffer_from_dlpack_views_the_bytes() -> None:
    array = numpy.arange(4, dtype=numpy.int64)
    buffer = conch.MemoryBuffer.from_dlpack(array)
    assert (buffer.data_ptr, buffer.size, buffer.memory_type) == (array.ctypes.data, 32, conch.MemoryType.CPU)


def test_devices() -> None:
    tensor = conch.Tensor.from_dlpack(numpy.zeros(2))
    assert tensor.to_host() is tensor
    for spec in ("cpu", "CPU", "cpu:0", conch.MemoryType.CPU, (conch.MemoryType.CPU, 0),
                 (conch.DLDeviceType.kDLCPU, 0)):
        assert tensor.to_device(spec) is tensor
    if conch._conch.cuda_device_count() == 0:  # test_gpu.py moves tensors on a GPU
        with pytest.raises(conch.UnsupportedError, match="needs a CUDA device"):
            tensor.to_device("gpu:0")
        with pytest.raises(conch.UnsupportedError, match="needs a CUDA device"):
            tensor.to_device("cpu_pinned")
    for bad in ("unsupported", "gpu:0:1", "gpu:x", 7, (conch.DLDeviceType.kDLMetal, 0)):
        with pytest.raises(conch.InvalidArgumentError, match="Memory type"):
            tensor.to_device(bad)


def test_host_buffers_are_allocated_and_copied_into() -> None:
    source = numpy.arange(6, dtype=numpy.int32)
    target = conch._conch.Buffer.allocate(int(conch.MemoryType.CPU), 0, source.nbytes)
    assert (target.size, target.memory_type) == (24, conch.MemoryType.CPU)
    conch._conch.copy_bytes(target.data_ptr, target.memory_type, 0, source.ctypes.data,
                            int(conch.MemoryType.CPU), 0, source.nbytes)
    assert numpy.frombuffer(target, dtype=numpy.int32).tolist() == list(range(6))


def test_dlpack_copy_makes_an_independent_array() -> None:
    tensor = conch.Tensor.from_dlpack(numpy.arange(3, dtype=numpy.int32))
    copied = numpy.from_dlpack(tensor, copy=True)
    assert copied.ctypes.data != tensor.data_ptr
    assert copied.tolist() == [0, 1, 2]


def test_gpu_tensors_keep_their_device_through_dlpack() -> None:
    # Nothing dereferences the address: the capsule only describes it.
    owner = object()
    tensor = conch.Tensor(
        conch.DataType.FP32, [2], conch.MemoryBuffer(0x7F0000001000, conch.MemoryType.GPU, 1, 8, owner)
    )
    assert tensor.__dlpack_device__() == (conch.DLDeviceType.kDLCUDA, 1)
    assert tensor.to_device("gpu:1") is tensor
    if conch._conch.cuda_device_count() == 0:
        with pytest.raises(conch.UnsupportedError, match="needs a CUDA device"):
            tensor.to_host()
    data_type, shape, buffer = conch._conch.from_dlpack(tensor.__dlpack__())
    assert (data_type, shape) == (conch.DataType.FP32, [2])
    assert (buffer.data_ptr, buffer.size) == (0x7F0000001000, 8)
    assert (buffer.memory_type, buffer.memory_type_id) == (conch.MemoryType.GPU, 1)
    with pytest.raises(BufferError):  # the buffer protocol reports only BufferError
        memoryview(buffer)
