"""Tensor and MemoryBuffer: typed, shaped bytes that Conch and Python share
without copying (DLPack in both directions).

Reference rules (as upstream's tests pin them):

* ``Tensor.from_dlpack(array)`` keeps exactly one extra reference to ``array``
  (the producer's DLPack manager), released when the Tensor goes;
* ``numpy.from_dlpack(tensor)`` keeps one reference to the Tensor, and takes
  the shape at the moment of export.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

import numpy

from . import _conch
from ._enums import DataType, DLDeviceType, MemoryType
from ._errors import InvalidArgumentError, UnsupportedError

__all__ = ["Tensor", "MemoryBuffer", "DeviceOrMemoryType"]

#: A device: "cpu", "cpu_pinned", "gpu", "gpu:<id>" (any case), a MemoryType,
#: (MemoryType, id) or (DLDeviceType, id).
DeviceOrMemoryType = Union[
    str, MemoryType, tuple[MemoryType, int], tuple[DLDeviceType, int]
]

_NUMPY_TO_DATA_TYPE = {
    numpy.dtype(numpy.bool_): DataType.BOOL,
    numpy.dtype(numpy.int8): DataType.INT8,
    numpy.dtype(numpy.int16): DataType.INT16,
    numpy.dtype(numpy.int32): DataType.INT32,
    numpy.dtype(numpy.int64): DataType.INT64,
    numpy.dtype(numpy.uint8): DataType.UINT8,
    numpy.dtype(numpy.uint16): DataType.UINT16,
    numpy.dtype(numpy.uint32): DataType.UINT32,
    numpy.dtype(numpy.uint64): DataType.UINT64,
    numpy.dtype(numpy.float16): DataType.FP16,
    numpy.dtype(numpy.float32): DataType.FP32,
    numpy.dtype(numpy.float64): DataType.FP64,
}

# numpy dtype kinds that become BYTES: object, bytes_ and str_.
_BYTES_KINDS = frozenset("OSU")

_MEMORY_NAMES = {"cpu": MemoryType.CPU, "cpu_pinned": MemoryType.CPU_PINNED, "gpu": MemoryType.GPU}

_DLPACK_TO_MEMORY = {
    DLDeviceType.kDLCPU: MemoryType.CPU,
    DLDeviceType.kDLCUDAHost: MemoryType.CPU_PINNED,
    DLDeviceType.kDLCUDA: MemoryType.GPU,
}


def _unsupported_device(spec: Any) -> InvalidArgumentError:
    return InvalidArgumentError(
        f"Memory type {spec!r} not supported: expected 'cpu', 'cpu_pinned', 'gpu', "
        "'gpu:<id>', a MemoryType or a (MemoryType | DLDeviceType, id) tuple"
    )


def parse_device(spec: DeviceOrMemoryType) -> tuple[MemoryType, int]:
    """The (MemoryType, id) a device spec names; InvalidArgumentError otherwise."""
    if isinstance(spec, MemoryType):
        return spec, 0
    if isinstance(spec, str):
        parts = spec.lower().split(":")
        if len(parts) > 2 or parts[0] not in _MEMORY_NAMES:
            raise _unsupported_device(spec)
        try:
            device_id = int(parts[1]) if len(parts) == 2 else 0
        except ValueError:
            raise _unsupported_device(spec) from None
        return _MEMORY_NAMES[parts[0]], device_id
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], int):
        kind, device_id = spec
        if isinstance(kind, MemoryType):
            return kind, device_id
        if isinstance(kind, DLDeviceType) and kind in _DLPACK_TO_MEMORY:
            return _DLPACK_TO_MEMORY[kind], device_id
    raise _unsupported_device(spec)


@dataclass
class MemoryBuffer:
    """Bytes at ``data_ptr`` of ``size`` bytes in ``memory_type`` on device
    ``memory_type_id``, kept alive by ``owner``."""

    data_ptr: int
    memory_type: MemoryType
    memory_type_id: int
    size: int
    owner: Any

    @staticmethod
    def from_dlpack(owner: Any) -> "MemoryBuffer":
        """The bytes of a DLPack-capable object, without copying."""
        return Tensor.from_dlpack(owner).memory_buffer

    @staticmethod
    def _of(buffer: "_conch.Buffer") -> "MemoryBuffer":
        return MemoryBuffer(
            buffer.data_ptr,
            MemoryType(buffer.memory_type),
            buffer.memory_type_id,
            buffer.size,
            buffer,
        )


@dataclass
class Tensor:
    """A typed, shaped view of a MemoryBuffer."""

    data_type: DataType
    shape: Sequence[int]
    memory_buffer: MemoryBuffer

    # -- properties -------------------------------------------------------------

    @property
    def data_ptr(self) -> int:
        return self.memory_buffer.data_ptr

    @property
    def memory_type(self) -> MemoryType:
        return self.memory_buffer.memory_type

    @property
    def memory_type_id(self) -> int:
        return self.memory_buffer.memory_type_id

    @property
    def size(self) -> int:
        """The size in bytes."""
        return self.memory_buffer.size

    # -- DLPack ----------------------------------------------------------------

    def __dlpack__(
        self,
        *,
        stream: Optional[int] = None,
        max_version: Optional[tuple[int, int]] = None,
        dl_device: Optional[tuple[int, int]] = None,
        copy: Optional[bool] = None,
    ) -> Any:
        """Exports the tensor as a DLPack capsule, without copying (unless
        ``copy`` is True). BYTES tensors cannot be exported: use
        to_bytes_array()."""
        if self.data_type == DataType.BYTES:
            raise InvalidArgumentError(
                "DLPack does not support BYTES tensors; use to_bytes_array()"
            )
        if self.memory_type == MemoryType.GPU:
            if stream is not None and not isinstance(stream, int):
                raise TypeError(f"stream must be an int or None, not {type(stream).__name__}")
            # Conch's own copies are done when they return, and a producer
            # it imported from made its memory ready for the legacy default
            # stream (see from_dlpack). The legacy (1) and per-thread (2)
            # default streams are ordered after that stream; another stream
            # (a handle) may not be, so the device waits for it first.
            if stream is not None and stream > 2:
                _conch.cuda_synchronize(self.memory_type_id)
        elif stream not in (None, -1, 0):
            raise UnsupportedError(f"stream {stream!r} is not supported for host memory")
        here = tuple(self.__dlpack_device__())
        if dl_device is not None and tuple(dl_device) != here:
            # Another device only as a copy to the host (numpy's
            # from_dlpack(x, device="cpu")), as the standard allows.
            if copy is False or tuple(dl_device) != (DLDeviceType.kDLCPU, 0):
                raise BufferError(f"cannot export a tensor on {here} to {tuple(dl_device)}")
            source: Tensor = self._copy_to(MemoryType.CPU, 0)
        elif copy:
            source = self._copy_to(self.memory_type, self.memory_type_id)
        else:
            source = self
        versioned = max_version is not None and max_version[0] >= 1
        return _conch.to_dlpack(
            source.data_ptr,
            int(source.memory_type),
            source.memory_type_id,
            int(source.data_type),
            [int(d) for d in source.shape],
            source,
            versioned,
        )

    def __dlpack_device__(self) -> tuple[DLDeviceType, int]:
        if self.memory_type == MemoryType.GPU:
            return DLDeviceType.kDLCUDA, self.memory_type_id
        return DLDeviceType.kDLCPU, 0

    @staticmethod
    def from_dlpack(obj: Any) -> "Tensor":
        """A Tensor over a DLPack-capable object's bytes (numpy, torch, cupy),
        without copying. Only C-contiguous tensors are supported."""
        if not hasattr(obj, "__dlpack__"):
            raise InvalidArgumentError("Object does not support DLpack protocol")
        capsule = None
        device = getattr(obj, "__dlpack_device__", None)
        if device is not None and int(device()[0]) == int(DLDeviceType.kDLCUDA):
            # The producer makes its memory ready for the legacy default
            # stream, the one Conch's copies run on (DLPack: stream 1).
            try:
                capsule = obj.__dlpack__(stream=1)
            except TypeError:  # a producer that takes no stream
                capsule = None
        if capsule is None:
            capsule = obj.__dlpack__()
        data_type, shape, buffer = _conch.from_dlpack(capsule)
        return Tensor(DataType(data_type), shape, MemoryBuffer._of(buffer))

    # -- BYTES -------------------------------------------------------------------

    def to_bytes_array(self) -> numpy.ndarray:
        """A numpy object array of bytes, shaped like the tensor."""
        if self.data_type != DataType.BYTES:
            raise InvalidArgumentError(
                f"Tensor has data type {self.data_type.name}, not BYTES"
            )
        host = self.to_host()
        owner = host.memory_buffer.owner
        if isinstance(owner, _conch.Buffer) and owner.data_ptr == host.data_ptr and owner.size == host.size:
            items = _conch.deserialize_bytes(owner)
        else:
            items = _conch.deserialize_bytes(ctypes.string_at(host.data_ptr, host.size))
        out = numpy.empty(len(items), dtype=numpy.object_)
        out[:] = items
        return out.reshape(tuple(self.shape))

    def to_string_array(self) -> numpy.ndarray:
        """A numpy str array (UTF-8 decoded), shaped like the tensor."""
        items = self.to_bytes_array()
        decoded = [item.decode("utf-8") for item in items.reshape(-1)]
        return numpy.array(decoded, dtype=numpy.str_).reshape(items.shape)

    @staticmethod
    def from_bytes_array(array: Union[list, numpy.ndarray]) -> "Tensor":
        """A BYTES tensor from a list or an object, bytes_ or str_ array (str
        items in UTF-8, other objects as str(item))."""
        if not isinstance(array, numpy.ndarray):
            array = numpy.array(array, dtype=numpy.object_)
        if array.dtype.kind not in _BYTES_KINDS:
            raise InvalidArgumentError(
                f"Cannot create a BYTES tensor from an array of {array.dtype}"
            )
        buffer, _ = _conch.serialize_bytes(array.reshape(-1).tolist())
        return Tensor(DataType.BYTES, list(array.shape), MemoryBuffer._of(buffer))

    @staticmethod
    def from_string_array(array: Union[list, numpy.ndarray]) -> "Tensor":
        """A BYTES tensor from a list or array of str (encoded as UTF-8)."""
        return Tensor.from_bytes_array(array)

    # -- devices ---------------------------------------------------------------

    def to_host(self) -> "Tensor":
        """The tensor in host memory: itself when it is there already."""
        return self.to_device(MemoryType.CPU)

    def to_device(self, device: DeviceOrMemoryType) -> "Tensor":
        """The tensor on `device`: itself when it is there already (pinned
        host memory counts as CPU), else a copy there. Moving to or from GPU
        memory, or into pinned memory, needs a CUDA device
        (UnsupportedError without one)."""
        memory_type, device_id = parse_device(device)
        here = self.memory_type
        if memory_type == MemoryType.GPU:
            if here == MemoryType.GPU and device_id == self.memory_type_id:
                return self
        elif here in (MemoryType.CPU, MemoryType.CPU_PINNED):
            if memory_type == here or memory_type == MemoryType.CPU:
                return self
        return self._copy_to(memory_type, device_id)

    def _copy_to(self, memory_type: MemoryType, device_id: int) -> "Tensor":
        """A copy of the tensor in `memory_type` on `device_id`."""
        target = _conch.Buffer.allocate(int(memory_type), device_id, self.size)
        _conch.copy_bytes(target.data_ptr, target.memory_type, target.memory_type_id,
                          self.data_ptr, int(self.memory_type), self.memory_type_id, self.size)
        return Tensor(self.data_type, list(self.shape), MemoryBuffer._of(target))

    # -- conversion from Python values ------------------------------------------

    @staticmethod
    def _from_object(obj: Any) -> "Tensor":
        """A Tensor from an input value: a Tensor, a numpy array, a list or a
        DLPack-capable object."""
        if isinstance(obj, Tensor):
            return obj
        if isinstance(obj, list):
            obj = numpy.array(obj)
        if type(obj) is numpy.ndarray:
            if obj.dtype.kind in _BYTES_KINDS:
                return Tensor.from_bytes_array(obj)
            array = _host_array(obj)
            return Tensor(
                _data_type_of(array),
                list(array.shape),
                MemoryBuffer(
                    array.__array_interface__["data"][0], MemoryType.CPU, 0, array.nbytes, array
                ),
            )
        if hasattr(obj, "__dlpack__"):
            return Tensor.from_dlpack(obj)
        raise InvalidArgumentError(f"Input type {type(obj)} not supported")


def _data_type_of(array: numpy.ndarray) -> DataType:
    try:
        return _NUMPY_TO_DATA_TYPE[array.dtype]
    except KeyError:
        raise InvalidArgumentError(f"numpy data type {array.dtype} is not supported") from None


def _host_array(array: numpy.ndarray) -> numpy.ndarray:
    """The array, or a C-contiguous copy in native byte order when it is not one."""
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if not array.flags.c_contiguous:
        array = numpy.ascontiguousarray(array)
    return array


# The data type codes of the numeric dtypes, in native byte order.
_CODE_OF_DTYPE = {dtype: int(code) for dtype, code in _NUMPY_TO_DATA_TYPE.items()}


def native_input(name: str, value: Any) -> tuple:
    """The input tuple _conch.Server.infer takes for one input value: numeric
    numpy arrays go by the buffer protocol, everything else as a Tensor."""
    if not isinstance(name, str):
        raise InvalidArgumentError(f"input names must be str, not {type(name)}")
    if type(value) is numpy.ndarray:
        # The common case first: a C-contiguous array of a numeric dtype in
        # native byte order goes as it is.
        code = _CODE_OF_DTYPE.get(value.dtype)
        if code is not None and value.flags.c_contiguous:
            return (name, code, value.shape, value)
    if isinstance(value, list):
        value = numpy.array(value)
    if type(value) is numpy.ndarray and value.dtype.kind not in _BYTES_KINDS:
        array = _host_array(value)
        return (name, _data_type_of(array).value, array.shape, array)
    return tensor_tuple(name, Tensor._from_object(value))


def tensor_tuple(name: str, tensor: Tensor) -> tuple:
    """The 8-item tensor tuple the extension takes for a Tensor: (name,
    data_type, shape, data_ptr, size, memory_type, memory_type_id, owner)."""
    buffer = tensor.memory_buffer
    return (
        name,
        int(tensor.data_type),
        [int(d) for d in tensor.shape],
        buffer.data_ptr,
        buffer.size,
        int(buffer.memory_type),
        buffer.memory_type_id,
        buffer.owner,
    )
