"""What the frontend classes share: construction over a started server,
start/stop, the context manager and the bound port."""

from __future__ import annotations

from typing import Any, Optional

from .. import _conch
from .._errors import InvalidArgumentError

__all__ = ["Frontend"]


class Frontend:
    """Base of KServeHttp (and the frontends to come). A subclass defines a
    nested ``Options`` class and ``_create(native_server, options)``, which
    returns the compiled frontend."""

    Options: type

    def __init__(self, server: Any, options: Optional[Any] = None) -> None:
        # As upstream: the server first (an unstarted one raises
        # InvalidArgumentError("Server not started")), then the options' type.
        native_server = server._ptr()
        if options is None:
            options = self.Options()
        if not isinstance(options, self.Options):
            raise InvalidArgumentError(
                "Incorrect type for options. options argument must be of type "
                f"{type(self).__name__}.Options"
            )
        self._options = options
        self._native = self._create(native_server, options)

    def _create(self, native_server: Any, options: Any) -> Any:
        raise NotImplementedError

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        """Binds the port and starts serving. Raises AlreadyExistsError when
        running, UnavailableError when the port is in use or the server
        stopped, InvalidArgumentError for options that cannot work."""
        try:
            self._native.start()
        finally:
            # The lines it logged have reached log_callback when it returns.
            _conch.flush_log_callback()

    def stop(self) -> None:
        """Stops serving: new connections are refused, requests in flight are
        answered, then connections close. Raises UnavailableError when not
        running; after ``server.stop()`` (which stops every frontend) it
        does nothing. The frontend may be started again."""
        try:
            self._native.stop()
        finally:
            _conch.flush_log_callback()

    def __enter__(self) -> "Frontend":
        self.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        # An exception of the body propagates unchanged.
        self.stop()

    # -- properties ------------------------------------------------------------------

    @property
    def options(self) -> Any:
        """The options it was created with."""
        return self._options

    @property
    def port(self) -> int:
        """The port the latest start() bound: the one picked when
        ``port=0`` was asked (a Conch addition); 0 before the first start."""
        return self._native.port
