"""Conch's log: the ``conch`` logger of Python's logging module.

Options decide, process-wide as upstream's logging settings do, which levels
are written (log_error, log_warn, log_info, log_verbose), where (stderr or
log_file), in which format (log_format) and whether log_callback receives
each message. The core does not log yet, so the messages are those of the
Python layer (options that Conch ignores, for example).
"""

from __future__ import annotations

import datetime
import logging
import sys
import time
from typing import TYPE_CHECKING, Callable, Optional

from ._enums import LogFormat, LogLevel

if TYPE_CHECKING:
    from ._options import Options

__all__ = ["logger", "configure"]

logger = logging.getLogger("conch")

# Handlers this module installed, replaced on each configure().
_installed: list[logging.Handler] = []


class _CallbackHandler(logging.Handler):
    """Hands each record to a log_callback; exceptions it raises are swallowed."""

    def __init__(self, callback: Callable[..., None]) -> None:
        super().__init__(logging.DEBUG)
        self._callback = callback

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stamp = datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc)
            self._callback(
                _level_of(record.levelno),
                record.pathname,
                record.lineno,
                stamp.isoformat(),
                record.getMessage(),
            )
        except Exception:  # noqa: BLE001 - a log callback must never break the caller
            pass


def _level_of(levelno: int) -> LogLevel:
    if levelno >= logging.ERROR:
        return LogLevel.ERROR
    if levelno >= logging.WARNING:
        return LogLevel.WARN
    if levelno >= logging.INFO:
        return LogLevel.INFO
    return LogLevel.VERBOSE


def _formatter(fmt: LogFormat) -> logging.Formatter:
    if fmt == LogFormat.ISO8601:
        f = logging.Formatter("%(asctime)sZ %(levelname)s %(filename)s:%(lineno)d] %(message)s",
                              "%Y-%m-%dT%H:%M:%S")
        f.converter = time.gmtime
        return f
    return logging.Formatter("%(levelname).1s%(asctime)s %(filename)s:%(lineno)d] %(message)s",
                             "%m%d %H:%M:%S")


def _threshold(options: "Options") -> Optional[int]:
    if options.log_verbose > 0:
        return logging.DEBUG
    if options.log_info:
        return logging.INFO
    if options.log_warn:
        return logging.WARNING
    if options.log_error:
        return logging.ERROR
    return None


def configure(options: "Options") -> None:
    """Applies the logging settings of ``options`` to the ``conch`` logger."""
    for handler in _installed:
        logger.removeHandler(handler)
        handler.close()
    _installed.clear()
    threshold = _threshold(options)
    if threshold is not None:
        output: logging.Handler = (
            logging.FileHandler(options.log_file)
            if options.log_file
            else logging.StreamHandler(sys.stderr)
        )
        output.setFormatter(_formatter(options.log_format))
        _installed.append(output)
    if options.log_callback is not None:
        _installed.append(_CallbackHandler(options.log_callback))
    for handler in _installed:
        logger.addHandler(handler)
    # With handlers of its own the logger does not also pass records to the
    # application's root handlers, which would print them twice.
    logger.propagate = not _installed
    if threshold is not None:
        logger.setLevel(threshold)
    elif options.log_callback is not None:
        logger.setLevel(logging.DEBUG)
    else:
        # Every level switched off, as upstream's defaults have it.
        logger.setLevel(logging.CRITICAL + 1)
