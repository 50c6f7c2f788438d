"""The errors the backends raise and how a model's error is described.

A module of its own, below the package's ``__init__`` (which loads the
backend modules by name) and below those modules, which need these: so no
backend module imports the package that imports it."""

from __future__ import annotations

import traceback

__all__ = ["BackendError", "ExecutionAbandoned", "describe"]


class BackendError(Exception):
    """An error whose message is complete as it stands."""

    __module__ = "conch._backend"  # the name it is known by (re-exported there)


class ExecutionAbandoned(BaseException):
    """Raised inside a model's execute() that had not returned when the
    server's exit timeout expired: its requests were answered already, and
    the thread is given up on. A BaseException, so that model code catching
    Exception lets it through and the thread can end."""

    __module__ = "conch._backend"  # the name it is known by (re-exported there)


def describe(error: BaseException) -> str:
    """"Type: message (file, line N, in function)" for an exception raised by
    model code, naming the innermost frame of the traceback."""
    text = f"{type(error).__name__}: {error}"
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        text += f" ({last.filename}, line {last.lineno}, in {last.name})"
    return text
