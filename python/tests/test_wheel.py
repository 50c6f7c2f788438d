"""The wheels of scripts/build-wheel.sh (`make wheel`) installed into a
fresh virtual environment, as a user installs them: the extension finds
every library it needs inside the wheel (LD_LIBRARY_PATH empty, the build
tree out of reach), and the in-process example, `conch serve` and
`--version` run from that environment alone."""

from __future__ import annotations

import pathlib
import re
import shutil
import signal
import subprocess
import urllib.request
import zipfile
from typing import Iterator

import pytest

import conch
from conftest import EXAMPLE_REPOSITORY

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEADLINE_S = 600
# What a manylinux wheel may take from the system rather than carry.
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1",
                    "libpthread.so.0", "libdl.so.2", "librt.so.1", "linux-vdso.so.1",
                    "ld-linux-x86-64.so.2"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A folder outside the checkout to run from."""
    return tmp_path_factory.mktemp("user")


@pytest.fixture(scope="module")
def venv(wheelhouse: pathlib.Path, home: pathlib.Path) -> pathlib.Path:
    env = home / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(env)], check=True, timeout=DEADLINE_S)
    (conch_wheel,) = wheelhouse.glob("conch-*.whl")
    (compat_wheel,) = wheelhouse.glob("conch_triton_compat-*.whl")
    subprocess.run([str(env / "bin" / "python"), "-m", "pip", "install", "-q",
                    "--disable-pip-version-check", f"{conch_wheel}[onnx]", str(compat_wheel)],
                   check=True, timeout=DEADLINE_S, cwd=home)
    return env


def user_env(venv: pathlib.Path, home: pathlib.Path) -> dict[str, str]:
    """A user's environment: the venv first on PATH, nothing of the build."""
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LD_LIBRARY_PATH": "",
            "LANG": "C.UTF-8"}


def run(venv: pathlib.Path, home: pathlib.Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), env=user_env(venv, home), cwd=home, capture_output=True,
                          text=True, timeout=DEADLINE_S)


def test_the_wheel_carries_its_libraries_and_its_stubs(wheelhouse: pathlib.Path) -> None:
    (wheel,) = wheelhouse.glob("conch-*.whl")
    assert re.search(r"-manylinux_\d+_\d+_\w+\.whl$", wheel.name), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    for library in ("libcaf_core", "libgrpc++", "libprotobuf", "libuv", "libprometheus-cpp-core"):
        assert any(n.startswith("conch.libs/" + library) for n in names), library
    assert "conch/_conch.pyi" in names and "conch/py.typed" in names


def test_the_extension_loads_from_the_venv_alone(venv: pathlib.Path,
                                                 home: pathlib.Path) -> None:
    done = run(venv, home, "python", "-c",
               "import conch._conch as n, tritonserver, tritonfrontend; print(n.__file__)")
    assert done.returncode == 0, done.stderr
    extension = pathlib.Path(done.stdout.strip())
    assert extension.is_relative_to(venv), extension
    linked = run(venv, home, "ldd", str(extension)).stdout
    assert "not found" not in linked, linked
    for name, path in re.findall(r"^\s*(\S+) => (\S+)", linked, re.MULTILINE):
        assert name in SYSTEM_LIBRARIES or pathlib.Path(path).is_relative_to(venv), (name, path)


def test_version(venv: pathlib.Path, home: pathlib.Path) -> None:
    expected = f"conch {conch.__version__}"
    for argv in (("conch", "--version"), ("python", "-m", "conch", "--version")):
        done = run(venv, home, *argv)
        assert (done.returncode, done.stdout.strip()) == (0, expected), done.stderr


def test_the_inprocess_example_runs(venv: pathlib.Path, home: pathlib.Path) -> None:
    # The example beside its repository, copied out of the checkout.
    examples = home / "examples"
    shutil.copytree(ROOT / "python" / "examples", examples, dirs_exist_ok=True)
    done = run(venv, home, "python", str(examples / "inprocess_example.py"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Roger Roger" in done.stdout


@pytest.fixture
def served(venv: pathlib.Path, home: pathlib.Path) -> Iterator[tuple[subprocess.Popen, int]]:
    process = subprocess.Popen(
        ["conch", "serve", "--model-repository", str(EXAMPLE_REPOSITORY), "--http-port", "0",
         "--grpc-port", "0", "--metrics-port", "0"],
        env=user_env(venv, home), cwd=home, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    assert process.stdout is not None
    port = 0
    for line in process.stdout:
        if match := re.search(r"KServe HTTP listening on \S+:(\d+)$", line.rstrip()):
            port = int(match.group(1))
            break
    assert port, "conch serve did not start"
    yield process, port
    if process.poll() is None:
        process.kill()
        process.wait()


def test_conch_serve_runs_from_the_wheel(served: tuple[subprocess.Popen, int]) -> None:
    process, port = served
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/health/ready", timeout=30) as r:
        assert r.status == 200
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=DEADLINE_S) == 0
