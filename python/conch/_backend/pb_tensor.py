"""pb_utils.Tensor: a named tensor of a Python model's request or response.

Inputs are views of the request's bytes; ``as_numpy`` wraps them without a
copy (BYTES are decoded into an object array). Outputs hold the array the
model gave, which Conch sends without copying when it is C-contiguous.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy

from .. import _conch
from .._enums import DataType, MemoryType
from .._tensor import MemoryBuffer, Tensor as _Tensor, native_input, tensor_tuple
from .pb_types import NUMPY_BY_CODE, TritonModelException

__all__ = ["Tensor"]

_BYTES = int(DataType.BYTES)
_ndarray = numpy.ndarray
# The memory types a tensor's bytes can be read in place from: host and
# pinned host memory.
HOST_MEMORY_TYPES = (int(MemoryType.CPU), int(MemoryType.CPU_PINNED))


class Tensor:
    """``Tensor(name, array)``; ``name()``, ``as_numpy()``, ``to_dlpack()``,
    ``Tensor.from_dlpack(name, capsule)``."""

    __slots__ = ("_name", "_array", "_native", "_tensor")

    def __init__(self, name: str, data: numpy.ndarray) -> None:
        # Wrong types are TypeErrors, as Triton's bindings raise them.
        if isinstance(name, bytes):
            name = name.decode()
        if not isinstance(name, str) or not isinstance(data, numpy.ndarray):
            raise TypeError(
                "__init__(): incompatible constructor arguments. The following argument types "
                "are supported:\n    1. Tensor(name: str, numpy_array: numpy.ndarray)\n\n"
                f"Invoked with: {name!r}, {type(data).__name__}"
            )
        self._name = name
        self._array: Optional[numpy.ndarray] = data
        self._native: Optional[tuple] = None
        self._tensor: Optional[_Tensor] = None

    # -- construction from Conch -------------------------------------------------

    @classmethod
    def _from_native(cls, item: tuple) -> "Tensor":
        """An input of a request, from its (name, data_type, shape, data_ptr,
        memory_type, memory_type_id, size, Buffer) tuple."""
        self = cls.__new__(cls)
        self._name = item[0]
        self._array = None
        self._native = item
        self._tensor = None
        return self

    @classmethod
    def _from_conch(cls, name: str, tensor: _Tensor) -> "Tensor":
        self = cls.__new__(cls)
        self._name = name
        self._array = None
        self._native = None
        self._tensor = tensor
        return self

    @staticmethod
    def from_dlpack(name: str, dlpack: Any) -> "Tensor":
        """A tensor over a DLPack capsule's or a DLPack-capable object's bytes."""
        if isinstance(name, bytes):
            name = name.decode()
        if not isinstance(name, str) or dlpack is None:
            raise TypeError(
                "from_dlpack(): incompatible function arguments. The following argument types "
                "are supported:\n    1. (name: str, dlpack: capsule) -> Tensor\n\n"
                f"Invoked with: {name!r}, {type(dlpack).__name__}"
            )
        if hasattr(dlpack, "__dlpack__"):
            return Tensor._from_conch(name, _Tensor.from_dlpack(dlpack))
        data_type, shape, buffer = _conch.from_dlpack(dlpack)
        return Tensor._from_conch(name, _Tensor(DataType(data_type), shape, MemoryBuffer._of(buffer)))

    # -- reading ---------------------------------------------------------------------

    def name(self) -> str:
        return self._name

    def as_numpy(self) -> numpy.ndarray:
        """The tensor as a numpy array (in host memory)."""
        if self._array is None:
            self._array = self._to_numpy()
        return self._array

    def shape(self) -> list:
        if self._native is not None:
            return list(self._native[2])
        if self._tensor is not None:
            return list(self._tensor.shape)
        return list(self.as_numpy().shape)

    def is_cpu(self) -> bool:
        if self._native is not None:
            return self._native[4] in HOST_MEMORY_TYPES
        if self._tensor is not None:
            return int(self._tensor.memory_type) in HOST_MEMORY_TYPES
        return True

    def _on_host(self) -> "Tensor":
        """The tensor copied to host memory (itself when it is there)."""
        if self.is_cpu():
            return self
        return Tensor._from_conch(self._name, self._conch_tensor().to_host())

    def to_dlpack(self) -> Any:
        """A DLPack capsule of the tensor, without copying."""
        return self.__dlpack__()

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        if self._array is not None and self._native is None and self._tensor is None:
            return self._array.__dlpack__(*args, **kwargs)
        return self._conch_tensor().__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        if self._array is not None and self._native is None and self._tensor is None:
            return self._array.__dlpack_device__()
        return self._conch_tensor().__dlpack_device__()

    # -- conversion ------------------------------------------------------------------

    def _conch_tensor(self) -> _Tensor:
        if self._tensor is None:
            if self._native is not None:
                _, data_type, shape, data_ptr, memory_type, memory_id, size, owner = self._native
                self._tensor = _Tensor(
                    DataType(data_type),
                    list(shape),
                    MemoryBuffer(data_ptr, MemoryType(memory_type), memory_id, size, owner),
                )
            else:
                assert self._array is not None
                self._tensor = _Tensor._from_object(self._array)
        return self._tensor

    def _to_numpy(self) -> numpy.ndarray:
        if self._native is None:
            tensor = self._conch_tensor()
            if tensor.data_type == DataType.BYTES:
                return tensor.to_bytes_array()
            return numpy.from_dlpack(tensor)
        _, data_type, shape, _, memory_type, _, size, buffer = self._native
        if memory_type not in HOST_MEMORY_TYPES:
            raise TritonModelException(
                f"tensor '{self._name}' is in GPU memory; use to_dlpack() instead of as_numpy()"
            )
        shape = tuple(shape)
        if data_type == _BYTES:
            return self._conch_tensor().to_bytes_array()
        dtype = NUMPY_BY_CODE[data_type]
        if dtype is None:
            raise TritonModelException(
                f"tensor '{self._name}' has data type {DataType(data_type).name}, which numpy "
                "cannot represent; use to_dlpack()"
            )
        if size == 0:
            return numpy.empty(shape, dtype)
        return _ndarray(shape, dtype, buffer)  # a view of the buffer, read-only when it is

    def _output(self) -> tuple:
        """The tensor tuple BackendRequest.respond takes."""
        if self._native is not None:
            # An input passed on: the same bytes, in the order respond() takes.
            name, data_type, shape, data_ptr, memory_type, memory_id, size, owner = self._native
            return (name, data_type, shape, data_ptr, size, memory_type, memory_id, owner)
        array = self._array
        if array is not None and self._tensor is None:
            return native_input(self._name, array)
        return tensor_tuple(self._name, self._conch_tensor())
