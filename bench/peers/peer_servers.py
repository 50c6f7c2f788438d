"""The servers of the peers benchmark: Conch, and the peers it is measured
against, each installed into a venv of its own under the build directory and
each serving the same python identity model (FP32 [1,16] in, the same out)
over KServe v2 HTTP and gRPC. Conch and Triton also serve a C++ identity
model (Triton with upstream's identity backend, from ../shared/peers), and
the no-op gRPC reference server stands for the gRPC library's own floor.

A server is described by how to install it and how to launch it on given
ports over a directory it may fill; everything it needs is written there."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import textwrap
from dataclasses import dataclass, field
from typing import Callable, Optional

ROOT = pathlib.Path(__file__).resolve().parents[2]

PYTHON_MODEL = "pyid"
CPP_MODEL = "identity_fp32"


def _config(name: str, backend: str) -> str:
    """A Triton model configuration: FP32 [16] INPUT0 to OUTPUT0, one CPU
    instance."""
    return (f'name: "{name}"\nbackend: "{backend}"\nmax_batch_size: 8\n'
            'input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]\n'
            'output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]\n'
            'instance_group [ { count: 1 kind: KIND_CPU } ]\n')


# The python identity model as a Triton (and Conch) python-backend model,
# and Conch's C++ identity.
PB_CONFIG = _config(PYTHON_MODEL, "python")
CPP_CONFIG = _config(CPP_MODEL, "identity")

# The same model.py Conch's own benchmarks use (bench/models/pyid).
PB_MODEL = (ROOT / "bench" / "models" / PYTHON_MODEL / "1" / "model.py").read_text()

KSERVE_SERVER = """
import sys

import kserve
from kserve import InferOutput, InferRequest, InferResponse


class PyIdentity(kserve.Model):
    def __init__(self, name):
        super().__init__(name)
        self.ready = True

    async def predict(self, payload, headers=None, response_headers=None):
        x = payload.inputs[0].as_numpy()
        out = InferOutput(name="OUTPUT0", shape=list(x.shape), datatype="FP32")
        out.set_data_from_numpy(x)
        return InferResponse(response_id=payload.id or "", model_name=self.name, infer_outputs=[out])


if __name__ == "__main__":
    http_port, grpc_port = int(sys.argv[1]), int(sys.argv[2])
    kserve.ModelServer(http_port=http_port, grpc_port=grpc_port, workers=1).start(
        [PyIdentity("%s")])
""" % PYTHON_MODEL

MLSERVER_MODEL = """
from mlserver import MLModel
from mlserver.codecs import NumpyCodec
from mlserver.types import InferenceRequest, InferenceResponse


class PyIdentity(MLModel):
    async def load(self) -> bool:
        return True

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        x = NumpyCodec.decode_input(payload.inputs[0])
        return InferenceResponse(model_name=self.name,
                                 outputs=[NumpyCodec.encode_output("OUTPUT0", x)])
"""


@dataclass
class Launch:
    """A command line to start a server, with its environment and directory."""

    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: Optional[pathlib.Path] = None


@dataclass
class Server:
    name: str
    # Models it serves: the python identity, and Conch's C++ identity.
    models: list[str]
    # Installs the server into `venv`; returns why it could not, or None.
    install: Callable[[pathlib.Path], Optional[str]]
    # Writes what the server needs into a directory and says how to start it
    # on (http_port, grpc_port, metrics_port).
    prepare: Callable[[pathlib.Path, pathlib.Path, int, int, int], Launch]
    # The protocols it is driven over ("gRPC stream": ModelStreamInfer, for
    # the servers that implement it); a server without HTTP is ready once
    # its gRPC port accepts a connection.
    protocols: tuple[str, ...] = ("HTTP", "gRPC")

    @property
    def slug(self) -> str:
        """Its name as a folder name."""
        return self.name.lower().replace(" ", "-")


def _pip_install(venv: pathlib.Path, *packages: str) -> Optional[str]:
    """Creates `venv` when missing and installs `packages` into it."""
    log = venv.with_suffix(".log")
    if not (venv / "bin" / "python").exists():
        made = subprocess.run(["python3", "-m", "venv", str(venv)], capture_output=True, text=True)
        if made.returncode != 0:
            return f"python3 -m venv failed: {made.stderr.strip()}"
    with open(log, "w") as out:
        done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
                               *packages], stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = log.read_text().strip().splitlines()[-1:] or ["?"]
        return f"pip install {' '.join(packages)} failed: {tail[0]}"
    return None


def _site_packages(venv: pathlib.Path) -> pathlib.Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def _write_triton_repository(root: pathlib.Path, with_cpp: bool) -> pathlib.Path:
    repo = root / "models"
    (repo / PYTHON_MODEL / "1").mkdir(parents=True, exist_ok=True)
    (repo / PYTHON_MODEL / "config.pbtxt").write_text(PB_CONFIG)
    (repo / PYTHON_MODEL / "1" / "model.py").write_text(PB_MODEL)
    if with_cpp:
        (repo / CPP_MODEL / "1").mkdir(parents=True, exist_ok=True)
        (repo / CPP_MODEL / "config.pbtxt").write_text(CPP_CONFIG)
    return repo


# -- Conch ------------------------------------------------------------------------------


def _conch_install(_venv: pathlib.Path) -> Optional[str]:
    conch = ROOT / ".venv" / "bin" / "conch"
    return None if conch.exists() else "no .venv/bin/conch: run `make python` first"


def _conch_prepare(root: pathlib.Path, _venv: pathlib.Path, http: int, grpc: int,
                   metrics: int) -> Launch:
    repo = _write_triton_repository(root, with_cpp=True)
    return Launch([str(ROOT / ".venv" / "bin" / "conch"), "serve", "--model-repository", str(repo),
                   "--http-port", str(http), "--grpc-port", str(grpc), "--metrics-port",
                   str(metrics), "--log-info", "false"])


# -- Triton (the tritonserver that the nvidia-pytriton wheel bundles) --------------------

# Upstream's C++ identity backend (r24.10), built for this machine kind; see
# its README. It links libtritonserver.so, which the wheel ships under a
# hashed name.
TRITON_IDENTITY = ROOT.parent / "shared" / "peers" / "triton-identity-backend-r24.10" / \
    "libtriton_identity.so"


def _triton_install(venv: pathlib.Path) -> Optional[str]:
    return _pip_install(venv, "nvidia-pytriton==0.7.0")


def _triton_prepare(root: pathlib.Path, venv: pathlib.Path, http: int, grpc: int,
                    metrics: int) -> Launch:
    site = _site_packages(venv)
    bundle = site / "pytriton" / "tritonserver"
    # The python backend looks for its stub beside itself; the wheel keeps
    # one per Python version apart, as pytriton copies the right one at run.
    backends = root / "backends"
    (backends / "python").mkdir(parents=True, exist_ok=True)
    for f in (bundle / "backends" / "python").iterdir():
        if f.is_file():
            (backends / "python" / f.name).write_bytes(f.read_bytes())
    version = site.parent.name.removeprefix("python")  # the venv's, e.g. 3.11
    stub = backends / "python" / "triton_python_backend_stub"
    stub.write_bytes((bundle / "python_backend_stubs" / version / "triton_python_backend_stub").read_bytes())
    stub.chmod(0o755)
    libs = site / "nvidia_pytriton.libs"
    with_cpp = TRITON_IDENTITY.exists()
    if with_cpp:
        # The backend asks for libtritonserver.so: a link of that name to the
        # wheel's copy, which the loader finds already loaded (same file).
        (backends / "identity").mkdir(exist_ok=True)
        (backends / "identity" / "libtriton_identity.so").write_bytes(TRITON_IDENTITY.read_bytes())
        (backends / "lib").mkdir(exist_ok=True)
        server_lib = next(libs.glob("libtritonserver-*.so"))
        (backends / "lib" / "libtritonserver.so").symlink_to(server_lib)
    repo = _write_triton_repository(root, with_cpp=with_cpp)
    env = {
        # The stub is copied away from its RPATH; its libraries are here.
        "LD_LIBRARY_PATH": ":".join(filter(None, [str(libs), str(backends / "lib"),
                                                   os.environ.get("LD_LIBRARY_PATH")])),
        # The stub runs the model with the venv's python (and its numpy).
        "PATH": f"{venv / 'bin'}:{os.environ.get('PATH', '')}",
    }
    return Launch([str(bundle / "bin" / "tritonserver"), "--model-repository", str(repo),
                   "--backend-directory", str(backends), "--http-port", str(http),
                   "--grpc-port", str(grpc), "--metrics-port", str(metrics)], env)


# -- KServe (its Python model server) ----------------------------------------------------


def _kserve_install(venv: pathlib.Path) -> Optional[str]:
    return _pip_install(venv, "kserve==0.21.0")


def _kserve_prepare(root: pathlib.Path, venv: pathlib.Path, http: int, grpc: int,
                    _metrics: int) -> Launch:
    script = root / "kserve_server.py"
    script.write_text(textwrap.dedent(KSERVE_SERVER))
    return Launch([str(venv / "bin" / "python"), str(script), str(http), str(grpc)], cwd=root)


# -- MLServer ------------------------------------------------------------------------------


def _mlserver_install(venv: pathlib.Path) -> Optional[str]:
    # Its inference workers ask uvloop for a current event loop, which
    # uvloop 0.22 and later no longer make up: they die at start.
    return _pip_install(venv, "mlserver==1.7.1", "uvloop<0.22")


def _mlserver_prepare(root: pathlib.Path, venv: pathlib.Path, http: int, grpc: int,
                      metrics: int) -> Launch:
    folder = root / "mlserver"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.py").write_text(MLSERVER_MODEL)
    (folder / "settings.json").write_text(json.dumps(
        {"http_port": http, "grpc_port": grpc, "metrics_port": metrics, "debug": False}))
    (folder / "model-settings.json").write_text(json.dumps(
        {"name": PYTHON_MODEL, "implementation": "model.PyIdentity"}))
    return Launch([str(venv / "bin" / "mlserver"), "start", str(folder)], cwd=folder)


# -- The gRPC floor: conch-bench-grpc-reference, a gRPC C++ callback server
# that answers every ModelInfer at once with a fixed response ------------------------


def _floor_binary(venv: pathlib.Path) -> pathlib.Path:
    return venv.parents[1] / "bin" / "conch-bench-grpc-reference"  # BUILD/peers/<name>


def _floor_install(venv: pathlib.Path) -> Optional[str]:
    return None if _floor_binary(venv).exists() else \
        f"no {_floor_binary(venv)}: build the project first"


def _floor_prepare(_root: pathlib.Path, venv: pathlib.Path, _http: int, grpc: int,
                   _metrics: int) -> Launch:
    return Launch([str(_floor_binary(venv)), "--port", str(grpc)])


FLOOR = "gRPC floor"
FLOOR_MODEL = "no-op"

SERVERS = [
    Server("Conch", [PYTHON_MODEL, CPP_MODEL], _conch_install, _conch_prepare,
           protocols=("HTTP", "gRPC", "gRPC stream")),
    Server("Triton", [PYTHON_MODEL] + ([CPP_MODEL] if TRITON_IDENTITY.exists() else []),
           _triton_install, _triton_prepare, protocols=("HTTP", "gRPC", "gRPC stream")),
    Server("KServe", [PYTHON_MODEL], _kserve_install, _kserve_prepare),
    Server("MLServer", [PYTHON_MODEL], _mlserver_install, _mlserver_prepare),
    Server(FLOOR, [FLOOR_MODEL], _floor_install, _floor_prepare,
           protocols=("gRPC", "gRPC stream")),
]
