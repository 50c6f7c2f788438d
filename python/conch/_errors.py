"""The exceptions Conch raises.

Each error class of the core (``conch::runtime::errc``) has one class here;
the extension raises them through a single mapping (python/src/conch/python/
status.cpp). The names are those of the upstream ``tritonserver`` package.
``CancelledError`` is Conch's own: upstream reports cancellation as
``UnknownError``, so it subclasses ``UnknownError`` and upstream-style
``except UnknownError`` still catches it.
"""

from __future__ import annotations

__all__ = [
    "TritonError",
    "UnknownError",
    "InternalError",
    "NotFoundError",
    "InvalidArgumentError",
    "UnavailableError",
    "UnsupportedError",
    "AlreadyExistsError",
    "CancelledError",
]


class TritonError(Exception):
    """Base class of every error Conch raises on purpose.

    An error carried by a response has that response appended to its args
    (``err.args == (message, response)``, as upstream); str() shows only the
    message.
    """

    def __str__(self) -> str:
        if len(self.args) == 2 and isinstance(self.args[0], str):
            return self.args[0]
        return super().__str__()


class UnknownError(TritonError):
    """A failure of no other class."""


class InternalError(TritonError):
    """A failure inside Conch or a backend that the caller cannot fix."""


class NotFoundError(TritonError):
    """The model, version or resource does not exist."""


class InvalidArgumentError(TritonError):
    """The request, option or configuration is malformed, or the server is not started."""


class UnavailableError(TritonError):
    """The server or model cannot take the request now (stopping, not ready)."""


class UnsupportedError(TritonError):
    """The operation is valid but Conch or the model does not support it."""


class AlreadyExistsError(TritonError):
    """The thing to create exists already, or the operation is running already."""


class CancelledError(UnknownError):
    """The request was cancelled before it completed (a Conch addition)."""


for _cls in (
    TritonError,
    UnknownError,
    InternalError,
    NotFoundError,
    InvalidArgumentError,
    UnavailableError,
    UnsupportedError,
    AlreadyExistsError,
    CancelledError,
):
    _cls.__module__ = "conch"
del _cls
