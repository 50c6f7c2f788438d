"""Conch's log: one process-wide logger, in the C++ core, for every line.

Options decide, process-wide as upstream's logging settings do, which levels
are written (log_error, log_warn, log_info, log_verbose: no cascade here, the
Options object cascades them at start), where (stderr or log_file), in which
format (log_format) and whether log_callback receives each line. The core's
own lines (model loads, frontends, server start and stop) and the Python
layer's go the same way: records of the ``conch`` logger of Python's logging
module are forwarded to the core by a handler, so they share format, file and
callback, and ``/v2/logging`` changes what both write.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Callable

from . import _conch
from ._enums import LogLevel

if TYPE_CHECKING:
    from ._options import Options

__all__ = ["logger", "configure", "LogMessage"]

logger = logging.getLogger("conch")


def _level_of(levelno: int) -> LogLevel:
    if levelno >= logging.ERROR:
        return LogLevel.ERROR
    if levelno >= logging.WARNING:
        return LogLevel.WARN
    if levelno >= logging.INFO:
        return LogLevel.INFO
    return LogLevel.VERBOSE


class _CoreHandler(logging.Handler):
    """Hands each record of the ``conch`` logger to the core's logger, which
    writes it (when its level is on) with the record's file and line."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = int(_level_of(record.levelno))
            if _conch.log_is_on(level):
                _conch.log_message(level, record.pathname, record.lineno, self.format(record))
        except Exception:  # noqa: BLE001 - logging must never break the caller
            self.handleError(record)


_handler = _CoreHandler()
logger.addHandler(_handler)
# The core writes the records; the application's root handlers would print
# them a second time.
logger.propagate = False


def _python_callback(callback: Callable[..., None]) -> Callable[[int, str, int, str, str], None]:
    # The core passes the level as an int; the option's callback gets the enum.
    def forward(level: int, filename: str, line: int, timestamp: str, message: str) -> None:
        callback(LogLevel(level), filename, line, timestamp, message)

    return forward


def configure(options: "Options") -> None:
    """Applies the logging settings of ``options`` to the core's logger and
    the ``conch`` logger. Raises InvalidArgumentError, keeping the current
    output, when log_file cannot be opened."""
    _conch.configure_logging(
        bool(options.log_info),
        bool(options.log_warn),
        bool(options.log_error),
        int(options.log_verbose),
        int(options.log_format),
        options.log_file or "",
    )
    callback = options.log_callback
    _conch.set_log_callback(None if callback is None else _python_callback(callback))
    writes = options.log_info or options.log_warn or options.log_error or options.log_verbose > 0
    if writes:
        # The core decides per line, so /v2/logging changes Python's lines too.
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
    else:
        # Every level switched off, as upstream's defaults have it. Records
        # still reach the application's handlers (pytest's caplog, for one)
        # when it lowers the level itself.
        logger.setLevel(logging.CRITICAL + 1)
        logger.propagate = True


def LogMessage(level: LogLevel, message: str) -> None:  # noqa: N802 - upstream's name
    """Writes ``message`` at ``level`` through Conch's logger, with the
    caller's file and line (upstream's ``_logging.LogMessage``)."""
    level = LogLevel(level)
    if not _conch.log_is_on(int(level)):
        return
    frame = sys._getframe(1)
    _conch.log_message(int(level), frame.f_code.co_filename, frame.f_lineno, str(message))


def log_from_caller(level: int, message: str, depth: int = 2) -> None:
    """Writes ``message`` at ``level`` (a LogLevel value) with the file and
    line of the frame ``depth`` levels up: the model code that called a
    python-backend Logger method."""
    if not _conch.log_is_on(level):
        return
    try:
        frame = sys._getframe(depth)
        filename, line = frame.f_code.co_filename, frame.f_lineno
    except ValueError:
        filename, line = "<unknown>", 0
    _conch.log_message(level, filename, line, str(message))
