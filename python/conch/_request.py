"""InferenceRequest: what Model.infer submits."""

from __future__ import annotations

import asyncio
import queue
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from . import _conch
from ._errors import InvalidArgumentError
from ._tensor import DeviceOrMemoryType, Tensor, native_input

if TYPE_CHECKING:
    from ._model import Model

__all__ = ["InferenceRequest"]


@dataclass
class InferenceRequest:
    """One inference request.

    ``inputs`` maps names to Tensors, numpy arrays, lists or DLPack-capable
    objects; numeric arrays are passed without copying (non-contiguous ones
    are copied first). ``parameters`` values must be exactly str, int, bool or
    float. ``response_queue`` (a queue.SimpleQueue for infer, an asyncio.Queue
    for async_infer) receives every response as well.
    """

    model: "Model"
    request_id: Optional[str] = None
    flags: int = 0
    correlation_id: Optional[Union[int, str]] = None
    priority: int = 0
    timeout: int = 0
    inputs: dict[str, Union[Tensor, Any]] = field(default_factory=dict)
    parameters: dict[str, Union[str, int, bool, float]] = field(default_factory=dict)
    output_memory_type: Optional[DeviceOrMemoryType] = None
    response_queue: Optional[Union[queue.SimpleQueue, asyncio.Queue]] = None

    def _submit(
        self, on_response: Optional[Callable[["_conch.Response"], None]]
    ) -> "_conch.RequestHandle":
        """Submits the request; raises at once for an unknown model, a stopped
        server or an input or parameter Conch cannot take."""
        native = self.model._server._native()
        if not isinstance(self.inputs, dict):
            raise InvalidArgumentError("inputs must be a dict of name to value")
        if not isinstance(self.parameters, dict):
            raise InvalidArgumentError("parameters must be a dict of name to value")
        if self.request_id is not None and not isinstance(self.request_id, str):
            raise InvalidArgumentError("request_id must be a str")
        inputs = [native_input(name, value) for name, value in self.inputs.items()]
        return native.infer(
            self.model.name,
            self.model.version,
            inputs,
            self.parameters,
            self.request_id,
            self.flags,
            self.correlation_id,
            self.priority,
            self.timeout,
            on_response,
        )
