"""Where a backend finds the file of a model version: the configuration's
``default_model_filename`` (or the backend's default name) inside the
version directory, and nowhere else, as Triton keeps it there."""

from __future__ import annotations

import os

from .._errors import InvalidArgumentError

__all__ = ["model_file_path"]


def _check_name(name: str, version_dir: str) -> None:
    parts = name.replace(os.sep, "/").split("/")
    if "\0" in name or os.path.isabs(name) or ".." in parts:
        raise InvalidArgumentError(
            f"default_model_filename '{name}' must name a file inside the version directory "
            f"'{version_dir}': a relative path without '..' components"
        )


def model_file_path(version_dir: str, config: dict, default: str) -> str:
    """``<version_dir>/<default_model_filename or default>``. Raises
    InvalidArgumentError when the name is absolute, has a '..' component or
    a NUL byte, or leads (through symbolic links) out of the version
    directory. The file need not exist."""
    name = config.get("default_model_filename") or default
    _check_name(name, version_dir)
    path = os.path.join(version_dir, name)
    root = os.path.realpath(version_dir)
    resolved = os.path.realpath(path)
    if os.path.commonpath([root, resolved]) != root:
        raise InvalidArgumentError(
            f"the model file '{path}' leads outside the version directory '{version_dir}'"
        )
    return path
