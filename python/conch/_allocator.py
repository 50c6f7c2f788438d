"""The memory allocator ``conch serve`` runs with.

A request crosses threads: a frontend thread decodes it, a scheduler thread
runs the model, and the frontend thread writes the answer. Memory allocated
on one thread is freed on another, which glibc's malloc serves by locking the
allocating thread's arena; under load those locks are contended on every
request. A thread-caching allocator (tcmalloc, jemalloc) hands such memory
back through per-thread caches instead. Triton's documentation recommends
the same for tritonserver.

An allocator can only replace malloc before the process starts, through
LD_PRELOAD, so ``conch serve`` re-executes itself once with the chosen library
preloaded. ``--allocator system`` (or CONCH_ALLOCATOR=system) keeps glibc's.
"""

from __future__ import annotations

import ctypes.util
import os
import sys
from typing import Optional, Sequence

__all__ = ["ALLOCATORS", "allocator_library", "exec_with_allocator", "active_allocator"]

# The libraries each choice may load, by the name ctypes.util.find_library
# takes; "auto" tries tcmalloc, then jemalloc.
ALLOCATORS = {
    "tcmalloc": ("tcmalloc_minimal", "tcmalloc"),
    "jemalloc": ("jemalloc",),
}
CHOICES = ("auto", "tcmalloc", "jemalloc", "system")

# Set in the re-executed process: the allocator it was started with.
_MARKER = "CONCH_ALLOCATOR_LOADED"


class AllocatorError(RuntimeError):
    """The allocator asked for is not installed."""


def allocator_library(choice: str) -> Optional[tuple[str, str]]:
    """(allocator, library file name) for `choice`, or None for "system" and
    for "auto" when neither is installed. AllocatorError when an allocator
    named explicitly is not installed; ValueError for an unknown choice."""
    if choice not in CHOICES:
        raise ValueError(f"unknown allocator {choice!r}; expected one of {', '.join(CHOICES)}")
    if choice == "system":
        return None
    names = list(ALLOCATORS) if choice == "auto" else [choice]
    for name in names:
        for library in ALLOCATORS[name]:
            found = ctypes.util.find_library(library)
            if found:
                return name, found
    if choice == "auto":
        return None
    raise AllocatorError(f"the {choice} allocator is not installed (no lib{ALLOCATORS[choice][0]})")


def active_allocator() -> str:
    """The allocator this process runs with: what it was re-executed with, or
    "system"."""
    return os.environ.get(_MARKER, "system")


def exec_with_allocator(choice: str, argv: Sequence[str]) -> None:
    """Replaces this process with `python -m conch <argv>` under the chosen
    allocator, unless this process already is that one, or the choice
    resolves to glibc's. Returns only when nothing is to be done."""
    if _MARKER in os.environ:
        return
    found = allocator_library(choice)
    if found is None:
        return
    name, library = found
    env = dict(os.environ)
    preload = env.get("LD_PRELOAD", "")
    env["LD_PRELOAD"] = f"{library} {preload}".strip()
    env[_MARKER] = name
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "conch", *argv], env)
