"""The Containerfile checked where no container runtime or base image is
at hand: its instructions agree with `conch serve` and the manifests in
deploy/, its runtime packages provide every shared library the built
extension needs, and its entry point, command and HEALTHCHECK run here
against the same filesystem layout."""

from __future__ import annotations

import json
import pathlib
import re
import signal
import subprocess
import sys
import zipfile
from typing import Iterator

import pytest

from conftest import identity_config, write_model
from test_deploy_manifests import find, serve_args
from test_serve import DEADLINE_S, LISTENING, Serve

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONTAINERFILE = ROOT / "Containerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined."""
    text = re.sub(r"\\\n", " ", CONTAINERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def final_stage() -> list[tuple[str, str]]:
    all_ = instructions()
    last_from = max(i for i, (word, _) in enumerate(all_) if word == "FROM")
    return all_[last_from:]


def one(word: str) -> str:
    (found,) = [rest for w, rest in final_stage() if w == word]
    return found


def test_the_runtime_stage_runs_conch_serve_as_a_non_root_user() -> None:
    froms = [rest for word, rest in instructions() if word == "FROM"]
    assert len(froms) == 2 and froms[0].endswith(" AS build") and " AS " not in froms[1]
    assert any("--from=build" in rest for word, rest in final_stage() if word == "COPY")
    assert json.loads(one("ENTRYPOINT")) == ["conch", "serve"]
    args = serve_args(json.loads(one("CMD")))
    assert args.model_repository == ["/models"]
    assert {int(p) for p in one("EXPOSE").split()} == {
        args.http_port, args.grpc_port, args.metrics_port}
    assert one("STOPSIGNAL") == "SIGTERM"
    uid = one("USER").split(":")[0]
    assert uid != "0" and uid != "root"
    # The manifests run as that user and mount the repository where the image expects it.
    deployment = find("Deployment", "kubernetes")["spec"]["template"]["spec"]
    assert str(deployment["securityContext"]["runAsUser"]) == uid
    (c,) = deployment["containers"]
    assert c["image"] == "localhost/conch:latest"
    assert any(m["mountPath"] == "/models" for m in c["volumeMounts"])


def package_closure(packages: set[str]) -> set[str]:
    """`packages` and every package they depend on, as dpkg knows them here."""
    seen: set[str] = set()
    todo = list(packages)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        done = subprocess.run(["dpkg-query", "-W", "-f=${Depends},${Pre-Depends}", name],
                              capture_output=True, text=True)
        for alternative in done.stdout.split(","):
            for dep in alternative.split("|")[:1]:
                dep = re.sub(r"\(.*?\)", "", dep).strip().split(":")[0]
                if dep:
                    todo.append(dep)
    return seen


def owners(library: str) -> set[str]:
    for path in (library, "/usr" + library):
        done = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True)
        if done.returncode == 0:
            return {line.split(":")[0] for line in done.stdout.splitlines()}
    return set()


def test_the_build_stage_installs_the_self_contained_wheels() -> None:
    all_ = instructions()
    last_from = max(i for i, (word, _) in enumerate(all_) if word == "FROM")
    runs = " ".join(rest for word, rest in all_[:last_from] if word == "RUN")
    assert "scripts/build-wheel.sh /wheels" in runs
    assert "pip install" in runs and "/wheels/*.whl" in runs


def test_the_runtime_packages_provide_every_library_the_wheel_does_not_carry(
        wheelhouse: pathlib.Path, tmp_path: pathlib.Path) -> None:
    listed = set((ROOT / "deploy/container/runtime-packages.txt").read_text().split())
    provided = package_closure(listed)
    (wheel,) = wheelhouse.glob("conch-*.whl")
    zipfile.ZipFile(wheel).extractall(tmp_path)
    (extension,) = (tmp_path / "conch").glob("_conch*.so")
    linked = subprocess.run(["ldd", str(extension)], capture_output=True, text=True,
                            check=True, env={"LD_LIBRARY_PATH": ""}).stdout
    assert "not found" not in linked, linked
    libraries = re.findall(r"=> (/\S+)", linked)
    carried = [lib for lib in libraries if lib.startswith(str(tmp_path))]
    from_system = [lib for lib in libraries if not lib.startswith(str(tmp_path))]
    assert carried and from_system
    for library in from_system:
        packages = owners(library)
        assert packages, f"no Debian package owns {library}"
        assert packages & provided, f"{library} ({packages}) is not in the runtime stage"
    # And the allocator `conch serve` prefers, which it loads by name.
    assert "libtcmalloc-minimal4" in listed
    python_packages = (ROOT / "deploy/container/requirements.txt").read_text()
    for dependency in ("numpy", "pydantic"):
        assert dependency in python_packages


def healthcheck(port: int) -> list[str]:
    """The HEALTHCHECK's command, run with this machine's Python on `port`."""
    command = json.loads(re.search(r"CMD (\[.*\])$", one("HEALTHCHECK")).group(1))
    assert command[0] == "/opt/conch/bin/python"
    return [sys.executable, *(arg.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
                              for arg in command[1:])]


@pytest.fixture
def container(tmp_path: pathlib.Path) -> Iterator[tuple[Serve, int]]:
    """ENTRYPOINT + CMD, with /models here and free ports."""
    write_model(tmp_path / "models", "m", identity_config("TYPE_FP32"))
    # ENTRYPOINT is `conch serve`; Serve runs `python -m conch serve`.
    command = [arg.replace("=/models", f"={tmp_path / 'models'}")
               for arg in json.loads(one("CMD"))]
    process = Serve(*command, "--http-port", "0")
    yield process, int(process.wait_for(LISTENING).group(1))
    process.kill()


def test_the_entry_point_serves_passes_its_healthcheck_and_drains(
        container: tuple[Serve, int]) -> None:
    process, port = container
    assert subprocess.run(healthcheck(port), timeout=30).returncode == 0
    process.process.send_signal(signal.SIGTERM)
    assert process.process.wait(timeout=DEADLINE_S) == 0
    # Nothing listens any more: the HEALTHCHECK fails.
    done = subprocess.run(healthcheck(port), capture_output=True, timeout=30)
    assert done.returncode != 0
