"""`conch serve --allocator`: the command restarts itself once with tcmalloc
or jemalloc preloaded, or keeps glibc's malloc; the choice shows in its
output and in the libraries the process has mapped."""

from __future__ import annotations

import ctypes.util
import pathlib
import re

import pytest

from conch import _allocator
from conftest import EXAMPLE_REPOSITORY
from test_serve import DEADLINE_S, LISTENING, infer_identity, serve  # noqa: F401 (fixture)

ALLOCATOR = re.compile(r"memory allocator: (\S+)$")


def mapped_libraries(pid: int) -> str:
    return pathlib.Path(f"/proc/{pid}/maps").read_text()


def serve_with(serve, *args: str):  # noqa: F811
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
                    "--http-thread-count", "1", "--allow-grpc", "false",
                    "--allow-metrics", "false", *args)
    port = int(process.wait_for(LISTENING).group(1))
    allocator = process.wait_for(ALLOCATOR).group(1)
    return process, port, allocator


def stop(process) -> None:
    process.process.terminate()
    assert process.process.wait(timeout=DEADLINE_S) == 0


def test_tcmalloc_is_installed_by_setup() -> None:
    # scripts/setup.sh installs libtcmalloc-minimal4, so "auto" means tcmalloc.
    assert _allocator.allocator_library("auto")[0] == "tcmalloc"


def test_serve_runs_under_tcmalloc_by_default(serve) -> None:  # noqa: F811
    process, port, allocator = serve_with(serve)
    assert allocator == "tcmalloc"
    assert "libtcmalloc" in mapped_libraries(process.process.pid)
    assert infer_identity(port) == [float(i) for i in range(16)]
    stop(process)


def test_serve_keeps_the_system_allocator_when_asked(serve) -> None:  # noqa: F811
    process, port, allocator = serve_with(serve, "--allocator", "system")
    assert allocator == "system"
    maps = mapped_libraries(process.process.pid)
    assert "libtcmalloc" not in maps and "libjemalloc" not in maps
    assert infer_identity(port) == [float(i) for i in range(16)]
    stop(process)


def test_an_unknown_allocator_is_refused(serve) -> None:  # noqa: F811
    process = serve("--model-repository", str(EXAMPLE_REPOSITORY), "--allocator", "hoard")
    assert process.process.wait(timeout=DEADLINE_S) == 2
    assert any("invalid choice: 'hoard'" in line for line in process.rest())


def test_choices_resolve_to_installed_libraries(monkeypatch) -> None:
    assert _allocator.allocator_library("system") is None
    with pytest.raises(ValueError, match="unknown allocator 'hoard'"):
        _allocator.allocator_library("hoard")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert _allocator.allocator_library("auto") is None
    with pytest.raises(_allocator.AllocatorError, match="the jemalloc allocator is not installed"):
        _allocator.allocator_library("jemalloc")
    monkeypatch.setattr(ctypes.util, "find_library",
                        lambda name: "libjemalloc.so.2" if name == "jemalloc" else None)
    assert _allocator.allocator_library("auto") == ("jemalloc", "libjemalloc.so.2")
