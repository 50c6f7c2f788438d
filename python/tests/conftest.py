"""Fixtures: servers over the example repository and over small repositories
written into tmp_path."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from typing import Callable, Iterator, Optional

import pytest

import conch

EXAMPLE_REPOSITORY = (
    pathlib.Path(__file__).resolve().parent.parent / "examples" / "example_model_repository"
)

# Model-configuration type names of every data type the identity backend passes.
CONFIG_TYPES = {
    conch.DataType.BOOL: "TYPE_BOOL",
    conch.DataType.UINT8: "TYPE_UINT8",
    conch.DataType.UINT16: "TYPE_UINT16",
    conch.DataType.UINT32: "TYPE_UINT32",
    conch.DataType.UINT64: "TYPE_UINT64",
    conch.DataType.INT8: "TYPE_INT8",
    conch.DataType.INT16: "TYPE_INT16",
    conch.DataType.INT32: "TYPE_INT32",
    conch.DataType.INT64: "TYPE_INT64",
    conch.DataType.FP16: "TYPE_FP16",
    conch.DataType.FP32: "TYPE_FP32",
    conch.DataType.FP64: "TYPE_FP64",
    conch.DataType.BYTES: "TYPE_STRING",
    conch.DataType.BF16: "TYPE_BF16",
}


def _generate_example_onnx_model() -> None:
    """`make` generates the example's ONNX models; do it here too when the
    tests run on their own."""
    for model, script in (("identity", "make_identity_onnx.py"),
                          ("simple_sequence", "make_simple_sequence_onnx.py")):
        target = EXAMPLE_REPOSITORY / model / "1" / "model.onnx"
        if not target.exists():
            subprocess.run([sys.executable, str(EXAMPLE_REPOSITORY.parent / script), str(target)],
                           check=True)


_generate_example_onnx_model()


def write_model(repository: pathlib.Path, name: str, config: str) -> pathlib.Path:
    """Writes <repository>/<name>/config.pbtxt and an empty version folder 1."""
    model = repository / name
    (model / "1").mkdir(parents=True, exist_ok=True)
    (model / "config.pbtxt").write_text(f'name: "{name}"\n' + textwrap.dedent(config))
    return model


def http_call(port: int, method: str, path: str, body: Optional[bytes] = None,
              headers: Optional[dict[str, str]] = None) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP request to 127.0.0.1:port: (status, headers, body),
    error statuses included."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body,
                                     method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def identity_config(type_name: str, delay_ms: int = 0, decoupled: bool = False) -> str:
    """An identity model with INPUT0 -> OUTPUT0 of any shape."""
    config = f"""
        backend: "identity"
        max_batch_size: 0
        input [ {{ name: "INPUT0" data_type: {type_name} dims: [ -1 ] }} ]
        output [ {{ name: "OUTPUT0" data_type: {type_name} dims: [ -1 ] }} ]
        instance_group [ {{ count: 1 kind: KIND_CPU }} ]
    """
    if delay_ms:
        config += f"""
        parameters [ {{ key: "execute_delay_ms" value: {{ string_value: "{delay_ms}" }} }} ]
        """
    return config


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The wheels scripts/build-wheel.sh (make wheel) builds, once per run.
    Where `make python` has built the extension (build/), the wheel packs
    that tree's extension instead of compiling the libraries again in
    Release: what the wheel tests check is how it is packed."""
    out = tmp_path_factory.mktemp("wheelhouse")
    root = pathlib.Path(__file__).resolve().parents[2]
    command = ["bash", str(root / "scripts" / "build-wheel.sh"), str(out)]
    cache = root / "build" / "CMakeCache.txt"
    if cache.is_file() and "CONCH_BUILD_PYTHON:BOOL=ON" in cache.read_text():
        command += ["--from-tree", "build"]
    subprocess.run(command, check=True, timeout=900, stdout=subprocess.DEVNULL)
    return out


@pytest.fixture(scope="module")
def example_server() -> Iterator[conch.Server]:
    """A server over python/examples/example_model_repository."""
    server = conch.Server(model_repository=str(EXAMPLE_REPOSITORY)).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def dtype_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[conch.Server]:
    """A server with one identity model per data type ("identity_<TYPE>"),
    and "slow_identity" that takes 200 ms per execution."""
    repository = tmp_path_factory.mktemp("dtypes")
    for data_type, type_name in CONFIG_TYPES.items():
        write_model(repository, f"identity_{data_type.name}", identity_config(type_name))
    write_model(repository, "slow_identity", identity_config("TYPE_INT32", delay_ms=200))
    server = conch.Server(model_repository=str(repository)).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture
def make_server(tmp_path: pathlib.Path) -> Iterator[Callable[..., conch.Server]]:
    """Starts servers over tmp_path (write models first) and stops them after the test."""
    servers: list[conch.Server] = []

    def start(**options: object) -> conch.Server:
        options.setdefault("model_repository", str(tmp_path))
        server = conch.Server(**options).start(wait_until_ready=True)
        servers.append(server)
        return server

    yield start
    for server in servers:
        try:
            server.stop()
        except conch.InvalidArgumentError:
            pass  # the test stopped it
