"""What a configuration or a load request names on disk stays inside the
model's folders: default_model_filename and label_filename (refused when
absolute, with '..', or linked out), and the files of a load override,
written private to the server's user, with Triton's answer for a name the
file system cannot hold. The SageMaker url is in test_sagemaker_mme.py."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import stat
from typing import Iterator

import numpy
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

import conch
from conch.frontend import KServeGrpc

MODELS = pathlib.Path(__file__).resolve().parent / "python_models"
ECHO_CONFIG = {
    "backend": "python",
    "max_batch_size": 0,
    "input": [{"name": "INPUT0", "data_type": "TYPE_STRING", "dims": [-1]}],
    "output": [
        {"name": "OUTPUT0", "data_type": "TYPE_STRING", "dims": [-1]},
        {"name": "INFO", "data_type": "TYPE_STRING", "dims": [1]},
    ],
}


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    repository = tmp_path_factory.mktemp("paths") / "models"
    shutil.copytree(MODELS / "echo", repository / "echo")
    return repository


@pytest.fixture(scope="module")
def server(repository: pathlib.Path) -> Iterator[conch.Server]:
    # Lenient, so that a load runs the python backend's auto-complete, which
    # imports the model file the configuration names.
    server = conch.Server(
        model_repository=str(repository),
        model_control_mode=conch.ModelControlMode.EXPLICIT,
        strict_model_config=False,
    ).start(wait_until_ready=True)
    yield server
    server.stop()


@pytest.fixture
def evil(tmp_path: pathlib.Path) -> Iterator[pathlib.Path]:
    """A .py file outside every repository that leaves a mark when imported."""
    marker = tmp_path / "imported"
    script = tmp_path / "evil.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    yield script
    assert not marker.exists(), "the file outside the version directory was imported"


def test_a_default_model_filename_leading_out_is_refused(
        server: conch.Server, repository: pathlib.Path, evil: pathlib.Path) -> None:
    version = repository / "echo" / "1"
    for name in (str(evil), os.path.relpath(evil, version), f"sub/../../{evil.name}"):
        config = {**ECHO_CONFIG, "default_model_filename": name}
        with pytest.raises(conch.InvalidArgumentError, match="default_model_filename"):
            server.load("echo", {"config": json.dumps(config)})
        # The same with the model given as files: nothing is imported either.
        with pytest.raises(conch.InvalidArgumentError, match="default_model_filename"):
            server.load("uploaded", {"config": json.dumps(config), "file:1/model.py": b"x = 1\n"})


def test_a_model_file_linked_out_of_the_version_directory_is_refused(
        server: conch.Server, repository: pathlib.Path, evil: pathlib.Path) -> None:
    model = repository / "linked"
    (model / "1").mkdir(parents=True)
    echo = (repository / "echo" / "config.pbtxt").read_text()
    (model / "config.pbtxt").write_text(echo.replace('"echo"', '"linked"'))
    (model / "1" / "model.py").symlink_to(evil)
    with pytest.raises(conch.TritonError, match="outside the version directory"):
        server.load("linked")


def test_a_label_filename_leading_out_is_refused(
        server: conch.Server, repository: pathlib.Path, tmp_path: pathlib.Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cr3t\n")
    (repository / "echo" / "labels_link.txt").symlink_to(secret)
    for name in (str(secret), os.path.relpath(secret, repository / "echo"), "labels_link.txt"):
        config = json.loads(json.dumps(ECHO_CONFIG))
        config["output"][0]["label_filename"] = name
        with pytest.raises(conch.InvalidArgumentError, match="label"):
            server.load("echo", {"config": json.dumps(config)})


def mode(path: pathlib.Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_override_files_are_private_to_the_server_user(server: conch.Server) -> None:
    source = (MODELS / "echo" / "1" / "model.py").read_bytes()
    old = os.umask(0)  # whatever the umask, nobody else may read them
    try:
        model = server.load("private", {"config": json.dumps(ECHO_CONFIG),
                                        "file:1/model.py": source})
    finally:
        os.umask(old)
    try:
        response = list(model.infer(inputs={"INPUT0": numpy.array([b"x"], numpy.object_)}))[0]
        info = json.loads(response.outputs["INFO"].to_bytes_array()[0])
        model_dir = pathlib.Path(info["args"]["model_repository"])
        for directory in (model_dir.parent.parent, model_dir.parent, model_dir, model_dir / "1"):
            assert mode(directory) == 0o700, directory
            assert directory.stat().st_uid == os.geteuid()
        for file in (model_dir / "config.pbtxt", model_dir / "1" / "model.py"):
            assert mode(file) == 0o600, file
    finally:
        server.unload("private", wait_until_unloaded=True)


def test_a_file_name_longer_than_name_max_fails_as_in_triton(server: conch.Server) -> None:
    # Upstream's simple_grpc_model_control.py: INTERNAL, "failed to poll".
    files = {"file:" + "A" * 256: b"a"}
    with pytest.raises(conch.InternalError, match="failed to poll from model repository"):
        server.load("echo", {"config": "{}", **files})
    with KServeGrpc(server, KServeGrpc.Options(address="127.0.0.1", port=0)) as frontend:
        client = grpcclient.InferenceServerClient(f"127.0.0.1:{frontend.port}")
        try:
            with pytest.raises(InferenceServerException) as caught:
                client.load_model("echo", config="{}", files=files)
            assert caught.value.status() == "StatusCode.INTERNAL"
            assert ("failed to load 'echo', failed to poll from model repository"
                    in caught.value.message())
            assert client.is_server_live()
        finally:
            client.close()
